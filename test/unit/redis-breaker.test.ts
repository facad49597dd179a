/**
 * The circuit breaker in front of Redis (src/RateLimit/RedisBreaker.ts) as a state machine, on
 * `TestClock`, over stub calls: a Redis that answers, one that hangs (a promise that never
 * settles), one that is down (a promise rejected at once), and a probe whose answer the test
 * chooses.
 * The same with a real, stopped redis-server: test/slow/redis-hung.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, Ref, TestClock } from "effect"
import { makeBreaker, RedisTimeout } from "../../src/RateLimit/RedisBreaker.js"
import { configFrom } from "../support/TestServer.js"

type Redis = "answers" | "hangs" | "down"

const harness = Effect.gen(function*() {
  /** What Redis does now, and how many draws asked it. */
  const stub = { redis: "answers" as Redis, calls: 0 }
  const probes = yield* Ref.make(0)
  const opened = yield* Ref.make<Array<unknown>>([])
  const closed = yield* Ref.make(0)
  /** What Redis does with a command now. */
  const command = () =>
    stub.redis === "answers"
      ? Promise.resolve("OK")
      : stub.redis === "hangs"
      ? new Promise<string>(() => {})
      : Promise.reject(new Error("connect ECONNREFUSED"))
  const breaker = yield* makeBreaker({
    timeout: "200 millis",
    openFor: "10 seconds",
    probe: Effect.zipRight(Ref.update(probes, (n) => n + 1), Effect.tryPromise(command)),
    onOpen: (reason) => Ref.update(opened, (reasons) => [...reasons, reason]),
    onClose: Ref.update(closed, (n) => n + 1)
  })
  /** A request's draw: counted, then whatever Redis does. */
  const draw = breaker.guard(() => {
    stub.calls++
    return command()
  })
  return { breaker, draw, stub, probes, opened, closed }
})

/** Lets the other fibers run (the probe woken by a new connection) until `done` holds, with no time passing. */
const until = (done: Effect.Effect<boolean>) =>
  Effect.iterate(0, {
    while: (turns) => turns < 1_000,
    body: (turns) => Effect.flatMap(done, (ok) => ok ? Effect.succeed(1_000) : Effect.as(Effect.yieldNow(), turns + 1))
  })

describe("the Redis circuit breaker (TestClock)", () => {
  it.effect("REDIS_TIMEOUT is 200 ms unless set", () =>
    Effect.gen(function*() {
      expect(Duration.toMillis((yield* configFrom({ DATABASE_PATH: ":memory:" })).rateLimit.redisTimeout)).toBe(200)
      expect(Duration.toMillis((yield* configFrom({ DATABASE_PATH: ":memory:", REDIS_TIMEOUT: "1.5s" })).rateLimit.redisTimeout)).toBe(1500)
    }))

  it.scoped("answers Redis's answer while it comes within the timeout", () =>
    Effect.gen(function*() {
      const { breaker, opened } = yield* harness
      let answer: (n: number) => void = () => {}
      const slow = yield* Effect.fork(breaker.guard(() => new Promise<number>((resolve) => (answer = resolve))))
      yield* TestClock.adjust("199 millis")
      answer(7)
      expect(yield* Fiber.join(slow)).toEqual(Option.some(7))
      yield* TestClock.adjust("1 second")
      expect(yield* Ref.get(opened)).toEqual([])
      expect(yield* breaker.closed).toBe(true)
    }))

  it.scoped("a hung Redis costs one timeout: every request waiting is let go when the first times out, then none asks Redis", () =>
    Effect.gen(function*() {
      const { breaker, draw, opened, probes, stub } = yield* harness
      stub.redis = "hangs"
      const first = yield* Effect.fork(draw)
      yield* TestClock.adjust("120 millis")
      const second = yield* Effect.fork(draw)
      yield* TestClock.adjust("79 millis")
      expect(Option.isNone(yield* Fiber.poll(first))).toBe(true)
      // 200 ms after the first began: both end, the second after 80 ms of waiting, not 200
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(first)).toEqual(Option.none())
      expect(yield* Fiber.join(second)).toEqual(Option.none())
      const reasons = yield* Ref.get(opened)
      expect(reasons).toHaveLength(1)
      expect(reasons[0]).toBeInstanceOf(RedisTimeout)
      expect(String(reasons[0])).toContain("200")
      expect(yield* breaker.closed).toBe(false)

      // open: requests are answered at once, without asking Redis, for 10 s
      expect(stub.calls).toBe(2)
      for (let i = 0; i < 5; i++) expect(yield* draw).toEqual(Option.none())
      yield* TestClock.adjust("9999 millis")
      expect(yield* draw).toEqual(Option.none())
      expect(stub.calls).toBe(2)
      expect(yield* Ref.get(probes)).toBe(0)
    }))

  it.scoped("after 10 s one background probe decides: unanswered, another 10 s; answered, requests ask Redis again", () =>
    Effect.gen(function*() {
      const { breaker, closed, draw, opened, probes, stub } = yield* harness
      stub.redis = "hangs"
      const tripping = yield* Effect.fork(draw)
      yield* TestClock.adjust("200 millis")
      yield* Fiber.join(tripping)

      // the first probe, 10 s later, meets a Redis still hung: no request waits on it meanwhile
      yield* TestClock.adjust("10 seconds")
      expect(yield* Ref.get(probes)).toBe(1)
      expect(yield* draw).toEqual(Option.none())
      yield* TestClock.adjust("200 millis")
      expect(yield* breaker.closed).toBe(false)

      // Redis answers again: the next probe, 10 s after the last, closes the breaker
      stub.redis = "answers"
      yield* TestClock.adjust("9999 millis")
      expect(yield* Ref.get(probes)).toBe(1)
      expect(yield* breaker.closed).toBe(false)
      yield* TestClock.adjust("1 millis")
      expect(yield* Ref.get(probes)).toBe(2)
      expect(yield* breaker.closed).toBe(true)
      expect(yield* Ref.get(closed)).toBe(1)
      expect(yield* Ref.get(opened)).toHaveLength(1)
      const before = stub.calls
      expect(yield* draw).toEqual(Option.some("OK"))
      expect(stub.calls).toBe(before + 1)
      // no probe while closed
      yield* TestClock.adjust("1 minute")
      expect(yield* Ref.get(probes)).toBe(2)
    }))

  it.scoped("a Redis that is down opens it at once; a new connection probes at once instead of in 10 s", () =>
    Effect.gen(function*() {
      const { breaker, closed, draw, opened, probes, stub } = yield* harness
      // a new connection while closed is no reason to probe at the next opening
      yield* breaker.reconnected
      stub.redis = "down"
      expect(yield* draw).toEqual(Option.none())
      expect((yield* Ref.get(opened)).map(String)).toEqual(["Error: connect ECONNREFUSED"])
      yield* TestClock.adjust("1 second")
      expect(yield* Ref.get(probes)).toBe(0)

      // a new connection while Redis still refuses: one probe, then the pause goes on
      yield* breaker.reconnected
      yield* until(Effect.map(Ref.get(probes), (n) => n === 1))
      expect(yield* Ref.get(probes)).toBe(1)
      expect(yield* breaker.closed).toBe(false)

      stub.redis = "answers"
      yield* breaker.reconnected
      yield* until(breaker.closed)
      expect(yield* Ref.get(probes)).toBe(2)
      expect(yield* breaker.closed).toBe(true)
      expect(yield* Ref.get(closed)).toBe(1)
      expect(yield* draw).toEqual(Option.some("OK"))
    }))

  it.scoped("opens once however many requests fail together, and `open` (no Redis at start) opens it too", () =>
    Effect.gen(function*() {
      const { breaker, draw, opened, stub } = yield* harness
      stub.redis = "hangs"
      const waiting = yield* Effect.forEach(Array.from({ length: 20 }), () => Effect.fork(draw))
      yield* TestClock.adjust("200 millis")
      for (const fiber of waiting) expect(yield* Fiber.join(fiber)).toEqual(Option.none())
      yield* breaker.open(new Error("again"))
      expect(yield* Ref.get(opened)).toHaveLength(1)

      const fresh = yield* harness
      yield* fresh.breaker.open(new Error("no connection within 2 seconds"))
      expect(yield* fresh.breaker.closed).toBe(false)
      expect(yield* fresh.draw).toEqual(Option.none())
      expect(fresh.stub.calls).toBe(0)
      expect((yield* Ref.get(fresh.opened)).map(String)).toEqual(["Error: no connection within 2 seconds"])
    }))
})
