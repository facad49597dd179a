/**
 * Brute-force protection for sign-ins (docs/integrators.md#login-access-tokens): `POST /login`, the
 * dashboard's sign-in and its password change share it. Counted per email, known or not, and per
 * client address (Http/ClientAddress.ts: `TRUSTED_PROXIES` decides it; an IPv6 client counts as
 * its /64, as for rate limits), in 15-minute windows that start at the first failure:
 * - 10 failures for one email from one address lock that email from that address: further
 *   sign-ins get 429, even with the right password, until its window has passed;
 * - 100 failures for one email from all addresses together lock it from everywhere.
 * So a stranger who fails with someone's email locks only themselves out; the owner, from their
 * own address, still signs in, unless the email is under attack from many addresses at once.
 * A success clears the window of its email and address. In memory, time from `Clock`.
 *
 * Bounded, as anyone may fail a sign-in with any email: a key is kept as a SHA-256 (a fixed 44
 * characters, whatever was typed), and each of the two tables keeps at most `MAX_KEYS` windows.
 * When full, closed windows go first, then the oldest open ones, down to nine tenths of the bound in
 * one pass (so a flood of new keys pays one sort per `MAX_KEYS / 10` of them). Pushing a window out
 * takes `MAX_KEYS` failed sign-ins from addresses the per-client rate limit allows.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { createHash } from "node:crypto"
import { repeatedly } from "../Runtime/Background.js"
import { RateLimited } from "../Domain/Errors.js"

/** Failures for one email from one client address that lock it from that address. */
export const MAX_FAILURES = 10
/** Failures for one email from all addresses together that lock it from everywhere. */
export const MAX_FAILURES_PER_EMAIL = 100
export const WINDOW = Duration.minutes(15)
/** The most windows each table keeps. */
export const MAX_KEYS = 100_000

interface Window {
  readonly startedAt: number
  readonly failures: number
}

const windowMillis = Duration.toMillis(WINDOW)
const open = (window: Window, now: number) => now < window.startedAt + windowMillis

/** A table of windows in a `Ref`, bounded by `MAX_KEYS`; locked at `limit` failures. */
const windowTable = (limit: number) =>
  Effect.map(Ref.make(HashMap.empty<string, Window>()), (windows) => {
    /** The open windows, the newest kept when there are too many. */
    const trimmed = (map: HashMap.HashMap<string, Window>, now: number) => {
      const kept = HashMap.filter(map, (window) => open(window, now))
      const room = Math.floor(MAX_KEYS * 0.9)
      if (HashMap.size(kept) <= room) return kept
      const newest = [...kept].sort(([, a], [, b]) => b.startedAt - a.startedAt).slice(0, room)
      return HashMap.fromIterable(newest)
    }
    return {
      /** Seconds until the key's lock ends; 0 when it is not locked. */
      lockedFor: (key: string, now: number) =>
        Effect.map(Ref.get(windows), (map) => {
          const window = Option.getOrUndefined(HashMap.get(map, key))
          if (window === undefined || !open(window, now) || window.failures < limit) return 0
          return Math.max(1, Math.ceil((window.startedAt + windowMillis - now) / 1000))
        }),
      fail: (key: string, now: number) =>
        Ref.update(windows, (map) => {
          const window = Option.getOrUndefined(HashMap.get(map, key))
          const room = window === undefined && HashMap.size(map) >= MAX_KEYS ? trimmed(map, now) : map
          return HashMap.set(
            room,
            key,
            window !== undefined && open(window, now)
              ? { startedAt: window.startedAt, failures: window.failures + 1 }
              : { startedAt: now, failures: 1 }
          )
        }),
      clear: (key: string) => Ref.update(windows, HashMap.remove(key)),
      size: Effect.map(Ref.get(windows), HashMap.size),
      evictClosed: (now: number) => Ref.update(windows, HashMap.filter((window) => open(window, now)))
    }
  })

const hash = (text: string) => createHash("sha256").update(text).digest("base64")
/** The email's key; `emailKey` is already normalized (Domain/Fields.ts `emailKeyOf`). */
const emailOf = (emailKey: string) => hash(emailKey)
/** The email and client address's key (the client's key holds no NUL: the first one ends it). */
const pairOf = (emailKey: string, client: string) => hash(`${client}\u0000${emailKey}`)

export class LoginThrottle extends Effect.Service<LoginThrottle>()("Convene/LoginThrottle", {
  scoped: Effect.gen(function*() {
    const pairs = yield* windowTable(MAX_FAILURES)
    const emails = yield* windowTable(MAX_FAILURES_PER_EMAIL)

    /**
     * Fails with 429 while the email is locked for this client (`client` is its rate-limit key,
     * Http/ClientAddress.ts `rateKeyOf`): from this address, or from everywhere.
     */
    const check = (emailKey: string, client: string): Effect.Effect<void, RateLimited> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          Effect.zipWith(pairs.lockedFor(pairOf(emailKey, client), now), emails.lockedFor(emailOf(emailKey), now), Math.max),
          (seconds) => (seconds === 0 ? Effect.void : Effect.fail(RateLimited.after(seconds)))
        ))

    const recordFailure = (emailKey: string, client: string): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.zipRight(pairs.fail(pairOf(emailKey, client), now), emails.fail(emailOf(emailKey), now)))

    /** A success clears its address's window; the email's count from every address stays. */
    const recordSuccess = (emailKey: string, client: string): Effect.Effect<void> => pairs.clear(pairOf(emailKey, client))

    /** How many windows are kept, per table (for tests). */
    const size = Effect.all({ pairs: pairs.size, emails: emails.size })

    const evictClosed = Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.zipRight(pairs.evictClosed(now), emails.evictClosed(now)))
    yield* repeatedly("login throttle eviction", evictClosed, Duration.minutes(1))

    return { check, recordFailure, recordSuccess, size } as const
  })
}) {}
