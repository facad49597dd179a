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
 * A request's wait costs no fiber and no timer of its own (it runs on every request): requests
 * waiting on Redis are kept in the order they began, and one watchdog fiber sleeps until the
 * oldest one's deadline. Each switch is reported once, through `onOpen` and `onClose`. Time is the
 * `Clock`'s, so the state machine runs under `TestClock` (test/unit/redis-breaker.test.ts).
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
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
   * What `call`'s promise resolves to when the breaker is closed and Redis answers within the
   * timeout; none at once when it is open (`call` is not made), and none when the promise rejects,
   * takes too long (opening the breaker) or is still pending when another request opens it.
   */
  readonly guard: <A>(call: () => PromiseLike<A>) => Effect.Effect<Option.Option<A>>
  /** Whether requests ask Redis (closed) or count in this process (open). */
  readonly closed: Effect.Effect<boolean>
  /** A new connection to Redis is ready: worth a probe now, when the breaker is open. */
  readonly reconnected: Effect.Effect<void>
  /** Opens the breaker (Redis unreachable at start, or an answer that makes no sense), unless it is open. */
  readonly open: (reason: unknown) => Effect.Effect<void>
}

/** Why requests stopped waiting for Redis: it did not answer in time. */
export class RedisTimeout extends Error {
  constructor(readonly after: Duration.Duration) {
    super(`no answer within ${Duration.format(after)}`)
  }
}

interface Waiter {
  /** When it stops waiting (epoch ms, the Clock's). */
  readonly deadline: number
  /** Lets it go, counting in this process. */
  readonly release: () => void
}

export const makeBreaker = (options: BreakerOptions): Effect.Effect<Breaker, never, Scope.Scope> =>
  Effect.gen(function*() {
    const timeout = Duration.decode(options.timeout)
    const timeoutMillis = Duration.toMillis(timeout)
    let isOpen = false
    /** The requests waiting on Redis, oldest (earliest deadline) first. */
    const waiting = new Set<Waiter>()
    /** A request began waiting when none was: the watchdog has a deadline to keep. */
    const firstWaiter = yield* Queue.sliding<void>(1)
    /** Each opening, for the prober. */
    const openings = yield* Queue.sliding<void>(1)
    /** Wakes the prober before the end of the pause; only read while the breaker is open. */
    const wake = yield* Queue.sliding<void>(1)

    const open = (reason: unknown): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (isOpen) return Effect.void
        isOpen = true
        // the requests still waiting on Redis stop waiting now
        for (const waiter of [...waiting]) waiter.release()
        return Effect.zipRight(options.onOpen(reason), Queue.offer(openings, undefined))
      })

    // the watchdog: sleeps until the oldest waiting request's deadline; one still waiting then opens the breaker
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const oldest = waiting.values().next()
      if (oldest.done === true) return yield* Queue.take(firstWaiter)
      const now = yield* Clock.currentTimeMillis
      if (oldest.value.deadline > now) return yield* Effect.sleep(Duration.millis(oldest.value.deadline - now))
      yield* open(new RedisTimeout(timeout))
    })))

    // the prober, the breaker's own fiber (its lines name no request): while open, a pause (or a
    // new connection), then a probe, until one is answered
    const probed = options.probe.pipe(Effect.timeout(timeout), Effect.isSuccess)
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* Queue.take(openings)
      for (;;) {
        yield* Effect.raceFirst(Effect.sleep(options.openFor), Queue.take(wake))
        if (yield* probed) break
      }
      isOpen = false
      // a wake that came in while this probe was answered is no reason to probe at the next opening
      yield* Queue.takeAll(wake)
      yield* options.onClose
    })))

    const guard = <A>(call: () => PromiseLike<A>): Effect.Effect<Option.Option<A>> =>
      Effect.suspend(() =>
        isOpen ? Effect.succeedNone : Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.async<Option.Option<A>>((resume) => {
            let settled = false
            const settle = (answer: Effect.Effect<Option.Option<A>>) => {
              if (settled) return
              settled = true
              waiting.delete(waiter)
              resume(answer)
            }
            const waiter: Waiter = { deadline: now + timeoutMillis, release: () => settle(Effect.succeedNone) }
            if (waiting.size === 0) firstWaiter.unsafeOffer(undefined)
            waiting.add(waiter)
            try {
              call().then(
                (answer) => settle(Effect.succeed(Option.some(answer))),
                (error: unknown) => settle(Effect.as(open(error), Option.none()))
              )
            } catch (error) {
              settle(Effect.as(open(error), Option.none()))
            }
            // interrupted (its client went away): it waits no more
            return Effect.sync(() => {
              settled = true
              waiting.delete(waiter)
            })
          })
        )
      )

    const breaker: Breaker = {
      guard,
      closed: Effect.sync(() => !isOpen),
      reconnected: Effect.suspend(() => isOpen ? Effect.asVoid(Queue.offer(wake, undefined)) : Effect.void),
      open
    }
    return breaker
  })
