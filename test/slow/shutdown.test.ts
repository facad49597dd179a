import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { onPostgres } from "../support/Engine.js"
import { startServer } from "../support/Process.js"
import { API_TOKEN, send, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

interface Outcome {
  readonly status?: number
  readonly error?: string
  readonly body?: any
}

/** One request on its own connection: it is either refused, or accepted and answered. */
const post = (url: string, path: string, body: unknown) => posted(url, path, body).outcome

/** The status of a `GET` on a connection of its own. */
const getAlone = (url: string, path: string) =>
  new Promise<number | undefined>((resolve) => {
    httpRequest(url + path, { agent: false }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode))
    }).on("error", () => resolve(undefined)).end()
  })

/** `post`, and when the request has been sent whole. */
const posted = (url: string, path: string, body: unknown) => {
  let sent!: () => void
  const written = new Promise<void>((resolve) => (sent = resolve))
  const outcome = new Promise<Outcome>((resolve) => {
    const payload = JSON.stringify(body)
    const req = httpRequest(url + path, {
      method: "POST",
      agent: false,
      headers: { "x-api-key": API_TOKEN, "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
    }, (res) => {
      let text = ""
      res.on("data", (c) => (text += c))
      res.on("end", () => resolve({ status: res.statusCode!, body: text === "" ? undefined : JSON.parse(text) }))
      res.on("error", (e) => resolve({ status: res.statusCode!, error: `response: ${e.message}` }))
    })
    req.on("error", (e: NodeJS.ErrnoException) => {
      sent()
      resolve({ error: e.code ?? e.message })
    })
    req.end(payload, sent)
  })
  return { written, outcome }
}

describe("graceful shutdown", () => {
  it.scopedLive("finishes accepted requests on SIGTERM, loses nothing and leaves a checkpointed database", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const databasePath = join(dir, "convene.db")
      const env = { ...testEnvironment(databasePath), SHUTDOWN_GRACE_PERIOD: "10 seconds", LOG_LEVEL: "Info" }
      const server = yield* startServer(env)
      const api = send(server.url)
      const event = (yield* api("POST", "/event", { body: { name: "Shutdown", primaryDate: "2031-01-01T10:00:00Z" } })).body

      let stop = false
      const outcomes: Array<Outcome> = []
      const writer = async (worker: number) => {
        for (let i = 0; !stop; i++) {
          outcomes.push(await post(server.url, "/person", { firstName: "Load", lastName: `${worker}-${i}`, email: `load-${worker}-${i}@example.com` }))
        }
      }
      const batch = (n: number) =>
        posted(server.url, `/event/${event.eventId}/guestlist`, {
          guests: Array.from({ length: 500 }, (_, i) => ({ firstName: "Batch", lastName: `${n}-${i}`, email: `batch-${n}-${i}@example.com` }))
        })
      const writers = Array.from({ length: 6 }, (_, w) => writer(w))
      // the writers under way (however busy the machine is) before the batches and the signal
      const answeredSoFar = () => outcomes.filter((o) => o.status !== undefined).length
      yield* Effect.sleep("20 millis").pipe(Effect.repeat({ until: () => answeredSoFar() > 20 }), Effect.timeout("20 seconds"), Effect.orDie)
      // big batches (each takes the server a while) in flight when the signal arrives
      const batches = [batch(1)]
      yield* Effect.sleep("40 millis")
      batches.push(batch(2))
      yield* Effect.sleep("40 millis")
      batches.push(batch(3))
      // the first batch has reached the server: it was sent whole, and a request sent after it on
      // a connection of its own has been answered (connections are taken in the order they come)
      yield* Effect.promise(() => batches[0]!.written)
      expect(yield* Effect.promise(() => getAlone(server.url, "/healthz"))).toBe(200)
      const code = yield* server.kill("SIGTERM")
      stop = true
      yield* Effect.promise(() => Promise.all(writers))
      const batchOutcomes = yield* Effect.promise(() => Promise.all(batches.map((b) => b.outcome)))

      expect(code).toBe(0)
      const answered = outcomes.filter((o) => o.status !== undefined)
      expect(answered.length).toBeGreaterThan(20)
      expect(answered.filter((o) => o.status !== 201)).toEqual([])
      // what was not answered was never accepted: the connection was refused or reset before a request was read
      for (const o of outcomes.filter((o) => o.status === undefined)) expect(["ECONNREFUSED", "ECONNRESET"]).toContain(o.error)
      expect(batchOutcomes.filter((o) => o.status !== undefined && o.status !== 200)).toEqual([])
      expect(server.output()).toContain("Shutting down")
      // SQLite: the write-ahead log was folded back into the database on close
      if (!onPostgres) expect(!existsSync(`${databasePath}-wal`) || statSync(`${databasePath}-wal`).size === 0).toBe(true)

      // nothing accepted is lost
      const again = yield* startServer(env)
      const check = send(again.url)
      for (const o of answered) expect((yield* check("GET", `/person/${o.body.personId}`)).status).toBe(200)
      const guests = (yield* check("GET", `/event/${event.eventId}/guestlist`)).body.guests
      const acceptedBatches = batchOutcomes.filter((o) => o.status === 200).length
      expect(acceptedBatches).toBeGreaterThanOrEqual(1)
      expect(guests).toHaveLength(acceptedBatches * 500)
    }), 90_000)
})
