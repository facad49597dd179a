/**
 * Brute-force protection for `POST /login` (docs/integrators.md#login-access-tokens): after 10 failed logins for one email,
 * known or not, within a 15-minute window, further logins for that email get 429 until the window
 * has passed, even with the right password. In memory, time from `Clock`.
 *
 * Bounded, as anyone may fail a login with any email: an email is kept as its SHA-256 (a fixed 44
 * characters, whatever was typed), and at most `MAX_EMAILS` windows are kept. When full, closed
 * windows go first, then the oldest open ones, down to nine tenths of the bound in one pass (so a
 * flood of new emails pays one sort per `MAX_EMAILS / 10` of them). Flooding it to push out a
 * victim's window takes `MAX_EMAILS` failed logins from addresses the per-client rate limit allows.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { createHash } from "node:crypto"
import { repeatedly } from "../Background.js"
import { RateLimited } from "../Domain/Errors.js"

export const MAX_FAILURES = 10
export const WINDOW = Duration.minutes(15)
export const MAX_EMAILS = 100_000

interface Window {
  readonly startedAt: number
  readonly failures: number
}

const keyOf = (emailKey: string) => createHash("sha256").update(emailKey).digest("base64")

export class LoginThrottle extends Effect.Service<LoginThrottle>()("Convene/LoginThrottle", {
  scoped: Effect.gen(function*() {
    const windowMillis = Duration.toMillis(WINDOW)
    const windows = yield* Ref.make(HashMap.empty<string, Window>())
    const open = (window: Window, now: number) => now < window.startedAt + windowMillis

    /** The open windows, the newest kept when there are too many. */
    const trimmed = (map: HashMap.HashMap<string, Window>, now: number) => {
      const kept = HashMap.filter(map, (window) => open(window, now))
      const room = Math.floor(MAX_EMAILS * 0.9)
      if (HashMap.size(kept) <= room) return kept
      const newest = [...kept].sort(([, a], [, b]) => b.startedAt - a.startedAt).slice(0, room)
      return HashMap.fromIterable(newest)
    }

    /** Fails with 429 while the email is locked. */
    const check = (emailKey: string): Effect.Effect<void, RateLimited> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(Ref.get(windows), (map) => {
          const window = Option.getOrUndefined(HashMap.get(map, keyOf(emailKey)))
          if (window === undefined || !open(window, now) || window.failures < MAX_FAILURES) return Effect.void
          return Effect.fail(RateLimited.after(Math.max(1, Math.ceil((window.startedAt + windowMillis - now) / 1000))))
        }))

    const recordFailure = (emailKey: string): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(windows, (map) => {
          const key = keyOf(emailKey)
          const window = Option.getOrUndefined(HashMap.get(map, key))
          const room = window === undefined && HashMap.size(map) >= MAX_EMAILS ? trimmed(map, now) : map
          return HashMap.set(
            room,
            key,
            window !== undefined && open(window, now)
              ? { startedAt: window.startedAt, failures: window.failures + 1 }
              : { startedAt: now, failures: 1 }
          )
        }))

    const recordSuccess = (emailKey: string): Effect.Effect<void> => Ref.update(windows, HashMap.remove(keyOf(emailKey)))

    /** How many emails have a window kept (for tests). */
    const size = Effect.map(Ref.get(windows), HashMap.size)

    const evictClosed = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.update(windows, HashMap.filter((window) => open(window, now))))
    yield* repeatedly("login throttle eviction", evictClosed, Duration.minutes(1))

    return { check, recordFailure, recordSuccess, size } as const
  })
}) {}
