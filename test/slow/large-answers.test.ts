/**
 * A guest list far larger than the server's heap: the service as its own process with a small heap,
 * its database seeded directly. Read whole, the list arrives complete and the process lives, its
 * peak RSS bounded; readers that leave half-way give their snapshots back; a reader that stops
 * reading makes it hold no more; other requests are answered meanwhile. Built whole in memory,
 * as it was before streaming, the list kills the process ("Reached heap limit").
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { get } from "node:http"
import { join } from "node:path"
import { databaseEnvOf, type DatabaseEnv, queryDatabase } from "../support/Engine.js"
import { expectStatus } from "../support/Fixtures.js"
import { startServer } from "../support/Process.js"
import { API_TOKEN, send, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

const GUESTS = 40_000
/** Far below what the whole list takes as rows, objects and one JSON string (well over 100 MB). */
const HEAP_FLAGS = ["--max-old-space-size=64", "--max-semi-space-size=2"]

const statusOf = (pid: number, field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/**
 * Persons and their guest links, with histories, invites and some phones, in a few set-based
 * statements through a connection of the test's own, on the suite's engine. Answers the persons'
 * public ids in list order.
 */
const seedGuests = async (env: DatabaseEnv, eventPublicId: string, count: number) => {
  const pg = env.DATABASE_URL !== undefined
  /**
   * SQLite's statement, and PostgreSQL's: `FROM rows` reads the JSON array of rows as `j`. Joins
   * are written `CROSS JOIN … WHERE`, which both read, so that SQLite goes from the rows to the
   * tables by their keys.
   */
  const run = <A = Record<string, unknown>>(text: string, params: ReadonlyArray<unknown>) =>
    queryDatabase<A>(
      env,
      text.replace("FROM rows", "FROM json_each(?) j"),
      params,
      pg ? text.replace("FROM rows", "FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS j(value, key)") : undefined
    )
  const [event] = await run<{ id: number; organization_id: number }>("SELECT id, organization_id FROM events WHERE public_id = ?", [eventPublicId])
  const at = new Date().toISOString()
  const publicIds: Array<string> = []
  const rows: Array<ReadonlyArray<string | null>> = []
  for (let i = 0; i < count; i++) {
    const publicId = randomUUID()
    publicIds.push(publicId)
    rows.push([publicId, `First${i}`, `Last${i}`, `large${i}@example.com`, `first${i} last${i}`, i % 3 === 0 ? `+1555${i}` : null, randomBytes(16).toString("base64url")])
  }
  const json = JSON.stringify(rows)
  await run(
    `INSERT INTO persons (public_id, organization_id, first_name, last_name, email, email_key, name_key, created_at, updated_at)
     SELECT j.value ->> 0, ?, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 3, j.value ->> 4, ?, ? FROM rows ORDER BY j.key`,
    [event!.organization_id, at, at, json]
  )
  await run(
    `INSERT INTO phones (person_id, number, is_preferred, created_at)
     SELECT p.id, j.value ->> 5, 1, ? FROM rows CROSS JOIN persons p WHERE p.public_id = j.value ->> 0 AND j.value ->> 5 IS NOT NULL`,
    [at, json]
  )
  await run(
    `INSERT INTO event_guests (event_id, person_id, rsvp_status, created_at, updated_at)
     SELECT ?, p.id, 'Accepted', ?, ? FROM rows CROSS JOIN persons p WHERE p.public_id = j.value ->> 0 ORDER BY j.key`,
    [event!.id, at, at, json]
  )
  for (const [status, action] of [["Invited", "added"], ["Accepted", "updated"]]) {
    await run(
      `INSERT INTO rsvp_history (event_guest_id, status, actor_type, actor_id, action_type, created_at)
       SELECT g.id, ?, 'apiKey', 'seed', ?, ? FROM event_guests g WHERE g.event_id = ? ORDER BY g.id`,
      [status, action, at, event!.id]
    )
  }
  await run(
    `INSERT INTO invites (event_guest_id, token, created_at)
     SELECT g.id, j.value ->> 6, ? FROM rows CROSS JOIN persons p CROSS JOIN event_guests g
     WHERE p.public_id = j.value ->> 0 AND g.event_id = ? AND g.person_id = p.id`,
    [at, json, event!.id]
  )
  return publicIds
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
      const env = { ...testEnvironment(databasePath), LOG_LEVEL: "Warn" }
      const server = yield* startServer(env, { nodeFlags: HEAP_FLAGS })
      const pid = server.child.pid!
      const api = send(server.url)
      const event = expectStatus(yield* api("POST", "/event", { body: { name: "Large", primaryDate: "2031-06-01T18:00:00Z" } }), 200).body
      const personIds = yield* Effect.promise(() => seedGuests(databaseEnvOf(env), event.eventId, GUESTS))
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
