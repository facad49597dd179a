/**
 * Write transactions begun by one step and ended by a later one (`DirectSql.open`), rather than
 * around one effect: a request sent with an `Idempotency-Key` runs in one from the end of its key's
 * checks to its answer, which is stored in it before it commits (src/Idempotency,
 * docs/integrators.md#idempotency-keys).
 *
 * Each holds a lock named by its holder (the request's key) while it runs, and only while it runs:
 * whoever asks for the same lock meanwhile is told so at once, and no lock outlives its
 * transaction, so a process that dies leaves none behind.
 * - SQLite (one process writes): the names held in this process; a restart begins with none. The
 *   transaction holds the one connection, as every write transaction does (Sqlite.ts).
 * - PostgreSQL (several instances): a transaction-scoped advisory lock on a hash of the name, which
 *   PostgreSQL lets go with the transaction however it ends (COMMIT, ROLLBACK, or the end of its
 *   connection when its instance dies), so no session state is kept between transactions (a pooler
 *   in transaction mode keeps none). Asking is one statement on a pooled connection that takes the
 *   lock if it can and lets it go at once, before waiting for anything: a second request finds the
 *   lock held without waiting for the first one's write lock. The transaction, like every write
 *   transaction, takes the write lock (Postgres.ts `WRITE_LOCK`), then the named one (no other
 *   transaction can hold it then: they all hold the write lock while they do). An instance that
 *   stops answering (hung, or cut off from the database) leaves its transaction idle: PostgreSQL
 *   ends it after `IDLE_LIMIT` (`idle_in_transaction_session_timeout`, for this transaction only),
 *   and its locks with it.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type * as SqlError from "@effect/sql/SqlError"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import { timedLock, timedQueue } from "./PostgresMetrics.js"

export interface OpenTransaction {
  /** Its connection, as `SqlClient.TransactionConnection` gives it to the statements of a transaction. */
  readonly connection: Context.Tag.Service<typeof SqlClient.TransactionConnection>
  /** COMMIT. When it fails, the transaction is rolled back all the same: either way it is over, its lock free. */
  readonly commit: Effect.Effect<void, SqlError.SqlError>
  /** ROLLBACK, unless it is over already; its lock is free. */
  readonly rollback: Effect.Effect<void>
}

/** How long PostgreSQL lets one of these transactions sit idle (its instance hung or cut off) before it ends it. */
const IDLE_LIMIT = Duration.seconds(20)

/**
 * The handle of a transaction just begun, ended once by `end` (true: COMMIT), and rolled back when
 * the scope closes if it is still open then. To be made where nothing can interrupt it.
 */
const handle = (
  connection: OpenTransaction["connection"],
  end: (commit: boolean) => Effect.Effect<void, SqlError.SqlError>
): Effect.Effect<OpenTransaction, never, Scope.Scope> =>
  Effect.suspend(() => {
    let over = false
    const ending = (commit: boolean) =>
      Effect.suspend(() => {
        if (over) return commit ? Effect.dieMessage("COMMIT of a transaction that is over") : Effect.void
        over = true
        return end(commit)
      })
    const transaction: OpenTransaction = { connection, commit: ending(true), rollback: Effect.ignore(ending(false)) }
    return Effect.as(Effect.addFinalizer(() => transaction.rollback), transaction)
  })

type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/** What SQLite's client (Sqlite.ts) lends to make these transactions. */
export interface SqliteTransactions {
  readonly connection: SqlConnection.Connection
  /** Takes the connection (waiting through `restore`, interruptibly) and begins a write transaction on it. */
  readonly begin: (restore: Restore) => Effect.Effect<void, SqlError.SqlError>
  /**
   * Ends it when called (COMMIT, else ROLLBACK; a COMMIT that fails is rolled back); the effect
   * gives the connection back and answers the COMMIT's failure.
   */
  readonly end: (commit: boolean) => Effect.Effect<void, SqlError.SqlError>
}

export const sqliteOpen = ({ begin, connection, end }: SqliteTransactions) => {
  const held = new Set<string>()
  return (lock: string): Effect.Effect<OpenTransaction | undefined, SqlError.SqlError, Scope.Scope> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        if (held.has(lock)) return Effect.succeed(undefined)
        held.add(lock)
        return begin(restore).pipe(
          Effect.onError(() => Effect.sync(() => held.delete(lock))),
          Effect.zipRight(handle([connection, 0], (commit) => {
            const ended = end(commit)
            // free in the same step as the COMMIT: whoever asks next finds the answer it stored
            held.delete(lock)
            return ended
          }))
        )
      })
    )
}

/** What PostgreSQL's client (Postgres.ts) lends to make these transactions. */
export interface PostgresTransactions {
  /** A connection of the pool for one transaction, given back (or dropped, if it failed) when the scope closes. */
  readonly reserve: Effect.Effect<SqlConnection.Connection, SqlError.SqlError, Scope.Scope>
  /** The permits of this instance's write transactions that hold a connection (Postgres.ts). */
  readonly writers: Effect.Semaphore
  /** A statement outside any transaction, on a connection of the pool. */
  readonly pooled: <A>(text: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
  /** The advisory lock every write transaction holds. */
  readonly writeLock: number
}

/** A lock's name as an advisory lock key: 64 bits of its SHA-256, signed, in decimal. */
const lockKeyOf = (lock: string) => createHash("sha256").update(lock).digest().readBigInt64BE(0).toString()

const TRY_LOCK = "SELECT pg_try_advisory_xact_lock($1::bigint) AS free"

export const postgresOpen = ({ pooled, reserve, writeLock, writers }: PostgresTransactions) =>
(lock: string): Effect.Effect<OpenTransaction | undefined, SqlError.SqlError, Scope.Scope> => {
  const key = lockKeyOf(lock)
  const take = (connection: SqlConnection.Connection) =>
    Effect.gen(function*() {
      yield* connection.executeRaw("BEGIN", [])
      yield* connection.executeRaw(`SET LOCAL idle_in_transaction_session_timeout = ${Duration.toMillis(IDLE_LIMIT)}`, [])
      yield* timedLock(connection.executeRaw(`SELECT pg_advisory_xact_lock(${writeLock})`, []))
      const [own] = yield* connection.execute(TRY_LOCK, [key], undefined) as Effect.Effect<ReadonlyArray<{ free: boolean }>, SqlError.SqlError>
      return own?.free === true
    })
  const rollback = (connection: SqlConnection.Connection) => Effect.ignore(connection.executeRaw("ROLLBACK", []))
  return Effect.flatMap(pooled<{ free: boolean }>(TRY_LOCK, [key]), ([probe]) =>
    probe?.free !== true
      ? Effect.succeed(undefined)
      : Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          yield* restore(timedQueue((entered) => Effect.zipRight(writers.take(1), entered)))
          const scope = yield* Scope.make()
          const release = Effect.zipRight(Scope.close(scope, Exit.void), writers.release(1))
          const connection = yield* Effect.gen(function*() {
            const connection = yield* Scope.extend(reserve, scope)
            // a failure after BEGIN leaves a transaction to roll back
            const free = yield* Effect.tapErrorCause(take(connection), () => rollback(connection))
            if (free) return connection
            yield* rollback(connection)
            return undefined
          }).pipe(Effect.onError(() => release))
          if (connection === undefined) return yield* Effect.as(release, undefined)
          return yield* handle([connection, 0], (commit) =>
            (commit
              ? Effect.tapErrorCause(connection.executeRaw("COMMIT", []), () => rollback(connection))
              : connection.executeRaw("ROLLBACK", [])).pipe(Effect.asVoid, Effect.ensuring(release)))
        })
      ))
}
