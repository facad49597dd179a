/**
 * The balancer of compose.yaml (CONTRACT §19): its Caddyfile, run by Debian's caddy in front of two
 * instances of the service on one PostgreSQL database, under a steady load of reads and of writes
 * with Idempotency-Key, while one instance is SIGKILLed: no 5xx reaches a reader, the dead instance
 * is routed around, and writes retried by their client with their key are each done once.
 * compose.yaml and the Caddyfile as files: test/slow/compose.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { join } from "node:path"
import { caddyAvailable, caddyServer } from "../../support/Caddy.js"
import { databaseEnvOf, onPostgres, queryDatabase } from "../../support/Engine.js"
import { startServer } from "../../support/Process.js"
import { API_TOKEN, temporaryDirectory, testEnvironment } from "../../support/TestServer.js"

interface Read {
  readonly at: number
  readonly status: number
}

interface Write {
  readonly key: string
  readonly startedAt: number
  readonly statuses: Array<number>
  eventId?: string
}

/**
 * A write with its Idempotency-Key (an event, which nothing keeps from existing twice), retried by
 * its client until it is done: on a 5xx, a 409 (its key still held by a request in flight, or by
 * a killed instance), or no answer. `answered` is called after the first attempt: the client
 * sends its next write then, and retries this one meanwhile.
 */
const write = async (url: string, n: number, giveUpAt: number, answered: () => void): Promise<Write> => {
  const startedAt = Date.now()
  const key = `balancer-${n}`
  const body = JSON.stringify({ name: `Balanced ${n}`, primaryDate: "2031-06-01T18:00:00+02:00" })
  const done: Write = { key, startedAt, statuses: [] }
  while (Date.now() < giveUpAt) {
    const reply = await fetch(`${url}/event`, {
      method: "POST",
      headers: { "x-api-key": API_TOKEN, "content-type": "application/json", "idempotency-key": key },
      body
    }).then(
      async (response) => ({ status: response.status, body: (await response.json().catch(() => undefined)) as { eventId?: string } | undefined }),
      () => ({ status: 0, body: undefined })
    )
    done.statuses.push(reply.status)
    if (done.statuses.length === 1) answered()
    if (reply.status === 200) {
      if (reply.body?.eventId !== undefined) done.eventId = reply.body.eventId
      return done
    }
    if (reply.status !== 0 && reply.status !== 409 && reply.status < 500) return done
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return done
}

describe.runIf(onPostgres && caddyAvailable)("Caddy in front of two instances (PostgreSQL pass only: both instances must share one database)", () => {
  it.scopedLive("SIGKILL one under load: no 5xx for reads, the dead one routed around, keyed writes retried by their client done once", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const env = { ...testEnvironment(join(dir, "convene.db")), LOG_LEVEL: "Error", TRUSTED_PROXIES: "127.0.0.1" }
      const a = yield* startServer(env)
      const b = yield* startServer(env)
      const upstreams = [a.url, b.url].map((url) => new URL(url).host)
      const caddy = yield* caddyServer(upstreams)

      const started = Date.now()
      const killAt = started + 3_000
      const loadEnds = killAt + 5_000
      const reads: Array<Read> = []
      const failedReads: Array<string> = []
      const reader = Effect.promise(async () => {
        while (Date.now() < loadEnds) {
          const at = Date.now()
          try {
            const response = await fetch(`${caddy.url}/person?limit=5`, { headers: { "x-api-key": API_TOKEN } })
            await response.arrayBuffer()
            reads.push({ at, status: response.status })
          } catch (error) {
            failedReads.push(String(error))
          }
        }
      })
      let next = 0
      const sent: Array<Promise<Write>> = []
      const writer = Effect.promise(async () => {
        while (Date.now() < loadEnds) {
          const n = next++
          // a client keeps retrying for up to 35 s: on PostgreSQL a key held by a killed instance is
          // to be free again within 30 s (CONTRACT §10)
          await new Promise<void>((answered) => sent.push(write(caddy.url, n, Date.now() + 35_000, answered)))
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      })
      const load = yield* Effect.fork(Effect.all([reader, reader, reader, reader, writer, writer], { concurrency: "unbounded", discard: true }))

      yield* Effect.sleep(killAt - Date.now())
      const killedAt = Date.now()
      yield* b.kill("SIGKILL")
      yield* Fiber.join(load)
      const writes = yield* Effect.promise(() => Promise.all(sent))
      const ended = Date.now()

      const serverErrors = reads.filter((r) => r.status >= 500)
      const done = writes.filter((w) => w.eventId !== undefined)
      const held = writes.filter((w) => w.eventId === undefined && w.statuses.at(-1) === 409)
      const afterKill = writes.filter((w) => w.startedAt >= killedAt)
      console.info(
        `balancer: ${reads.length} reads and ${writes.length} keyed writes (${
          writes.reduce((sum, w) => sum + w.statuses.length, 0)
        } attempts) in ${((ended - started) / 1000).toFixed(1)} s through Caddy, one of two instances SIGKILLed at ${
          ((killedAt - started) / 1000).toFixed(1)
        } s; reads: ${serverErrors.length} 5xx, ${failedReads.length} without answer; writes answered 5xx at a first attempt: ${
          writes.filter((w) => w.statuses[0]! >= 500).length
        }, ${writes.filter((w) => w.statuses.includes(409)).length} answered 409 (their key held by the killed instance), ${
          held.length
        } of them still after 35 s`
      )

      // no 5xx, nor a request without answer, reached a reader
      expect(reads.length).toBeGreaterThan(100)
      expect(serverErrors).toEqual([])
      expect(failedReads).toEqual([])
      expect(reads.filter((r) => r.at > killedAt).length).toBeGreaterThan(50)

      // the dead instance is routed around: Caddy's health check found it gone, and no write begun
      // 2 s after the kill was sent to it (Caddy 2.6 answers 502 a write it could not deliver
      // there, having failed to resend its body to the living one)
      expect(caddy.output()).toMatch(new RegExp(`"msg":"HTTP request failed","host":"${upstreams[1]!.replace(/\./g, "\\.")}"`))
      const late = afterKill.filter((w) => w.startedAt >= killedAt + 2_000)
      expect(late.length).toBeGreaterThan(10)
      expect(late.filter((w) => w.statuses[0] === 502).map((w) => `${w.key} at +${w.startedAt - killedAt} ms: ${w.statuses.join(", ")}`))
        .toEqual([])

      // every write is done once, whatever the retries: one event per key, never two. A write
      // whose key the killed instance had claimed may still be refused as in progress (409) when
      // its client gives up, its event made or not: Convene frees such a key after 5 minutes on
      // PostgreSQL (not the 30 s of CONTRACT §10), and keeps the answer apart from the request's
      // writes, a matter of the idempotency store, not of the balancer. At most the writes in
      // flight at the kill.
      expect(done.length + held.length).toBe(writes.length)
      expect(held.length).toBeLessThanOrEqual(4)
      expect(new Set(done.map((w) => w.eventId)).size).toBe(done.length)
      const stored = yield* Effect.promise(() =>
        queryDatabase<{ name: string; n: number }>(
          databaseEnvOf(env),
          "SELECT name, count(*) AS n FROM events WHERE name LIKE 'Balanced %' GROUP BY name"
        )
      )
      const names = new Set(stored.map((row) => row.name))
      const nameOf = (w: Write) => `Balanced ${w.key.slice("balancer-".length)}`
      expect(done.filter((w) => !names.has(nameOf(w)))).toEqual([])
      expect(stored.length).toBeLessThanOrEqual(writes.length)
      expect(stored.filter((row) => Number(row.n) !== 1)).toEqual([])
      expect(a.child.exitCode).toBeNull()
    }), 120_000)
})
