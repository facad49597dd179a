/**
 * The circuit breaker between the rate limiter and Redis (CONTRACT §19: a Redis that hangs costs
 * at most one `REDIS_TIMEOUT` per instance in 10 s; meanwhile the instance counts alone, as when
 * Redis is down).
 *
 * - **Closed**: requests ask Redis, each for at most `timeout`. The first that fails or waits
 *   longer opens the breaker, and every request still waiting on Redis at that moment is let go
 *   at once: they all count in this process. A hung Redis thus costs one `timeout`, once.
 * - **Open**: requests do not ask Redis at all. After `openFor`, one background probe (a PING,
 *   itself allowed `timeout`) decides: answered, the breaker closes; not, it stays open for
 *   another `openFor`. No request ever waits on a probe. A new connection to Redis (a Redis that
 *   was down and is back) probes at once instead of at the end of the pause.
 *
 * Each switch is reported once, through `onOpen` and `onClose`. Time is the `Clock`'s, so the
 * state machine runs under `TestClock` over stub calls (test/redis-breaker.test.ts).
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"

export interface BreakerOptions {
  /** The longest a request waits for Redis (`REDIS_TIMEOUT`). */
  readonly timeout: Duration.DurationInput
  /** How long Redis is left alone once the breaker opens, before a probe. */
  readonly openFor: Duration.DurationInput
  /** A command that succeeds when Redis answers (PING). */
  readonly probe: Effect.Effect<unknown, unknown>
  /** Told once per opening why Redis is left alone (the call's error, or the timeout). */
  readonly onOpen: (reason: unknown) => Effect.Effect<void>
  /** Told once per closing. */
  readonly onClose: Effect.Effect<void>
}

export interface Breaker {
  /**
   * `call`'s answer when the breaker is closed and Redis answers within the timeout; none at once
   * when it is open, and none when the call fails, waits too long (opening it) or is still waiting
   * when another request opens it.
   */
  readonly guard: <A>(call: Effect.Effect<A, unknown>) => Effect.Effect<Option.Option<A>>
  /** Whether requests ask Redis (closed) or count in this process (open). */
  readonly closed: Effect.Effect<boolean>
  /** A new connection to Redis is ready: worth a probe now, when the breaker is open. */
  readonly reconnected: Effect.Effect<void>
  /** Opens the breaker (a Redis that cannot be reached at start), unless it is open already. */
  readonly open: (reason: unknown) => Effect.Effect<void>
}

/** Why a request stopped waiting for Redis: it did not answer in time. */
export class RedisTimeout extends Error {
  constructor(readonly after: Duration.Duration) {
    super(`no answer within ${Duration.format(after)}`)
  }
}

type State =
  | { readonly _tag: "Closed"; readonly opened: Deferred.Deferred<Option.Option<never>> }
  | { readonly _tag: "Open" }

const OPEN: State = { _tag: "Open" }

export const makeBreaker = (options: BreakerOptions): Effect.Effect<Breaker, never, Scope.Scope> =>
  Effect.gen(function*() {
    const timeout = Duration.decode(options.timeout)
    const closedState = Effect.map(Deferred.make<Option.Option<never>>(), (opened): State => ({ _tag: "Closed", opened }))
    const state = yield* Ref.make(yield* closedState)
    /** Each opening, for the prober. */
    const openings = yield* Queue.sliding<void>(1)
    /** Wakes the prober before the end of the pause; only read while the breaker is open. */
    const wake = yield* Queue.sliding<void>(1)

    const probed = options.probe.pipe(Effect.timeout(timeout), Effect.isSuccess)

    // the prober is the breaker's own fiber, not the request's that opened it: its lines name no request
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* Queue.take(openings)
      // until a probe is answered: a pause (or a new connection), then a probe
      for (;;) {
        yield* Effect.raceFirst(Effect.sleep(options.openFor), Queue.take(wake))
        if (yield* probed) break
      }
      yield* Ref.set(state, yield* closedState)
      // a wake that came in while this probe was answered is no reason to probe at the next opening
      yield* Queue.takeAll(wake)
      yield* options.onClose
    })))

    /** Opens the breaker if `from` is still the closed state: each opening happens, and is told, once. */
    const openFrom = (from: State | undefined, reason: unknown) =>
      Effect.flatMap(
        Ref.modify(state, (current) =>
          current._tag === "Closed" && (from === undefined || current === from)
            ? [Option.some(current.opened), OPEN] as const
            : [Option.none(), current] as const),
        Option.match({
          onNone: () => Effect.void,
          onSome: (opened) =>
            Effect.zipRight(
              // the requests still waiting on Redis stop waiting now
              Deferred.succeed(opened, Option.none()),
              Effect.zipRight(options.onOpen(reason), Queue.offer(openings, undefined))
            )
        })
      )

    const guard = <A>(call: Effect.Effect<A, unknown>): Effect.Effect<Option.Option<A>> =>
      Effect.flatMap(Ref.get(state), (current) =>
        current._tag === "Open"
          ? Effect.succeedNone
          : call.pipe(
            Effect.timeoutFail({ duration: timeout, onTimeout: () => new RedisTimeout(timeout) }),
            Effect.map(Option.some),
            Effect.raceFirst(Deferred.await(current.opened)),
            Effect.catchAll((reason) => Effect.as(openFrom(current, reason), Option.none()))
          ))

    const breaker: Breaker = {
      guard,
      closed: Effect.map(Ref.get(state), (current) => current._tag === "Closed"),
      reconnected: Effect.flatMap(Ref.get(state), (current) => current._tag === "Open" ? Effect.asVoid(Queue.offer(wake, undefined)) : Effect.void),
      open: (reason) => openFrom(undefined, reason)
    }
    return breaker
  })
