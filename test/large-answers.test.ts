/**
 * A guest list far larger than the server's heap: the service as its own process with a small heap,
 * its SQLite file seeded directly. Read whole, the list arrives complete and the process lives, its
 * peak RSS bounded; readers that leave half-way give their snapshots back; a reader that stops
 * reading makes it hold no more; other requests are answered meanwhile. Built whole in memory,
 * as it was before streaming, the list kills the process ("Reached heap limit").
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { get } from "node:http"
import { join } from "node:path"
import { expectStatus } from "./support/Fixtures.js"
import { startServer } from "./support/Process.js"
import { API_TOKEN, send, temporaryDirectory, testEnvironment } from "./support/TestServer.js"

const GUESTS = 40_000
/** Far below what the whole list takes as rows, objects and one JSON string (well over 100 MB). */
const HEAP_FLAGS = ["--max-old-space-size=64", "--max-semi-space-size=2"]

const statusOf = (pid: number, field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/** Persons and their guest links, with histories, invites and some phones, in one transaction. */
const seedGuests = (databasePath: string, eventPublicId: string, count: number) => {
  const db = new Database(databasePath)
  try {
    db.pragma("busy_timeout = 5000")
    const event = db.prepare("SELECT id, organization_id FROM events WHERE public_id = ?").get(eventPublicId) as { id: number; organization_id: number }
    const at = new Date().toISOString()
    const person = db.prepare(`INSERT INTO persons (public_id, organization_id, first_name, last_name, email, email_key, name_key,
        created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    const phone = db.prepare("INSERT INTO phones (person_id, number, is_preferred, created_at) VALUES (?, ?, 1, ?)")
    const guest = db.prepare("INSERT INTO event_guests (event_id, person_id, rsvp_status, created_at, updated_at) VALUES (?, ?, 'Accepted', ?, ?)")
    const history = db.prepare(`INSERT INTO rsvp_history (event_guest_id, status, actor_type, actor_id, action_type, created_at)
        VALUES (?, ?, 'apiKey', 'seed', ?, ?)`)
    const invite = db.prepare("INSERT INTO invites (event_guest_id, token, created_at) VALUES (?, ?, ?)")
    const publicIds: Array<string> = []
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const publicId = randomUUID()
        publicIds.push(publicId)
        const email = `large${i}@example.com`
        const personId = Number(person.run(publicId, event.organization_id, `First${i}`, `Last${i}`, email, email, `first${i} last${i}`, at, at).lastInsertRowid)
        if (i % 3 === 0) phone.run(personId, `+1555${i}`, at)
        const guestId = Number(guest.run(event.id, personId, at, at).lastInsertRowid)
        history.run(guestId, "Invited", "added", at)
        history.run(guestId, "Accepted", "updated", at)
        invite.run(guestId, randomBytes(16).toString("base64url"), at)
      }
    })()
    return publicIds
  } finally {
    db.close()
  }
}

interface Read {
  readonly status: number | undefined
  readonly body: string
  readonly complete: boolean
  readonly endedAt: number
}

interface Control {
  readonly pause: () => void
  readonly resume: () => void
  /** Leaves: closes the connection. */
  readonly leave: () => void
}

/** Reads the list over a connection of its own; `onFirstData` may pause it for a while, or leave. */
const readList = (url: string, onFirstData?: (control: Control) => void) =>
  Effect.async<Read>((resume) => {
    const chunks: Array<Buffer> = []
    get(url, { agent: false, headers: { "x-api-key": API_TOKEN } }, (res) => {
      res.on("data", (chunk: Buffer) => {
        if (chunks.length === 0 && onFirstData !== undefined) {
          onFirstData({ pause: () => res.pause(), resume: () => res.resume(), leave: () => res.destroy() })
        }
        chunks.push(chunk)
      })
      res.on("error", () => {})
      res.on("close", () =>
        resume(Effect.succeed({ status: res.statusCode, body: Buffer.concat(chunks).toString("utf8"), complete: res.complete, endedAt: performance.now() })))
      // no answer at all (the connection broke first): the body says why
    }).on("error", (e) => resume(Effect.succeed({ status: undefined, body: e.message, complete: false, endedAt: performance.now() })))
  })

const expectWholeList = (read: Read, personIds: ReadonlyArray<string>, output: string) => {
  expect(read.status, `the server's last words: ${/FATAL ERROR[^\n]*/.exec(output)?.[0] ?? output.slice(-600)}`).toBe(200)
  expect(read.complete).toBe(true)
  const guests = (JSON.parse(read.body) as { guests: Array<{ personId: string }> }).guests
  expect(guests.length).toBe(personIds.length)
  expect(guests.map((g) => g.personId)).toEqual(personIds)
}

describe("a guest list larger than the heap", () => {
  it.scopedLive("is streamed: complete, in bounded memory, with back-pressure, while other requests are answered", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const databasePath = join(dir, "convene.db")
      const server = yield* startServer({ ...testEnvironment(databasePath), LOG_LEVEL: "Warn" }, { nodeFlags: HEAP_FLAGS })
      const pid = server.child.pid!
      const api = send(server.url)
      const event = expectStatus(yield* api("POST", "/event", { body: { name: "Large", primaryDate: "2031-06-01T18:00:00Z" } }), 200).body
      const personIds = seedGuests(databasePath, event.eventId, GUESTS)
      const url = `${server.url}/event/${event.eventId}/guestlist`
      yield* api("GET", "/healthz")
      const before = statusOf(pid, "VmRSS")

      // read whole, as fast as the client can; a health check sent meanwhile is answered meanwhile
      let healthAnsweredAt = 0
      const whole = yield* readList(url, () => {
        void fetch(`${server.url}/healthz`).then((r) => {
          if (r.status === 200) healthAnsweredAt = performance.now()
        })
      })
      expectWholeList(whole, personIds, server.output())
      expect(healthAnsweredAt).toBeGreaterThan(0)
      expect(healthAnsweredAt).toBeLessThan(whole.endedAt)

      // readers that stop, more than there are snapshots, then leave: each gives its snapshot back
      const left = yield* Effect.all(
        Array.from({ length: 10 }, () =>
          readList(url, ({ leave, pause }) => {
            pause()
            setTimeout(leave, 1_000)
          })),
        { concurrency: "unbounded" }
      )
      expect(left.every((read) => read.status === 200 && !read.complete)).toBe(true)

      // a reader that stops: the server makes no more of the answer than the socket holds
      const samples: Array<number> = []
      let answeredWhilePaused = false
      const paused = yield* readList(url, ({ pause, resume }) => {
        pause()
        setTimeout(() => samples.push(statusOf(pid, "VmRSS")), 1_000)
        setTimeout(() => {
          samples.push(statusOf(pid, "VmRSS"))
          void fetch(`${server.url}/healthz`).then((r) => {
            answeredWhilePaused = r.status === 200
            resume()
          })
        }, 2_500)
      })
      expectWholeList(paused, personIds, server.output())
      expect(answeredWhilePaused).toBe(true)
      expect(samples[1]! - samples[0]!).toBeLessThan(8)

      // the process is alive and its peak stayed near its size before the reads
      expectStatus(yield* api("GET", "/healthz"), 200)
      expect(server.child.exitCode).toBeNull()
      const peak = statusOf(pid, "VmHWM")
      expect(peak - before, `RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB`).toBeLessThan(50)
    }), 90_000)
})
