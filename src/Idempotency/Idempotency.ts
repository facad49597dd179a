/**
 * Idempotency keys (docs/integrators.md#idempotency-keys): the first response to a request carrying
 * an `Idempotency-Key` is kept for 24 hours per caller and organization (`callerKey` below is that
 * scope, see `IdempotentLive.ts`). The same key with the same request replays it without acting
 * again; with a different request it is refused (422); while a request with the key runs, another
 * gets 409.
 *
 * Exactly once, across crashes: a request whose key is free runs in one write transaction
 * (`DirectSql.open`, Db/OpenTransaction.ts), which holds a lock named after its key while it runs,
 * and its answer is written in that transaction before it commits. Its writes and its answer are
 * kept together or not at all: a retry finds either the answer (it replays it) or nothing of the
 * request (it runs it). "Running" is that lock, which ends with the transaction however it ends,
 * a crash included; only finished answers are ever stored.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { repeatedly } from "../Runtime/Background.js"
import { DirectSql } from "../Db/DirectSql.js"
import type { OpenTransaction } from "../Db/OpenTransaction.js"
import { OutboxWakeups } from "../Outbox/Wakeups.js"

export const RETENTION = Duration.hours(24)
/** How often answers past `RETENTION` are deleted (and, after a failure, tried again). */
const PURGE_EVERY = Duration.hours(1)

export interface StoredResponse {
  readonly status: number
  readonly contentType: string | null
  readonly body: Uint8Array
}

/** A request whose key was free: it runs in `transaction`, and ends with `complete` (or the scope, rolled back). */
export interface Running {
  readonly transaction: OpenTransaction
  /**
   * Keeps the answer with the request's writes (one COMMIT), or, for a 5xx, neither: the writes
   * are rolled back and the key is free, so that a retry runs the request once, from the start.
   */
  readonly complete: (response: StoredResponse) => Effect.Effect<void, SqlError.SqlError>
}

export type Claim =
  | { readonly _tag: "Fresh"; readonly running: Running }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "InProgress" }
  | { readonly _tag: "Mismatch" }

const Row = Schema.Struct({
  fingerprint: Schema.Uint8ArrayFromSelf,
  status: Schema.Number,
  content_type: Schema.NullOr(Schema.String),
  body: Schema.Uint8ArrayFromSelf,
  created_at: Schema.Number
})
type Row = typeof Row.Type

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0

export class Idempotency extends Effect.Service<Idempotency>()("Convene/Idempotency", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const wakeups = yield* OutboxWakeups
    const retention = Duration.toMillis(RETENTION)

    const select = (callerKey: string, key: string) =>
      direct.first(
        Row,
        sql`SELECT fingerprint, status, content_type, body, created_at FROM idempotency_keys
            WHERE caller_key = ${callerKey} AND key = ${key}`
      )

    /** What to answer instead of running the request, from a kept answer; undefined when there is none. */
    const answerOf = (row: Row | undefined, fingerprint: Uint8Array, now: number): Claim | undefined => {
      if (row === undefined || row.created_at + retention <= now) return undefined
      if (!sameBytes(row.fingerprint, fingerprint)) return { _tag: "Mismatch" }
      return { _tag: "Replay", response: { status: row.status, contentType: row.content_type, body: row.body } }
    }

    const within = <A, E, R>(transaction: OpenTransaction, effect: Effect.Effect<A, E, R>) =>
      Effect.provideService(effect, SqlClient.TransactionConnection, transaction.connection)

    /**
     * Begins the request, or says what to answer instead. A kept answer is found by one read
     * outside any transaction, so a replay waits for no writer; a running request's key is found
     * held at once. Otherwise the request's transaction begins (waiting for the write lock, as every
     * write does) and the key is read again in it: an answer committed meanwhile is found there.
     * The transaction is rolled back when the scope closes, unless `complete` ended it before.
     */
    const claim = (callerKey: string, key: string, fingerprint: Uint8Array): Effect.Effect<Claim, never, Scope.Scope> =>
      Effect.gen(function*() {
        const seen = answerOf(yield* select(callerKey, key), fingerprint, yield* Clock.currentTimeMillis)
        if (seen !== undefined) return seen
        const transaction = yield* direct.open(`idempotency\n${callerKey}\n${key}`)
        if (transaction === undefined) return { _tag: "InProgress" } as const
        const again = answerOf(yield* within(transaction, select(callerKey, key)), fingerprint, yield* Clock.currentTimeMillis)
        if (again !== undefined) {
          yield* transaction.rollback
          return again
        }
        // a 5xx is not kept, nor anything the request did; nor a 429 (a quota that says to retry
        // after `Retry-After`: a kept 429 would answer that retry for 24 hours)
        const complete = (response: StoredResponse) =>
          response.status >= 500 || response.status === 429
            ? transaction.rollback
            : Effect.gen(function*() {
              const now = yield* Clock.currentTimeMillis
              yield* within(
                transaction,
                direct.run(
                  sql`INSERT INTO idempotency_keys (caller_key, key, fingerprint, status, content_type, body, created_at)
                      VALUES (${callerKey}, ${key}, ${fingerprint}, ${response.status}, ${response.contentType}, ${response.body}, ${now})
                      ON CONFLICT (caller_key, key) DO UPDATE SET fingerprint = excluded.fingerprint, status = excluded.status,
                        content_type = excluded.content_type, body = excluded.body, created_at = excluded.created_at`
                )
              ).pipe(Effect.tapErrorCause(() => transaction.rollback))
              yield* transaction.commit
              // what the request queued for delivery is committed only now: the dispatcher looks again
              yield* wakeups.wake
            })
        return { _tag: "Fresh", running: { transaction, complete } } as const
      }).pipe(Effect.orDie)

    // Answers past their retention are deleted every hour; a failure (the database away) is logged,
    // and the next round tries again.
    const purge = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      direct.run(sql`DELETE FROM idempotency_keys WHERE created_at <= ${now - retention}`))
    yield* repeatedly("idempotency keys' retention", purge, PURGE_EVERY)

    return { claim } as const
  }),
  dependencies: [OutboxWakeups.Default]
}) {}
