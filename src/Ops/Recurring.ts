/**
 * Recurring background passes (the retentions that delete what has outlived its use): a pass runs
 * at start and then again a pause after each one ends, in a fiber owned by the layer's scope, so it
 * stops when the server closes. A pass that fails or dies (the database away, a lock timeout) is
 * logged and the next one runs as planned: `Effect.repeat` alone would end the loop, for good, at
 * the first failure.
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"

const LONGEST_PAUSE = Duration.minutes(10)
const SHORTEST_PAUSE = Duration.millis(100)

/**
 * The pause between two passes of a retention: a tenth of what it keeps (a row outlives its
 * retention by at most that much), at most 10 minutes, at least 100 ms.
 */
export const retentionPause = (retention: Duration.Duration): Duration.Duration =>
  Duration.clamp(Duration.unsafeDivide(retention, 10), { minimum: SHORTEST_PAUSE, maximum: LONGEST_PAUSE })

/**
 * Forks `pass` into the current scope, at once and then `pause` after each pass, for as long as
 * the scope lasts. `what` names it in the warning of a failed pass. Interruption alone (the scope
 * closing) ends the loop.
 */
export const recurring = <E, R>(
  what: string,
  pass: Effect.Effect<unknown, E, R>,
  pause: Duration.DurationInput
): Effect.Effect<void, never, R | Scope.Scope> =>
  pass.pipe(
    Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logWarning(`${what} failed`, cause)),
    Effect.repeat(Schedule.spaced(pause)),
    Effect.forkScoped,
    Effect.asVoid
  )

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
