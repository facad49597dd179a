/**
 * Background work that outlives its failures: a pass run again and again, a pause apart, on a
 * fiber owned by the caller's scope (it stops when the scope closes, and only then).
 *
 * `Effect.repeat` over a pass that can fail or die stops for good at the first failure: one
 * database error (a PostgreSQL restart, a network cut, a busy SQLite file) would end a retention, a
 * purge or a heartbeat for the life of the process, silently. Here a failed pass, whatever its
 * cause (an error, a defect, an interruption of something inside it), is logged and the next one
 * runs after the pause, as if it had succeeded. Interrupting the fiber itself still stops it: an
 * interrupted fiber runs no recovery.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"

/** `pass` now and then every `pause` after the end of the one before, failures logged; forked in the scope. */
export const repeatedly = <A, E, R>(
  name: string,
  pass: Effect.Effect<A, E, R>,
  pause: Duration.DurationInput
): Effect.Effect<void, never, R | Scope.Scope> =>
  pass.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`${name} failed; tried again in ${Duration.format(pause)}`, cause)),
    Effect.repeat(Schedule.spaced(pause)),
    Effect.forkScoped,
    Effect.asVoid
  )

const LONGEST_PAUSE = Duration.minutes(10)
const SHORTEST_PAUSE = Duration.millis(100)

/**
 * The pause between two passes of a retention: a tenth of what it keeps (a row outlives its
 * retention by at most that much), at most 10 minutes, at least 100 ms.
 */
export const retentionPause = (retention: Duration.Duration): Duration.Duration =>
  Duration.clamp(Duration.unsafeDivide(retention, 10), { minimum: SHORTEST_PAUSE, maximum: LONGEST_PAUSE })

/**
 * Deletes in batches: `deleteBatch(size)` deletes at most `size` rows in one statement and answers
 * how many; it runs again until a batch comes back short. Each batch is a statement of its own, so
 * a large backlog (the first pass on an old database) never holds the write lock long. Answers the
 * rows deleted.
 */
export const deleteInBatches = <E, R>(size: number, deleteBatch: (size: number) => Effect.Effect<number, E, R>) =>
  Effect.gen(function*() {
    let deleted = 0
    for (;;) {
      const batch = yield* deleteBatch(size)
      deleted += batch
      if (batch < size) return deleted
      yield* Effect.yieldNow()
    }
  })
