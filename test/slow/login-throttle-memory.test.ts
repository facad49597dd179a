/**
 * The sign-in lockout's memory, at its bound (moved from test/unit/login-throttle.test.ts, which
 * holds the rest: a flood of 100,000 keys takes its own ten seconds): anyone may fail a sign-in
 * with any email, so what it keeps is bounded, whatever the emails and however many.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { LoginThrottle, MAX_FAILURES, MAX_KEYS } from "../../src/Auth/LoginThrottle.js"

const STRANGER = "ip:203.0.113.9"

const failures = (throttle: LoginThrottle, email: string, client: string, n: number) =>
  Effect.repeatN(throttle.recordFailure(email, client), n - 1)

const allowed = (throttle: LoginThrottle, email: string, client: string) =>
  Effect.map(Effect.either(throttle.check(email, client)), Either.isRight)

describe("LoginThrottle (TestClock)", () => {
  layer(LoginThrottle.Default)((it) => {
    it.effect("keeps at most MAX_KEYS windows per table: a flood of new keys drops the oldest, not the newest lock", () =>
      Effect.gen(function*() {
        const throttle = yield* LoginThrottle
        for (let i = 0; i < MAX_KEYS; i++) {
          yield* throttle.recordFailure(`flood-${i}@example.test`, STRANGER)
          if (i % 1_000 === 999) yield* TestClock.adjust("1 millis")
        }
        expect(yield* throttle.size).toEqual({ pairs: MAX_KEYS, emails: MAX_KEYS })
        // one more email, locked: the oldest tenth made room for it in one pass
        yield* failures(throttle, "victim@acme.test", STRANGER, MAX_FAILURES)
        const room = Math.floor(MAX_KEYS * 0.9) + 1
        expect(yield* throttle.size).toEqual({ pairs: room, emails: room })
        expect((yield* Effect.flip(throttle.check("victim@acme.test", STRANGER)))._tag).toBe("RateLimited")
        // a megabyte of email is one window like any other
        yield* throttle.recordFailure(`${"a".repeat(1_000_000)}@example.test`, STRANGER)
        expect(yield* throttle.size).toEqual({ pairs: room + 1, emails: room + 1 })
        // closed windows go by the minute: nothing is kept past the window
        yield* TestClock.adjust("16 minutes")
        expect(yield* throttle.size).toEqual({ pairs: 0, emails: 0 })
        expect(yield* allowed(throttle, "victim@acme.test", STRANGER)).toBe(true)
      }), 60_000)
  })
})
