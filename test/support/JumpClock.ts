/**
 * A clock for a whole test server that runs in real time and that a test moves forward in jumps,
 * as a machine's clock moves after it was suspended: `jump("20 hours")` adds 20 hours to the time
 * at once, and every sleep due by the new time ends then, once. Nothing steps through the time in
 * between, so a jump of days costs what a jump of seconds costs, however many periodic fibers the
 * server runs (readiness every second, the outbox's polls, each retention): under `TestClock` every
 * one of their wakings in between is run, one by one. Sleeps not due yet go on for what is left of
 * them.
 *
 * `makeJumpClock({ still: true })` is a clock that stands still between jumps, as `TestClock` does
 * (a test that compares times to the second, a `Retry-After`, sees no real time pass), and whose
 * jumps still cost nothing: sleeps end only by jumps. As under `TestClock`, what waits on time
 * (a timeout) waits until the test moves the clock. A jump returns at once: the fibers it woke run
 * after it (a test that judges what a background pass did waits for its effect).
 *
 * `serverWith(clock)` is what a test server takes: `testServer(env).pipe(Layer.provide(serverWith(clock)))`
 * gives every fiber of the server (requests, background work) this clock.
 */
import { Clock, Duration, Effect, Layer } from "effect"

/** The longest timer Node keeps (a longer one fires at once). */
const LONGEST_TIMER = 2 ** 31 - 1

export interface JumpClock extends Clock.Clock {
  /** The clock's time now, in milliseconds since the epoch. */
  readonly now: () => number
  /** Moves the time forward by `duration`; the sleeps due by then end. */
  readonly jump: (duration: Duration.DurationInput) => void
  /** `jump`, as an effect for a test's generator. */
  readonly advance: (duration: Duration.DurationInput) => Effect.Effect<void>
}

interface Sleeper {
  readonly deadline: number
  readonly wake: () => void
  timer?: ReturnType<typeof setTimeout>
}

export interface JumpClockOptions {
  /** Stands still between jumps (from the real time it was made at), rather than running in real time. */
  readonly still?: boolean
}

export const makeJumpClock = (options: JumpClockOptions = {}): JumpClock => {
  const still = options.still === true
  let offset = 0
  const madeAt = Date.now()
  const now = still ? () => madeAt + offset : () => Date.now() + offset
  // nanoseconds since the epoch, monotonic between jumps, as the default clock gives them
  const origin = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint()
  const nanos = still ? () => BigInt(now()) * 1_000_000n : () => origin + process.hrtime.bigint() + BigInt(offset) * 1_000_000n
  const sleepers = new Set<Sleeper>()

  /** Ends the sleep if it is due, else sets a timer for what is left of it. */
  const arm = (sleeper: Sleeper) => {
    clearTimeout(sleeper.timer)
    const left = sleeper.deadline - now()
    if (left <= 0) {
      sleepers.delete(sleeper)
      sleeper.wake()
    } else if (!still) {
      sleeper.timer = setTimeout(() => arm(sleeper), Math.min(left, LONGEST_TIMER))
    }
  }

  const jump = (duration: Duration.DurationInput) => {
    offset += Duration.toMillis(duration)
    for (const sleeper of [...sleepers]) arm(sleeper)
  }

  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: now,
    currentTimeMillis: Effect.sync(now),
    unsafeCurrentTimeNanos: nanos,
    currentTimeNanos: Effect.sync(nanos),
    sleep: (duration) =>
      Effect.async<void>((resume) => {
        const sleeper: Sleeper = { deadline: now() + Duration.toMillis(duration), wake: () => resume(Effect.void) }
        sleepers.add(sleeper)
        arm(sleeper)
        return Effect.sync(() => {
          clearTimeout(sleeper.timer)
          sleepers.delete(sleeper)
        })
      }),
    now,
    jump,
    advance: (duration) => Effect.sync(() => jump(duration))
  }
}

/** Gives the layers built after it (a test server) the clock. */
export const serverWith = (clock: JumpClock): Layer.Layer<never> => Layer.setClock(clock)
