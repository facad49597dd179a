/**
 * Brute-force protection for `POST /login` (docs/integrators.md#login-access-tokens): after 10 failed logins for one email,
 * known or not, within a 15-minute window, further logins for that email get 429 until the window
 * has passed, even with the right password. In memory, time from `Clock`.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { RateLimited } from "../Domain/Errors.js"

export const MAX_FAILURES = 10
export const WINDOW = Duration.minutes(15)

interface Window {
  readonly startedAt: number
  readonly failures: number
}

export class LoginThrottle extends Effect.Service<LoginThrottle>()("Convene/LoginThrottle", {
  scoped: Effect.gen(function*() {
    const windowMillis = Duration.toMillis(WINDOW)
    const windows = yield* Ref.make(HashMap.empty<string, Window>())
    const open = (window: Window, now: number) => now < window.startedAt + windowMillis

    /** Fails with 429 while the email is locked. */
    const check = (emailKey: string): Effect.Effect<void, RateLimited> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(Ref.get(windows), (map) => {
          const window = Option.getOrUndefined(HashMap.get(map, emailKey))
          if (window === undefined || !open(window, now) || window.failures < MAX_FAILURES) return Effect.void
          return Effect.fail(RateLimited.after(Math.max(1, Math.ceil((window.startedAt + windowMillis - now) / 1000))))
        }))

    const recordFailure = (emailKey: string): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(windows, (map) => {
          const window = Option.getOrUndefined(HashMap.get(map, emailKey))
          return HashMap.set(
            map,
            emailKey,
            window !== undefined && open(window, now)
              ? { startedAt: window.startedAt, failures: window.failures + 1 }
              : { startedAt: now, failures: 1 }
          )
        }))

    const recordSuccess = (emailKey: string): Effect.Effect<void> => Ref.update(windows, HashMap.remove(emailKey))

    const evictClosed = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.update(windows, HashMap.filter((window) => open(window, now))))
    yield* evictClosed.pipe(Effect.repeat(Schedule.spaced(Duration.minutes(1))), Effect.forkScoped)

    return { check, recordFailure, recordSuccess } as const
  })
}) {}
