/**
 * Idempotency keys (docs/integrators.md#idempotency-keys): the first response to a request carrying an `Idempotency-Key`
 * is kept for 24 hours per caller and organization (`callerKey` below is that scope, see
 * `IdempotentLive.ts`). The same key with the same request replays it without acting
 * again; with a different request it is refused (422); while the first is still running, a second
 * gets 409. Kept in the database, so replays survive restarts; a request cut by a crash leaves its key
 * free again (keys still "running" at start belong to requests that died with their process).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { DirectSql } from "../Db/DirectSql.js"

export const RETENTION = Duration.hours(24)
/** A key still marked running after this long belongs to a request that never finished (its client left). */
export const ABANDONED_AFTER = Duration.minutes(5)

export interface StoredResponse {
  readonly status: number
  readonly contentType: string | null
  readonly body: Uint8Array
}

export type Claim =
  | { readonly _tag: "Fresh" }
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "InProgress" }
  | { readonly _tag: "Mismatch" }

interface Row {
  readonly fingerprint: Uint8Array
  readonly state: "running" | "done"
  readonly status: number | null
  readonly content_type: string | null
  readonly body: Uint8Array | null
  readonly created_at: number
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0

export class Idempotency extends Effect.Service<Idempotency>()("Convene/Idempotency", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const retention = Duration.toMillis(RETENTION)
    const abandoned = Duration.toMillis(ABANDONED_AFTER)

    const select = (callerKey: string, key: string) =>
      direct.first<Row>(
        sql`SELECT fingerprint, state, status, content_type, body, created_at FROM idempotency_keys
            WHERE caller_key = ${callerKey} AND key = ${key}`
      )

    /** What to answer instead of running the request, when the key is in use; undefined when it is free. */
    const answerOf = (row: Row | undefined, fingerprint: Uint8Array, now: number): Claim | undefined => {
      const live = row !== undefined &&
        row.created_at + (row.state === "running" ? abandoned : retention) > now
      if (!live) return undefined
      if (!sameBytes(row.fingerprint, fingerprint)) return { _tag: "Mismatch" }
      if (row.state === "running") return { _tag: "InProgress" }
      return { _tag: "Replay", response: { status: row.status!, contentType: row.content_type, body: row.body! } }
    }

    /**
     * Reserves the key for this request, or says what to answer instead. A key in use (a replay, a
     * retry while the first request runs, a mismatch) is answered from one read outside any
     * transaction, so it waits for no writer (on PostgreSQL, for no write lock); only a free key
     * is claimed in a write transaction, which reads it again before it writes.
     */
    const claim = (callerKey: string, key: string, fingerprint: Uint8Array): Effect.Effect<Claim> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const seen = answerOf(yield* select(callerKey, key), fingerprint, now)
        if (seen !== undefined) return seen
        return yield* Effect.gen(function*() {
          const again = answerOf(yield* select(callerKey, key), fingerprint, now)
          if (again !== undefined) return again
          yield* direct.run(
            sql`INSERT INTO idempotency_keys (caller_key, key, fingerprint, state, created_at)
                VALUES (${callerKey}, ${key}, ${fingerprint}, 'running', ${now})
                ON CONFLICT (caller_key, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'running',
                  status = NULL, content_type = NULL, body = NULL, created_at = excluded.created_at`
          )
          return { _tag: "Fresh" } as const
        }).pipe(sql.withTransaction)
      }).pipe(Effect.orDie)

    /** Frees a key whose request is still running (it ends without an answer to keep). */
    const release = (callerKey: string, key: string) =>
      direct.run(sql`DELETE FROM idempotency_keys WHERE caller_key = ${callerKey} AND key = ${key} AND state = 'running'`).pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /**
     * Keeps the first response; a 5xx is not kept, nor a 429 (a quota that says to retry after
     * `Retry-After`: a kept 429 would answer that retry for 24 hours), and the key is free again.
     */
    const complete = (callerKey: string, key: string, response: StoredResponse) =>
      (response.status >= 500 || response.status === 429
        ? release(callerKey, key)
        : direct.run(
          sql`UPDATE idempotency_keys SET state = 'done', status = ${response.status},
                content_type = ${response.contentType}, body = ${response.body}
              WHERE caller_key = ${callerKey} AND key = ${key} AND state = 'running'`
        )).pipe(Effect.asVoid, Effect.orDie)

    const purge = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      direct.run(sql`DELETE FROM idempotency_keys WHERE created_at <= ${now - retention}`)).pipe(Effect.asVoid, Effect.orDie)

    // SQLite, one process: the keys left running by the previous one are free at start. PostgreSQL:
    // other instances may be running theirs, so a dead instance's keys wait out ABANDONED_AFTER.
    yield* sql.onDialectOrElse({
      pg: () => Effect.void,
      orElse: () => direct.run(sql`DELETE FROM idempotency_keys WHERE state = 'running'`)
    }).pipe(Effect.orDie)
    yield* purge.pipe(Effect.repeat(Schedule.spaced(Duration.hours(1))), Effect.forkScoped)

    return { claim, complete, release } as const
  })
}) {}
