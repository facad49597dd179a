/**
 * Shares of something the server has a few of (CONTRACT §18: no tenant starves the others): at
 * most `total` held at once, and at most `perKey` of them by one key (an organization). A taker
 * over its key's share, or finding every share held, waits in line; a share given back goes to the
 * first one in line whose key is under its own share. No one in line could have taken a share at
 * the time (each release hands out every share it can), so a newcomer whose key is under its share
 * takes a free one at once: one organization's queue never delays another's.
 *
 * Used by the import slots (Csv/ImportSlots.ts) and by streamed answers (Http/StreamSlots.ts).
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import type * as Scope from "effect/Scope"

export interface FairShares<K> {
  /** Takes a share for `key` within `wait` (interruptibly, whatever the caller's region), else fails with `busy`; given back with the scope. */
  readonly take: <E>(key: K, wait: Duration.DurationInput, busy: () => E) => Effect.Effect<void, E, Scope.Scope>
  /** Shares held now, by `key` or in all. */
  readonly held: (key?: K) => number
}

interface Waiter<K> {
  readonly key: K
  readonly granted: Deferred.Deferred<void>
  done: boolean
}

export const makeFairShares = <K>(total: number, perKey: number): FairShares<K> => {
  const byKey = new Map<K, number>()
  let inUse = 0
  const line: Array<Waiter<K>> = []
  const free = (key: K) => inUse < total && (byKey.get(key) ?? 0) < perKey
  const grant = (key: K) => {
    inUse++
    byKey.set(key, (byKey.get(key) ?? 0) + 1)
  }
  const release = (key: K) => {
    inUse--
    const left = (byKey.get(key) ?? 1) - 1
    if (left === 0) byKey.delete(key)
    else byKey.set(key, left)
    for (let i = 0; i < line.length && inUse < total;) {
      const waiter = line[i]!
      if (!free(waiter.key)) {
        i++
        continue
      }
      line.splice(i, 1)
      grant(waiter.key)
      waiter.done = true
      Deferred.unsafeDone(waiter.granted, Effect.void)
    }
  }
  const acquire = <E>(key: K, wait: Duration.DurationInput, busy: () => E): Effect.Effect<void, E> =>
    Effect.suspend(() => {
      if (free(key)) {
        grant(key)
        return Effect.void
      }
      const waiter: Waiter<K> = { key, granted: Deferred.unsafeMake<void>(FiberId.none), done: false }
      line.push(waiter)
      // leaving the line (timed out, or the client went away): a share granted meanwhile goes back
      const leave = Effect.sync(() => {
        if (waiter.done) release(key)
        else line.splice(line.indexOf(waiter), 1)
      })
      return Deferred.await(waiter.granted).pipe(
        Effect.timeoutFail({ duration: wait, onTimeout: busy }),
        // the wait (and its timer) stays interruptible in any region: the client may leave meanwhile
        Effect.interruptible,
        Effect.onExit((exit) => (exit._tag === "Success" ? Effect.void : leave))
      )
    })
  return {
    take: (key, wait, busy) => Effect.acquireRelease(acquire(key, wait, busy), () => Effect.sync(() => release(key))),
    held: (key) => (key === undefined ? inUse : byKey.get(key) ?? 0)
  }
}
