/**
 * Streamed answers and slow readers (CONTRACT §18, Http/StreamSlots.ts, Http/JsonStream.ts), on the
 * suite's engine: an organization's clients that open its export and read nothing hold at most half
 * of what the server streams at once; meanwhile another organization's guest list and exports
 * answer in under 2 s, and the first organization's next export waits, then gets 503. After
 * `STREAM_IDLE_TIMEOUT` without a read, the stalled clients are disconnected and every share is
 * free again. The server runs on TestClock: the waits and the idle limit end when the test moves
 * time, while the 2 s are measured in real time.
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { randomUUID } from "node:crypto"
import { type ClientRequest, get, type IncomingMessage } from "node:http"
import { STREAM_IDLE_TIMEOUT } from "../../src/Http/ClientTimeouts.js"
import { STREAM_WAIT, StreamSlots } from "../../src/Http/StreamSlots.js"
import { queryDatabase } from "../support/Engine.js"
import { createEvent, createPerson, expectStatus } from "../support/Fixtures.js"
import { TestServer, liveServer } from "../support/TestServer.js"

/**
 * Contacts of the stalling organization: their export (some 8 MB) is far more than the sockets
 * between the server and a client that reads nothing hold (about 4 MB here).
 */
const CONTACTS = 32_000
/** Makes each contact's line some 250 bytes. */
const FILLER = "x".repeat(80)

const realPause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Waits in real time (the test's clock is TestClock) until `done` holds, at most 5 s. */
const untilTrue = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let waited = 0; !done() && waited < 5_000; waited += 50) yield* realPause(50)
  })

/** `CONTACTS` persons of the organization, in one statement on the suite's engine. */
const seedContacts = (env: Parameters<typeof queryDatabase>[0], organizationId: number) => {
  const at = new Date().toISOString()
  const rows = JSON.stringify(Array.from({ length: CONTACTS }, (_, i) => [randomUUID(), `First${i} ${FILLER}`, `Last${i}`, `slow${i}@example.com`, `first${i} last${i}`]))
  const text = `INSERT INTO persons (public_id, organization_id, first_name, last_name, email, email_key, name_key, created_at, updated_at)
     SELECT j.value ->> 0, ?, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 3, j.value ->> 4, ?, ? FROM rows ORDER BY j.key`
  return Effect.promise(() =>
    queryDatabase(
      env,
      text.replace("FROM rows", "FROM json_each(?) j"),
      [organizationId, at, at, rows],
      text.replace("FROM rows", "FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS j(value, key)")
    )
  )
}

interface Reader {
  readonly request: ClientRequest
  /** Resolves once the status line has come, with the status and Retry-After (undefined if the connection broke first). */
  readonly answered: Promise<string | undefined>
  /** Starts reading again. */
  readonly resume: () => void
  /** Resolves when the connection has closed, with whether the answer was complete. */
  readonly closed: Promise<boolean>
}

/** A GET that reads the status line and then nothing at all, as a stalling client does. */
const stalledReader = (url: string, token: string): Reader => {
  let answer!: (status: string | undefined) => void
  let closed!: (complete: boolean) => void
  let response: IncomingMessage | undefined
  const request = get(url, { agent: false, headers: { "x-api-key": token } }, (res) => {
    response = res
    res.on("error", () => {})
    if (res.statusCode === 200) {
      res.pause()
      res.on("close", () => closed(res.complete))
      return answer("200")
    }
    // a refusal is read whole
    let body = ""
    res.setEncoding("utf8")
    res.on("data", (chunk: string) => (body += chunk))
    res.on("end", () => answer(`${res.statusCode} retry-after ${res.headers["retry-after"]} ${body}`))
  })
  request.on("error", () => {
    answer(undefined)
    closed(false)
  })
  return {
    request,
    answered: new Promise((resolve) => (answer = resolve)),
    resume: () => response?.resume(),
    closed: new Promise((resolve) => (closed = resolve))
  }
}

/** A GET read whole, with its time in real milliseconds (given up after 10 s). */
const timed = (url: string, token: string) =>
  Effect.promise(async () => {
    const started = performance.now()
    try {
      const response = await fetch(url, { headers: { "x-api-key": token }, signal: AbortSignal.timeout(10_000) })
      const text = await response.text()
      return { status: response.status, text, headers: response.headers, ms: performance.now() - started }
    } catch {
      return { status: 0, text: "", headers: new Headers(), ms: performance.now() - started }
    }
  })

layer(liveServer())("streamed answers and slow readers", (it) => {
  it.scoped("one organization's stalled downloads hold half the streams; another's answer at once; after the idle limit all is free", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const streams = yield* StreamSlots
      const a = yield* server.organization("slow-a")
      const b = yield* server.organization("slow-b")
      yield* seedContacts(server.databaseEnv, a.id)
      const share = Math.max(1, Math.floor(streams.capacity / 2))
      expect(streams.capacity).toBeGreaterThanOrEqual(2)

      // B's data: a few contacts and an event with a guest
      const personId = yield* createPerson(server, {}, b.token)
      const event = yield* createEvent(server, {}, b.token)
      expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token: b.token, body: { guests: [{ personId }] } }), 200)

      // A's clients open as many exports as the server streams at once, and read nothing: A's
      // share of them answer, and the others wait
      const readers = yield* Effect.acquireRelease(
        Effect.sync(() => Array.from({ length: streams.capacity }, () => stalledReader(`${server.url}/person/export`, a.token))),
        (readers) => Effect.sync(() => readers.forEach((reader) => reader.request.destroy()))
      )
      const answered: Array<string | undefined> = []
      readers.forEach((reader) => reader.answered.then((status) => answered.push(status)))
      yield* untilTrue(() => answered.length >= share)
      // until the stalled answers have filled their sockets (their clients take no more bytes for
      // a second), so that they wait for the client from now on: the idle limit counts from there,
      // on the test's clock. (PostgreSQL's reads are asynchronous: filling takes longer there.)
      const stalledNow = () => readers.slice(0, share).map((reader) => reader.request.socket?.bytesRead ?? 0).join()
      for (let last = "", still = 0, waited = 0; still < 1_000 && waited < 15_000; waited += 100) {
        const now = stalledNow()
        still = now === last ? still + 100 : 0
        last = now
        yield* realPause(100)
      }
      yield* realPause(500)
      expect(answered, "A's share of its exports answered").toEqual(Array.from({ length: share }, () => "200"))
      expect(streams.held(a.id), "A's stalled answers still hold their shares").toBe(share)
      const stalled = readers.filter((_, i) => i < share)

      // meanwhile B's guest list and exports answer in under 2 s
      for (const path of [`/event/${event.eventId}/guestlist`, "/person/export", `/event/${event.eventId}/guestlist/export`]) {
        const answer = yield* timed(`${server.url}${path}`, b.token)
        expect(answer.status, path).toBe(200)
        expect(answer.ms, `${path} while A's downloads stall`).toBeLessThan(2_000)
      }
      expect(answered.length, "A's other exports still wait").toBe(share)
      expect(streams.held(a.id)).toBe(share)

      // past STREAM_WAIT those are refused, nothing sent; A's stalled readers are not cut off yet
      yield* TestClock.adjust(STREAM_WAIT)
      yield* untilTrue(() => answered.length === readers.length)
      const busy = JSON.stringify({ message: "Other downloads are running; try again shortly", code: "unavailable" })
      expect(answered).toEqual(readers.map((_, i) => (i < share ? "200" : `503 retry-after 5 ${busy}`)))
      expect(streams.held(a.id)).toBe(share)

      // after STREAM_IDLE_TIMEOUT without a read (counted since they stalled, STREAM_WAIT ago), A's
      // connections are closed and every share is free
      yield* TestClock.adjust(Duration.millis(Duration.toMillis(STREAM_IDLE_TIMEOUT) - Duration.toMillis(STREAM_WAIT)))
      yield* untilTrue(() => streams.held() === 0)
      expect(streams.held()).toBe(0)
      // a reader that reads again finds what the sockets held, then the end of a cut-off answer
      stalled.forEach((reader) => reader.resume())
      // (in real time: the test's clock is TestClock)
      const complete = yield* Effect.promise(() =>
        Promise.race([
          Promise.all(stalled.map((reader) => reader.closed)),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error("a stalled reader's connection was never closed")), 15_000).unref())
        ])
      )
      expect(complete, "the stalled answers were cut off, not completed").toEqual(stalled.map(() => false))

      // and A's export, read at once, is whole
      const whole = yield* timed(`${server.url}/person/export`, a.token)
      expect(whole.status).toBe(200)
      expect(whole.text.trimEnd().split("\r\n").length).toBe(CONTACTS + 1)
      expect(streams.held()).toBe(0)
    }), 120_000)
})
