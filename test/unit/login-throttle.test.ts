/**
 * The sign-in lockout (TestClock): per email and client address, and per email from everywhere
 * (a stranger locks only themselves out). Its memory at its bound (100,000 keys):
 * test/slow/login-throttle-memory.test.ts.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { LoginThrottle, MAX_FAILURES, MAX_FAILURES_PER_EMAIL } from "../../src/Auth/LoginThrottle.js"

const STRANGER = "ip:203.0.113.9"
const OWNER = "ip:198.51.100.7"

const failures = (throttle: LoginThrottle, email: string, client: string, n: number) =>
  Effect.repeatN(throttle.recordFailure(email, client), n - 1)

const allowed = (throttle: LoginThrottle, email: string, client: string) =>
  Effect.map(Effect.either(throttle.check(email, client)), Either.isRight)

describe("LoginThrottle (TestClock)", () => {
  layer(LoginThrottle.Default)((it) => {
    it.effect("locks an email from one address after 10 failures there, for 15 minutes; other addresses still sign in", () =>
      Effect.gen(function*() {
        const throttle = yield* LoginThrottle
        yield* failures(throttle, "ana@acme.test", STRANGER, MAX_FAILURES - 1)
        expect(yield* allowed(throttle, "ana@acme.test", STRANGER)).toBe(true)
        yield* throttle.recordFailure("ana@acme.test", STRANGER)
        const locked = yield* Effect.flip(throttle.check("ana@acme.test", STRANGER))
        expect(locked.retryAfter).toBe(15 * 60)
        // the owner, from their own address, is not locked out; another email from the stranger's neither
        expect(yield* allowed(throttle, "ana@acme.test", OWNER)).toBe(true)
        expect(yield* allowed(throttle, "ben@acme.test", STRANGER)).toBe(true)
        yield* TestClock.adjust("10 minutes")
        expect((yield* Effect.flip(throttle.check("ana@acme.test", STRANGER))).retryAfter).toBe(5 * 60)
        yield* TestClock.adjust("5 minutes")
        expect(yield* allowed(throttle, "ana@acme.test", STRANGER)).toBe(true)
      }))

    it.effect("a success clears its address's window only", () =>
      Effect.gen(function*() {
        const throttle = yield* LoginThrottle
        yield* failures(throttle, "cleo@acme.test", OWNER, MAX_FAILURES - 1)
        yield* throttle.recordSuccess("cleo@acme.test", OWNER)
        yield* failures(throttle, "cleo@acme.test", OWNER, MAX_FAILURES - 1)
        expect(yield* allowed(throttle, "cleo@acme.test", OWNER)).toBe(true)
        yield* failures(throttle, "cleo@acme.test", STRANGER, MAX_FAILURES)
        yield* throttle.recordSuccess("cleo@acme.test", OWNER)
        expect(yield* allowed(throttle, "cleo@acme.test", STRANGER)).toBe(false)
      }))
  })

  layer(LoginThrottle.Default)((it) => {
    it.effect("100 failures for one email from many addresses lock it from everywhere", () =>
      Effect.gen(function*() {
        const throttle = yield* LoginThrottle
        // nine failures from each of eleven addresses, none locked on its own
        for (let i = 0; i < 11; i++) yield* failures(throttle, "dora@acme.test", `ip:192.0.2.${i}`, MAX_FAILURES - 1)
        expect(yield* allowed(throttle, "dora@acme.test", OWNER)).toBe(true)
        yield* TestClock.adjust("1 minute")
        yield* throttle.recordFailure("dora@acme.test", "ip:192.0.2.200")
        // 9 × 11 + 1 = 100
        expect(MAX_FAILURES_PER_EMAIL).toBe(100)
        const locked = yield* Effect.flip(throttle.check("dora@acme.test", OWNER))
        // the email's window started with the first failure, a minute ago
        expect(locked.retryAfter).toBe(14 * 60)
        expect(yield* allowed(throttle, "someone-else@acme.test", OWNER)).toBe(true)
        yield* TestClock.adjust("14 minutes")
        expect(yield* allowed(throttle, "dora@acme.test", OWNER)).toBe(true)
      }))
  })
})
