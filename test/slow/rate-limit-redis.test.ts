/**
 * Rate limits shared through Redis (`REDIS_URL`): two instances of the service, each its own
 * process, over one database and one real Redis. A caller gets the configured burst and rate in
 * all, whichever instance answers; buckets expire in Redis; when Redis goes away, requests are
 * still answered (each instance counting on its own, and saying so in its log), and once Redis is
 * back the limits are shared again.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Redis } from "ioredis"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { service } from "../support/Cli.js"
import { startServer } from "../support/Process.js"
import { redisAvailable, redisServer } from "../support/Redis.js"
import { API_TOKEN, testEnvironment } from "../support/TestServer.js"

const get = (url: string, path: string, token: string | null = API_TOKEN) =>
  Effect.promise(async () => {
    const response = await fetch(url + path, { headers: token === null ? {} : { "x-api-key": token } })
    await response.arrayBuffer()
    return response
  })

/** Two instances over one fresh database and `redisUrl`, with the given limits. */
const pair = (redisUrl: string, limits: Record<string, string>) =>
  Effect.gen(function*() {
    const env = {
      ...testEnvironment(join(mkdtempSync(join(tmpdir(), "convene-redis-pair-")), "convene.db")),
      REDIS_URL: redisUrl,
      BULK_RATE_LIMIT_BURST: "1000",
      LOG_LEVEL: "Info",
      ...limits
    }
    // one after the other: the first makes the database, the second finds it made
    const a = yield* startServer(env)
    const b = yield* startServer(env)
    return [a, b] as const
  })

describe.skipIf(!redisAvailable)("rate limits shared through Redis", () => {
  it.scopedLive("two instances give a caller the burst once in all; buckets expire; without Redis each counts alone, then shares again", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url, { RATE_LIMIT_BURST: "10", RATE_LIMIT_PER_SECOND: "0.01" })

      // 30 requests alternating between the instances: 10 in all get through
      const statuses: Array<number> = []
      const remaining: Array<string | null> = []
      for (let i = 0; i < 30; i++) {
        const reply = yield* get(i % 2 === 0 ? a.url : b.url, "/person")
        statuses.push(reply.status)
        remaining.push(reply.headers.get("x-ratelimit-remaining"))
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(10)
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200))
      expect(statuses.slice(10).every((s) => s === 429)).toBe(true)
      // the headers count down across both instances
      expect(remaining.slice(0, 10)).toEqual(["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"])

      // the buckets are keys that expire once they would be full again (10 tokens at 0.01/s: 1,000 s)
      const client = new Redis(redis.url, { lazyConnect: true })
      yield* Effect.promise(() => client.connect())
      const keys = yield* Effect.promise(() => client.keys("convene:rl:*"))
      expect(keys.length).toBeGreaterThan(0)
      for (const key of keys) {
        const ttl = yield* Effect.promise(() => client.pttl(key))
        expect(ttl).toBeGreaterThan(0)
        expect(ttl).toBeLessThanOrEqual(1_001_000)
      }
      yield* Effect.promise(() => client.quit())

      // Redis goes away: requests are still answered, each instance counting on its own
      yield* redis.stop
      const alone: Array<number> = []
      for (let i = 0; i < 30; i++) alone.push((yield* get(i % 2 === 0 ? a.url : b.url, "/person", null)).status)
      expect(alone.filter((s) => s >= 500)).toEqual([])
      // unauthenticated callers are counted by address: 10 per instance now
      expect(alone.filter((s) => s === 401)).toHaveLength(20)
      expect(alone.filter((s) => s === 429)).toHaveLength(10)
      for (const server of [a, b]) expect(server.output()).toMatch(/rate limits: Redis at 127\.0\.0\.1:\d+ cannot be reached/)

      // Redis is back (empty): once each instance has reconnected, the limit is shared again
      yield* redis.start
      yield* Effect.iterate(0, {
        while: () => ![a, b].every((server) => /rate limits: Redis at 127\.0\.0\.1:\d+ is back/.test(server.output())),
        body: (n) =>
          n > 100
            ? Effect.dieMessage("the instances did not take Redis back within 10 seconds")
            : Effect.as(Effect.zipRight(Effect.sleep("100 millis"), Effect.all([get(a.url, "/healthz"), get(a.url, "/person", "cvn_unknown_0123456789abcdefghijklmnopqrstu"), get(b.url, "/person", "cvn_unknown_0123456789abcdefghijklmnopqrstu")])), n + 1)
      })
      const client2 = new Redis(redis.url, { lazyConnect: true })
      yield* Effect.promise(() => client2.connect())
      yield* Effect.promise(() => client2.flushall())
      yield* Effect.promise(() => client2.quit())
      const shared: Array<number> = []
      for (let i = 0; i < 30; i++) shared.push((yield* get(i % 2 === 0 ? a.url : b.url, "/person", null)).status)
      expect(shared.filter((s) => s === 401)).toHaveLength(10)
      expect(shared.filter((s) => s === 429)).toHaveLength(20)
      // the URL (which may hold a password) is never logged
      for (const server of [a, b]) expect(server.output()).not.toContain(redis.url)
    }), 120_000)

  it.scopedLive("under load from both instances, a caller's rate stays within 5% of the configured rate", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const [a, b] = yield* pair(redis.url, { RATE_LIMIT_BURST: "40", RATE_LIMIT_PER_SECOND: "40" })
      // a burst of a second's worth: a pause of the machine shorter than that loses no tokens to a full bucket
      const seconds = 4
      let allowed = 0
      let refused = 0
      const started = performance.now()
      const until = started + seconds * 1000
      yield* Effect.all(
        Array.from({ length: 8 }, (_, worker) =>
          Effect.gen(function*() {
            while (performance.now() < until) {
              const status = (yield* get(worker % 2 === 0 ? a.url : b.url, "/person")).status
              if (status === 200) allowed++
              else if (status === 429) refused++
              else throw new Error(`unexpected status ${status}`)
            }
          })),
        { concurrency: "unbounded" }
      )
      const elapsed = (performance.now() - started) / 1000
      const rate = (allowed - 40) / elapsed
      // Redis answered every draw (no instance counted on its own)
      for (const server of [a, b]) expect(server.output().split("\n").filter((l) => l.includes("rate limits"))).toEqual([])
      expect(refused).toBeGreaterThan(allowed)
      expect(Math.abs(rate - 40) / 40, `${allowed} allowed in ${elapsed.toFixed(2)} s: ${rate.toFixed(1)}/s`).toBeLessThanOrEqual(0.05)
    }), 60_000)

  it.live("a REDIS_URL that is not a redis:// URL stops the service with one clear line", () =>
    Effect.gen(function*() {
      const env = { ...testEnvironment(join(mkdtempSync(join(tmpdir(), "convene-redis-bad-")), "convene.db")), PORT: "0", REDIS_URL: "http://secret@cache:6379" }
      const run = yield* service(env)
      expect(run.code).toBe(1)
      expect(run.stderr.trim()).toBe("convene: invalid configuration: REDIS_URL must be a redis:// or rediss:// URL such as redis://localhost:6379")
    }), 30_000)
})
