import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { AppConfig } from "../../src/Config/AppConfig.js"
import { RateLimiter } from "../../src/RateLimit/RateLimiter.js"
import { configFrom } from "../support/TestServer.js"

const limiterWith = (env: Record<string, string> = {}) =>
  RateLimiter.Default.pipe(Layer.provide(Layer.effect(AppConfig, configFrom({ DATABASE_PATH: ":memory:", ...env }))))

const takeN = (limiter: RateLimiter, caller: string, n: number, bulk = false) =>
  Effect.forEach(Array.from({ length: n }), () => limiter.take(caller, bulk ? [limiter.general, limiter.bulk] : [limiter.general]))

describe("RateLimiter (TestClock)", () => {
  layer(limiterWith())((it) => {
    it.effect("lets a burst of exactly 20 through and refuses the 21st", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        const decisions = yield* takeN(limiter, "burst", 21)
        expect(decisions.slice(0, 20).every((d) => d.allowed)).toBe(true)
        expect(decisions.map((d) => d.tightest.remaining).slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i))
        expect(decisions[20]).toMatchObject({ allowed: false, retryAfter: 1 })
        expect(decisions[20]!.tightest.remaining).toBe(0)
      }))

    it.effect("refills at 1.5 tokens per second", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        yield* takeN(limiter, "refill", 20)
        expect((yield* takeN(limiter, "refill", 1))[0]!.allowed).toBe(false)
        yield* TestClock.adjust("666 millis")
        expect((yield* takeN(limiter, "refill", 1))[0]!.allowed).toBe(false)
        yield* TestClock.adjust("1 millis")
        expect((yield* takeN(limiter, "refill", 1))[0]!.allowed).toBe(true)
        yield* TestClock.adjust("2 seconds")
        const three = yield* takeN(limiter, "refill", 4)
        expect(three.map((d) => d.allowed)).toEqual([true, true, true, false])
        yield* TestClock.adjust("1 minute")
        const full = yield* takeN(limiter, "refill", 21)
        expect(full.filter((d) => d.allowed)).toHaveLength(20)
      }))

    it.effect("keeps the buckets of two callers apart", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        yield* takeN(limiter, "a", 20)
        expect((yield* takeN(limiter, "a", 1))[0]!.allowed).toBe(false)
        expect((yield* takeN(limiter, "b", 20)).every((d) => d.allowed)).toBe(true)
      }))

    it.effect("does not consume a token for a refused request", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        yield* takeN(limiter, "refused", 20)
        yield* takeN(limiter, "refused", 10)
        yield* TestClock.adjust("667 millis")
        expect((yield* takeN(limiter, "refused", 2)).map((d) => d.allowed)).toEqual([true, false])
      }))

    it.effect("draws PUT /persons from both buckets; reaching the bulk limit leaves other requests alone", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        const bulk = yield* takeN(limiter, "bulk", 6, true)
        expect(bulk.map((d) => d.allowed)).toEqual([true, true, true, true, true, false])
        expect(bulk.map((d) => [d.tightest.policy.capacity, d.tightest.remaining])).toEqual([
          [5, 4], [5, 3], [5, 2], [5, 1], [5, 0], [5, 0]
        ])
        // 20 per minute: one bulk token every 3 seconds
        expect(bulk[5]!.retryAfter).toBe(3)
        // the general bucket lost 5 tokens, not 6, and still serves other requests
        const general = yield* takeN(limiter, "bulk", 16)
        expect(general.map((d) => d.allowed)).toEqual([...Array.from({ length: 15 }, () => true), false])
        // now the general bucket is the tighter one, and refuses the bulk request too
        yield* TestClock.adjust("3 seconds")
        const both = yield* takeN(limiter, "bulk", 1, true)
        expect(both[0]!.allowed).toBe(true)
        expect(both[0]!.tightest.policy.name).toBe("bulk")
      }))

    it.effect("describes the bucket with fewer requests remaining on PUT /persons", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        yield* takeN(limiter, "tight", 18)
        const decision = (yield* takeN(limiter, "tight", 1, true))[0]!
        expect(decision.allowed).toBe(true)
        expect(decision.tightest).toMatchObject({ remaining: 1 })
        expect(decision.tightest.policy.name).toBe("general")
        const refused = (yield* takeN(limiter, "tight", 2, true))[1]!
        expect(refused).toMatchObject({ allowed: false })
        expect(refused.tightest.policy.name).toBe("general")
      }))

    it.effect("keeps memory bounded: 100,000 idle callers are evicted once their buckets are full again", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        yield* TestClock.adjust("1 hour")
        expect(yield* limiter.size).toBe(0)
        for (let i = 0; i < 100_000; i++) yield* limiter.take(`ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, [limiter.general])
        yield* takeN(limiter, "busy", 20)
        expect(yield* limiter.size).toBe(100_001)
        // half a second later no bucket is full again: nothing may be forgotten yet
        yield* TestClock.adjust("500 millis")
        expect(yield* limiter.evictFull).toBe(0)
        expect(yield* limiter.size).toBe(100_001)
        // the scoped sweeper runs every 15 s and drops every bucket that has refilled
        // ("busy" needs 13.4 s); 30 s always hold a sweep after that
        yield* TestClock.adjust("30 seconds")
        expect(yield* limiter.size).toBe(0)
        // and a forgotten caller starts again from a full bucket
        expect((yield* takeN(limiter, "busy", 1))[0]!.tightest.remaining).toBe(19)
      }), 60_000)
  })

  layer(limiterWith({ RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_SECOND: "0.1" }))((it) => {
    it.effect("says in Retry-After how many whole seconds until a token returns, never 0 while limited", () =>
      Effect.gen(function*() {
        const limiter = yield* RateLimiter
        yield* takeN(limiter, "slow", 2)
        expect((yield* takeN(limiter, "slow", 1))[0]!.retryAfter).toBe(10)
        yield* TestClock.adjust("9500 millis")
        expect((yield* takeN(limiter, "slow", 1))[0]!.retryAfter).toBe(1)
        yield* TestClock.adjust("500 millis")
        expect((yield* takeN(limiter, "slow", 1))[0]!.allowed).toBe(true)
      }))
  })
})
