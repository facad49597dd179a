/**
 * Credentials remembered after their first lookup, so that a caller's next requests skip the
 * token's query (bench/RESULTS.md, issue 18). Correct by construction, not by a time to live:
 * - an entry is only remembered from a lookup that ran with no write transaction open and with
 *   nothing written by another process or forgotten meanwhile (`DirectSql.externalVersion`,
 *   `generation` below), so a lookup that raced a revocation is never kept;
 * - every write that can end a credential (revoking an API token, ending a user's access tokens)
 *   calls `forget` once its statement has run, inside its transaction: nothing is remembered
 *   until that transaction ends, and what is remembered after it was read after it;
 * - another process's commit (the CLI on the same SQLite file) moves SQLite's `data_version`, and
 *   everything is forgotten; on PostgreSQL (other instances) nothing is remembered at all;
 * - an entry with an expiry is not used past it;
 * - at most `MAX_ENTRIES` are kept, the oldest forgotten first.
 */
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/DirectSql.js"

const MAX_ENTRIES = 10_000

export interface Remembered<A> {
  readonly value: A
  /** Epoch millis after which the entry is not used (an access token's expiry). */
  readonly expiresAt: number
}

/** What a lookup takes before it runs, to remember its answer only if nothing moved meanwhile. */
export interface Ticket {
  readonly version: number
  readonly generation: number
}

export class CredentialCache extends Effect.Service<CredentialCache>()("Convene/CredentialCache", {
  effect: Effect.gen(function*() {
    const direct = yield* DirectSql
    const entries = new Map<string, Remembered<unknown>>()
    let version: number | undefined
    let generation = 0

    const forgetAll = () => {
      entries.clear()
      generation++
    }

    /** The current version, everything forgotten if another process has committed since the last look. */
    const current = (): number | undefined => {
      const now = direct.externalVersion()
      if (now !== undefined && now !== version) {
        if (version !== undefined) forgetAll()
        version = now
      }
      return now
    }

    /** The entry of `key` that may be used at `now` (epoch millis), if any. */
    const get = <A>(key: string, now: number): A | undefined => {
      if (entries.size === 0 || current() === undefined) return undefined
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.expiresAt <= now) {
        entries.delete(key)
        return undefined
      }
      return entry.value as A
    }

    /** Taken before a lookup; `undefined` when its answer may not be remembered. */
    const ticket = (): Ticket | undefined => {
      const now = current()
      return now === undefined || direct.writing() ? undefined : { version: now, generation }
    }

    /** Remembers a lookup's answer, if nothing was written or forgotten since its ticket was taken. */
    const remember = <A>(ticket: Ticket | undefined, key: string, value: A, expiresAt: number): void => {
      if (ticket === undefined || ticket.generation !== generation || direct.writing() || current() !== ticket.version) return
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, expiresAt })
    }

    /**
     * The value remembered under `key` at `now`, else `lookup`'s answer, remembered until its
     * `expiresAt` when it was found (a miss is never remembered).
     */
    const through = <A, E>(
      key: string,
      now: number,
      lookup: Effect.Effect<Remembered<A> | undefined, E>
    ): Effect.Effect<A | undefined, E> => {
      const known = get<A>(key, now)
      if (known !== undefined) return Effect.succeed(known)
      const taken = ticket()
      return Effect.map(lookup, (found) => {
        if (found === undefined) return undefined
        remember(taken, key, found.value, found.expiresAt)
        return found.value
      })
    }

    /** After a write that can end a credential: everything is looked up again. */
    const forget = Effect.sync(forgetAll)

    return { get, ticket, remember, through, forget, size: () => entries.size } as const
  })
}) {}
