/**
 * Long work in slices: a CSV import parses, validates and writes tens of thousands of rows, and
 * none of it may hold the event loop for long (other requests, `/healthz`, timers). Each slice runs
 * synchronously, then the fiber waits for one turn of the event loop (`setImmediate`, after I/O)
 * before the next: other requests are accepted and answered in between.
 */
import * as Effect from "effect/Effect"

/** Resumes after the event loop's next I/O phase. */
export const yieldToEventLoop: Effect.Effect<void> = Effect.async<void>((resume) => {
  const timer = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(timer))
})

/**
 * Runs `f` over `items` in slices of `size`, yielding to the event loop between slices (not
 * before the first). `f` gets the slice and the index of its first item.
 */
export const inSlices = <A, B, E, R>(
  items: ReadonlyArray<A>,
  size: number,
  f: (slice: ReadonlyArray<A>, start: number) => Effect.Effect<B, E, R>
): Effect.Effect<Array<B>, E, R> =>
  Effect.gen(function*() {
    const results: Array<B> = []
    for (let start = 0; start < items.length; start += size) {
      if (start > 0) yield* yieldToEventLoop
      results.push(yield* f(items.slice(start, start + size), start))
    }
    return results
  })

/** Like `inSlices` for synchronous work. */
export const forEachSlice = <A>(
  items: ReadonlyArray<A>,
  size: number,
  f: (item: A, index: number) => void
): Effect.Effect<void> =>
  Effect.asVoid(inSlices(items, size, (slice, start) =>
    Effect.sync(() => {
      for (let i = 0; i < slice.length; i++) f(slice[i]!, start + i)
    })))
