/**
 * The PostgreSQL client (`DATABASE_URL`, CONTRACT §15): `@effect/sql-pg`'s client over the pool of
 * PostgresPool.ts (numbers as numbers, statements never cancelled, recurring ones prepared unless a
 * pooler in transaction mode stands between: `DATABASE_POOL_MODE`), with
 * - write transactions one at a time across every instance, as SQLite's single writer gives them:
 *   each begins by taking one transaction-scoped advisory lock. The service's invariants that span
 *   statements (a guest list's capacity, one change-feed sequence in commit order, a member's last
 *   Super Admin) then hold on both engines with the same code, at READ COMMITTED. Reads, read
 *   transactions (`DirectSql.readTransaction`) and single statements outside a transaction do not
 *   take it, so they run in parallel on the pool;
 * - at most two connections of the pool per instance for write transactions, one holding that
 *   lock or waiting for it and the next waiting behind it (`WRITERS_WITH_A_CONNECTION`): the
 *   instance's other writers queue in the process, not each on a connection of its own, so writers
 *   queued behind a long write (an import, on this instance or another) leave the rest of the pool
 *   to reads;
 * - a bounded wait for a pooled connection (`acquireTimeout`): when every connection stays busy
 *   (slow downloads each holding one for their snapshot), a statement fails after that long
 *   instead of waiting for ever, and the request answers 503 `unavailable` (`SqlErrors.isPoolTimeout`);
 * - `DirectSql` over the same pool, with snapshots and read transactions as `REPEATABLE READ READ
 *   ONLY` transactions on a connection reserved for them;
 * - the waits for the write lock timed for `/metrics`, and the pool's state given to it
 *   (PostgresMetrics.ts).
 *
 * Nothing is kept in a session between transactions (a pooler in transaction mode gives each
 * transaction any server connection): the write lock and the idempotency keys' locks are
 * transaction-scoped advisory locks (OpenTransaction.ts), the outbox's claims name their claimant
 * in their rows (Outbox/Instances.ts), and the migrations' lock is the transaction's too
 * (PostgresLive.ts).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { DirectSql, withSchemas } from "./DirectSql.js"
import { postgresOpen } from "./OpenTransaction.js"
import { PoolStatus, timedLock, timedQueue } from "./PostgresMetrics.js"
import { openPool, pooledStatement, poolState, types } from "./PostgresPool.js"

export { types }

/** The advisory lock every write transaction holds ("CONVENE" in ASCII, as one bigint). */
export const WRITE_LOCK = 0x434f4e56454e45

/** Write transactions of one instance holding a pooled connection at once (see the top). */
export const WRITERS_WITH_A_CONNECTION = 2

/**
 * U+0000 in a statement's text value, which PostgreSQL's text cannot hold: the API refuses it in
 * bodies and queries, and forms drop it (Web.ts), so what remains are path identifiers, which name
 * nothing with it. U+FFFD keeps such a lookup finding nothing, as SQLite does, instead of failing.
 */
const withoutNul = (value: unknown): unknown =>
  typeof value === "string" && value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value

export interface Options {
  readonly url: Redacted.Redacted
  /** Connections in this instance's pool (`DATABASE_POOL_SIZE`; 10 by default). */
  readonly maxConnections?: number
  /**
   * How long a statement waits for a connection of the pool, or for a new one to connect, before
   * it fails (`DATABASE_ACQUIRE_TIMEOUT`; 5 seconds by default).
   */
  readonly acquireTimeout?: Duration.DurationInput
  /** `DATABASE_POOL_MODE`: `transaction` behind PgBouncer in transaction mode (no named prepared statements). */
  readonly mode?: "session" | "transaction"
}

/** The connection a snapshot's reads run on (provided by `DirectSql.snapshot`). */
class CurrentSnapshot extends Context.Tag("Convene/Postgres/CurrentSnapshot")<CurrentSnapshot, SqlConnection.Connection>() {}

export const make = (options: Options) =>
  Effect.gen(function*() {
    const acquireTimeout = Duration.decode(options.acquireTimeout ?? "5 seconds")
    const maxConnections = options.maxConnections ?? 10
    const pool = yield* openPool({ url: options.url, maxConnections, acquireTimeout, prepare: options.mode !== "transaction" })
    const pg = yield* PgClient.fromPool({ acquire: Effect.succeed(pool), applicationName: "convene", types })
    const lock = pg`SELECT pg_advisory_xact_lock(${WRITE_LOCK})`
    // two write transactions of this instance at a time hold a connection: one with the lock, the
    // next waiting for it, to begin the moment it is free (with one, writes went 20% slower); the
    // others wait here, holding no connection
    const writers = yield* Effect.makeSemaphore(WRITERS_WITH_A_CONNECTION)
    const withTransaction = <R, E, A>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
        outer._tag === "Some"
          // a savepoint of the transaction it runs in, which holds the lock already (or is read-only)
          ? pg.withTransaction(self)
          : timedQueue((entered) =>
            writers.withPermits(1)(
              Effect.zipRight(entered, pg.withTransaction(Effect.zipRight(timedLock(Effect.suspend(() => rows(lock))), self)))
            )
          ))
    // the same client (the `sql` tag and every helper on it), with serialized write transactions
    // and values PostgreSQL's text can hold
    const client: PgClient.PgClient = Object.assign(
      function(this: unknown, ...args: Array<unknown>) {
        return (pg as unknown as (...args: Array<unknown>) => unknown).apply(this, args.map(withoutNul))
      },
      pg,
      {
        withTransaction,
        unsafe: (text: string, params?: ReadonlyArray<unknown>) => pg.unsafe(text, params?.map(withoutNul))
      }
    ) as unknown as PgClient.PgClient

    let executed = 0
    const pooled = pooledStatement(pool)
    // The hot reads and writes run as directly as on SQLite (Sqlite.ts): on the snapshot's or the
    // transaction's connection if there is one, else on a pooled one, without the span, scope and
    // context that `@effect/sql` builds around each statement (a copy of the whole context per
    // statement: most of a one-guest PUT's garbage on PostgreSQL, bench/RESULTS.md). An
    // interrupted statement runs to its end, as a pooled one does (PostgresPool.ts).
    const rows = <A>(statement: Statement.Statement<unknown>) =>
      Effect.withFiberRuntime<ReadonlyArray<A>, SqlError.SqlError>((fiber) => {
        executed++
        const [text, params] = statement.compile()
        const context = fiber.currentContext
        const connection = Context.getOrElse(context, CurrentSnapshot, () => undefined) ??
          Context.getOrElse(context, SqlClient.TransactionConnection, () => undefined)?.[0]
        return connection === undefined
          ? pooled<A>(text, params)
          : connection.execute(text, params, undefined) as Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
      })
    // A connection of the pool in a `REPEATABLE READ READ ONLY` transaction, rolled back and given
    // back with the scope. Uninterruptible until its connection is in the transaction and both
    // finalizers are in the scope: `@effect/sql-pg`'s `reserve` waits for the pool without a
    // canceller, so a fiber interrupted meanwhile (a download abandoned while it waited for a
    // connection) never got the connection the pool handed over later, nor gave it back, and after
    // a few such the pool had none left: every request answered 503 (bench, PostgreSQL phase). A
    // connection given back while its BEGIN ran would have gone to the next borrower inside a
    // read-only transaction. The wait is bounded by `acquireTimeout`.
    const readOnly = Effect.uninterruptible(Effect.gen(function*() {
      const connection = yield* pg.reserve
      yield* connection.executeRaw("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", [])
      yield* Effect.addFinalizer(() => Effect.ignore(connection.executeRaw("ROLLBACK", [])))
      return connection
    }))
    const snapshot = <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, E | SqlError.SqlError, R> =>
      Stream.unwrapScoped(Effect.map(readOnly, (connection) => Stream.provideService(stream, CurrentSnapshot, connection)))
    // every statement of `self` (`sql` and `DirectSql` alike) runs on the reserved connection, as
    // in a transaction of `@effect/sql`; inside a transaction already, `self` is part of it
    const readTransaction = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
        outer._tag === "Some"
          ? self
          : Effect.scoped(Effect.flatMap(readOnly, (connection) =>
            Effect.provideService(self, SqlClient.TransactionConnection, [connection, 0] as const))))
    const directSql = withSchemas({
      rows,
      first: <A>(statement: Statement.Statement<unknown>) => Effect.map(rows<A>(statement), (found) => found[0]),
      run: (statement) => Effect.asVoid(rows(statement)),
      insert: <Id extends number>(statement: Statement.Statement<unknown>) =>
        Effect.map(rows<{ readonly id: Id }>(statement), (found) => found[0]!.id),
      snapshot,
      // half the pool: the other half stays for requests, writers and the outbox
      snapshotCapacity: Math.max(2, Math.floor(maxConnections / 2)),
      readTransaction,
      open: postgresOpen({ reserve: pg.reserve, writers, pooled, writeLock: WRITE_LOCK }),
      // other instances write the same rows: nothing read may be remembered
      externalVersion: () => undefined,
      writing: () => false,
      executed: () => executed
    })
    return { client, directSql, status: poolState(pool, maxConnections) }
  })

export const layer = (options: Options) =>
  Layer.scopedContext(
    Effect.map(make(options), ({ client, directSql, status }) =>
      Context.make(PgClient.PgClient, client).pipe(
        Context.add(SqlClient.SqlClient, client),
        Context.add(DirectSql, directSql),
        Context.add(PoolStatus, status)
      ))
  ).pipe(Layer.provide(Reactivity.layer))
