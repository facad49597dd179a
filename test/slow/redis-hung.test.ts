/**
 * A Redis that hangs (CONTRACT §19): the service as a process with `REDIS_URL` on a real
 * redis-server, under a steady load, while Redis is frozen with SIGSTOP (its connections stay
 * open, nothing is answered) and then thawed with SIGCONT. A hung Redis costs at most one
 * `REDIS_TIMEOUT` per instance in 10 s: the requests slower than normal all end together, at the
 * first timeout, none takes longer than `REDIS_TIMEOUT` (and a margin for a busy machine), and
 * once Redis answers again the instance shares its buckets again within some 10 s.
 * The breaker's states one by one, on TestClock: test/unit/redis-breaker.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Redis } from "ioredis"
import { join } from "node:path"
import { startServer } from "../support/Process.js"
import { redisAvailable, redisServer } from "../support/Redis.js"
import { API_TOKEN, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

/** Longer than the default 200 ms, so that a busy machine's pauses are not taken for a wait on Redis. */
const TIMEOUT_MS = 600
/** What a busy machine may add to a request that waited `TIMEOUT_MS` for Redis. */
const MARGIN_MS = 400
/** A request this slow waited on Redis (one not waiting on it takes a few milliseconds). */
const SLOW_MS = TIMEOUT_MS * 0.9

interface Timed {
  readonly start: number
  readonly end: number
  readonly status: number
}

/** `workers` callers sending `GET /person` one after the other until `running()` turns false. */
const load = (url: string, workers: number, running: () => boolean) =>
  Effect.promise(async () => {
    const timed: Array<Timed> = []
    await Promise.all(Array.from({ length: workers }, async () => {
      while (running()) {
        const start = performance.now()
        const response = await fetch(`${url}/person`, { headers: { "x-api-key": API_TOKEN } })
        await response.arrayBuffer()
        timed.push({ start, end: performance.now(), status: response.status })
      }
    }))
    return timed
  })

/** Slow requests grouped by when they ended: the requests one timeout let go end together. */
const episodesOf = (slow: ReadonlyArray<Timed>) => {
  const episodes: Array<Array<Timed>> = []
  for (const request of [...slow].sort((a, b) => a.end - b.end)) {
    const last = episodes.at(-1)
    if (last !== undefined && request.end - last.at(-1)!.end < 1_000) last.push(request)
    else episodes.push([request])
  }
  return episodes
}

describe.skipIf(!redisAvailable)("a Redis that hangs", () => {
  it.scopedLive("costs one REDIS_TIMEOUT per 10 s: the instance counts alone meanwhile, and shares again soon after Redis answers", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const dir = yield* temporaryDirectory
      const server = yield* startServer({
        ...testEnvironment(join(dir, "convene.db")),
        REDIS_URL: redis.url,
        REDIS_TIMEOUT: `${TIMEOUT_MS}ms`,
        LOG_LEVEL: "Info"
      })
      const logLines = (pattern: RegExp) => server.output().split("\n").filter((line) => pattern.test(line))

      let running = true
      const started = performance.now()
      const traffic = yield* Effect.fork(load(server.url, 4, () => running))
      yield* Effect.sleep("2 seconds")

      // Redis hangs for 13 s: the first 10 s pause, a probe unanswered, 3 s more
      const hungAt = performance.now()
      yield* redis.pause
      yield* Effect.sleep("13 seconds")
      const resumedAt = performance.now()
      yield* redis.resume

      // back within 10 s and a probe's timeout (the probes run every 10 s), plus the machine's slack
      let backAt = 0
      while (backAt === 0 && performance.now() - resumedAt < 15_000) {
        yield* Effect.sleep("50 millis")
        if (logLines(/rate limits: Redis at .* is back/).length > 0) backAt = performance.now()
      }
      yield* Effect.sleep("1 second")
      running = false
      const timed = yield* Fiber.join(traffic)
      const ended = performance.now()

      const latencies = timed.map((t) => t.end - t.start).sort((a, b) => a - b)
      const slowest = latencies.at(-1)!
      const slow = timed.filter((t) => t.end - t.start >= SLOW_MS)
      const episodes = episodesOf(slow)
      console.info(
        `redis-hung: ${timed.length} requests in ${((ended - started) / 1000).toFixed(1)} s, Redis hung ${((resumedAt - hungAt) / 1000).toFixed(1)} s; ` +
          `${slow.length} slower than ${SLOW_MS} ms in ${episodes.length} episode(s) ` +
          `(at ${episodes.map((e) => ((e[0]!.end - hungAt) / 1000).toFixed(2)).join(", ")} s after SIGSTOP); median ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} ms, slowest ${slowest.toFixed(0)} ms; ` +
          `back ${((backAt - resumedAt) / 1000).toFixed(1)} s after SIGCONT`
      )

      // every request answered, none waiting on Redis longer than REDIS_TIMEOUT
      expect(timed.filter((t) => t.status !== 200)).toEqual([])
      expect(slowest).toBeLessThanOrEqual(TIMEOUT_MS + MARGIN_MS)
      // the requests that waited on Redis ended together, at the first timeout, soon after Redis
      // froze; another such episode, if any, came 10 s later at the earliest (the probes are
      // background PINGs: they cost no request)
      expect(episodes.length).toBeGreaterThanOrEqual(1)
      expect(episodes[0]![0]!.end - hungAt).toBeLessThan(TIMEOUT_MS + 1_500)
      for (let i = 1; i < episodes.length; i++) {
        expect(episodes[i]![0]!.end - episodes[i - 1]!.at(-1)!.end, "two waits on Redis within 10 s").toBeGreaterThanOrEqual(9_500)
      }
      // said once each way
      expect(logLines(/rate limits: Redis at 127\.0\.0\.1:\d+ cannot be reached \(no answer within 600ms\)/)).toHaveLength(1)
      expect(logLines(/rate limits: Redis at .* is back/)).toHaveLength(1)
      expect(backAt, "the instance did not take Redis back within 15 s of SIGCONT").toBeGreaterThan(0)
      expect(backAt - resumedAt).toBeLessThanOrEqual(12_000)

      // shared again: a request now draws from a bucket in Redis
      const client = new Redis(redis.url, { lazyConnect: true })
      yield* Effect.promise(() => client.connect())
      yield* Effect.promise(() => client.flushall())
      const reply = yield* Effect.promise(() => fetch(`${server.url}/person`, { headers: { "x-api-key": API_TOKEN } }))
      expect(reply.status).toBe(200)
      expect(yield* Effect.promise(() => client.keys("convene:rl:*"))).not.toEqual([])
      yield* Effect.promise(() => client.quit())
    }), 90_000)
})
