/**
 * The shared rate limit across several instances (CONTRACT §15, §18): three processes of the
 * service on one PostgreSQL database and one Redis, under a load of writes, and a probe that offers
 * one token's requests to all three at once for 3 seconds, well over the rate. What the three let
 * through is the configured rate, within 5%: they draw from one bucket in Redis.
 *
 * Split from test/slow/pg/multi-instance.test.ts (the same three instances' writes, deliveries, a
 * SIGKILL and the change feed, which judge what survived, not how fast) because a rate measured
 * over 3 s needs the machine to itself: this file runs one at a time (`PG_ALONE`), that one beside
 * others. Two instances and their burst, expiry and Redis going away: test/slow/rate-limit-redis.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { cli } from "../../support/Cli.js"
import { databaseEnvOf, onPostgres } from "../../support/Engine.js"
import { startServer } from "../../support/Process.js"
import { redisAvailable, redisServer } from "../../support/Redis.js"
import { API_TOKEN, send, testEnvironment } from "../../support/TestServer.js"

const RATE = 40

/** A request to one instance: its status. */
const status = (url: string, path: string, token: string, body?: unknown) =>
  send(url)(body === undefined ? "GET" : "POST", path, { token, ...(body === undefined ? {} : { body }) }).pipe(
    Effect.map((reply) => reply.status)
  )

describe.runIf(onPostgres && redisAvailable)("three instances on one PostgreSQL and one Redis: the shared rate", () => {
  it.scopedLive("under a load of writes, what the three let through for one token is the configured rate, within 5%", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const env = {
        ...testEnvironment(join(mkdtempSync(join(tmpdir(), "convene-rate-")), "convene.db")),
        REDIS_URL: redis.url,
        RATE_LIMIT_BURST: String(RATE),
        RATE_LIMIT_PER_SECOND: String(RATE),
        LOG_LEVEL: "Error"
      }
      const urls = (yield* Effect.all([startServer(env), startServer(env), startServer(env)], { concurrency: "unbounded" })).map((i) => i.url)
      // a second token for the probe, so that the writers' own bucket does not mix with it
      const made = yield* cli({ ...databaseEnvOf(env), LOG_LEVEL: "None" }, "token", "create", "--org", "acme", "--name", "probe")
      expect(made.code, made.stderr).toBe(0)
      const probeToken = made.stdout.match(/cvn_[A-Za-z0-9_-]{32,}/)![0]

      // the load: three writers creating persons, one instance each, until the probe ends
      let loading = true
      let written = 0
      const writer = (url: string) =>
        Effect.gen(function*() {
          for (let n = 0; loading; n++) {
            const created = yield* status(url, "/person", API_TOKEN, { firstName: `Rate${n}`, lastName: "Load", email: `rate-${url.slice(-5)}-${n}@example.com` })
            if (created === 201) written++
            yield* Effect.sleep(created === 429 ? "100 millis" : "20 millis")
          }
        })
      const writers = yield* Effect.fork(Effect.all(urls.map(writer), { concurrency: "unbounded", discard: true }))

      // the probe, over the three instances, for 3 seconds: twelve callers, so that it offers well
      // over the rate even on a busy machine (a refusal costs little)
      let allowed = 0
      let refused = 0
      const probeStarted = performance.now()
      const probeEnds = probeStarted + 3_000
      yield* Effect.all(
        Array.from({ length: 12 }, (_, worker) =>
          Effect.gen(function*() {
            while (performance.now() < probeEnds) {
              const answered = yield* status(urls[worker % 3]!, "/person?limit=1", probeToken)
              if (answered === 200) allowed++
              else if (answered === 429) refused++
              else throw new Error(`probe: unexpected ${answered}`)
            }
          })),
        { concurrency: "unbounded", discard: true }
      )
      const elapsed = (performance.now() - probeStarted) / 1000
      loading = false
      yield* Fiber.join(writers)
      // the bucket starts full (the burst): the rate is what came after it
      const rate = (allowed - RATE) / elapsed
      console.info(`three instances' shared rate: ${allowed} allowed, ${refused} refused in ${elapsed.toFixed(2)} s: ${rate.toFixed(1)}/s of ${RATE}/s; ${written} persons written meanwhile`)

      expect(written).toBeGreaterThan(10)
      expect(refused).toBeGreaterThan(allowed)
      expect(Math.abs(rate - RATE) / RATE, `${allowed} allowed in ${elapsed.toFixed(2)} s: ${rate.toFixed(1)}/s`).toBeLessThanOrEqual(0.05)
    }), 60_000)
})
