/**
 * The sign-in lockout's memory (TestClock): anyone may fail a sign-in with any email, so what it
 * keeps is bounded, whatever the emails and however many.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { LoginThrottle, MAX_EMAILS, MAX_FAILURES } from "../src/Auth/LoginThrottle.js"

const failures = (throttle: LoginThrottle, email: string, n: number) =>
  Effect.repeatN(throttle.recordFailure(email), n - 1)

describe("LoginThrottle (TestClock)", () => {
  layer(LoginThrottle.Default)((it) => {
    it.effect("locks an email after 10 failures for 15 minutes", () =>
      Effect.gen(function*() {
        const throttle = yield* LoginThrottle
        yield* failures(throttle, "ana@acme.test", MAX_FAILURES - 1)
        expect(Either.isRight(yield* Effect.either(throttle.check("ana@acme.test")))).toBe(true)
        yield* throttle.recordFailure("ana@acme.test")
        const locked = yield* Effect.flip(throttle.check("ana@acme.test"))
        expect(locked.retryAfter).toBe(15 * 60)
        yield* TestClock.adjust("15 minutes")
        expect(Either.isRight(yield* Effect.either(throttle.check("ana@acme.test")))).toBe(true)
      }))
  })

  layer(LoginThrottle.Default)((it) => {
    it.effect("keeps at most MAX_EMAILS windows: a flood of new emails drops the oldest, not the newest lock", () =>
      Effect.gen(function*() {
        const throttle = yield* LoginThrottle
        for (let i = 0; i < MAX_EMAILS; i++) {
          yield* throttle.recordFailure(`flood-${i}@example.test`)
          if (i % 1_000 === 999) yield* TestClock.adjust("1 millis")
        }
        expect(yield* throttle.size).toBe(MAX_EMAILS)
        // one more email, locked: the oldest tenth made room for it in one pass
        yield* failures(throttle, "victim@acme.test", MAX_FAILURES)
        expect(yield* throttle.size).toBe(Math.floor(MAX_EMAILS * 0.9) + 1)
        expect((yield* Effect.flip(throttle.check("victim@acme.test")))._tag).toBe("RateLimited")
        // a megabyte of email is one window like any other
        yield* throttle.recordFailure(`${"a".repeat(1_000_000)}@example.test`)
        expect(yield* throttle.size).toBe(Math.floor(MAX_EMAILS * 0.9) + 2)
        // closed windows go by the minute: nothing is kept past the window
        yield* TestClock.adjust("16 minutes")
        expect(yield* throttle.size).toBe(0)
        expect(Either.isRight(yield* Effect.either(throttle.check("victim@acme.test")))).toBe(true)
      }), 60_000)
  })
})
