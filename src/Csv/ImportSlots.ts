/**
 * How many CSV imports this process reads at once. An import holds its file (up to 10 MiB), its
 * rows and its plan in memory while it runs: twelve dry runs of a 10 MiB file at once took the
 * server past its 256 MB heap, and out. So at most `IMPORT_SLOTS` run at a time, whoever sends
 * them; the next ones wait for a slot, at most `IMPORT_WAIT`, and are then answered 503 with
 * `Retry-After` (nothing read, nothing changed).
 *
 * An API import takes its slot before its body is read (Http/ErrorMapping.ts), the dashboard's
 * upload and its preview and import steps around their own work (Web/ImportFlow.ts); the import
 * services themselves take none, so no request ever holds two.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

export const IMPORT_SLOTS = 2
export const IMPORT_WAIT = Duration.seconds(20)

/** Every slot stayed taken for `IMPORT_WAIT`. */
export class ImportsBusy extends Data.TaggedError("ImportsBusy")<{}> {
  /** Seconds after which trying again is sensible. */
  readonly retryAfter = 5
  override readonly message = "Other imports are running; try again shortly"
}

export class ImportSlots extends Effect.Service<ImportSlots>()("Convene/ImportSlots", {
  effect: Effect.gen(function*() {
    const semaphore = yield* Effect.makeSemaphore(IMPORT_SLOTS)
    /** Runs `effect` in a slot, once one is free within `IMPORT_WAIT`; the slot is freed however it ends. */
    const run = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | ImportsBusy, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(
          // interruptible whatever the caller's region (a request's may not be), so that the wait can end
          Effect.interruptible(Effect.timeoutFail(semaphore.take(1), { duration: IMPORT_WAIT, onTimeout: () => new ImportsBusy() })),
          () => Effect.ensuring(restore(effect), semaphore.release(1))
        )
      )
    return { run } as const
  })
}) {}
