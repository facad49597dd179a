/**
 * The PostgreSQL client (`DATABASE_URL`, CONTRACT §15): `@effect/sql-pg`'s pooled client, with
 * - numbers as numbers: `bigint` (every id and count) and `numeric` (sums) come back from `pg` as
 *   strings unless parsed; every value the service stores fits in a double;
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
 * - statements never cancelled: one whose request ends meanwhile runs to its end, as SQLite's do
 *   (`withoutCancellation`);
 * - the service's recurring statements prepared once per connection (`PreparedStatements`), as
 *   SQLite's statement cache keeps them, instead of parsed and planned on every execution.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlError from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import Pg from "pg"
import { DirectSql, withSchemas } from "./DirectSql.js"
import { postgresOpen } from "./OpenTransaction.js"
import { PreparedStatements } from "./PreparedStatements.js"

/** The advisory lock every write transaction holds ("CONVENE" in ASCII, as one bigint). */
export const WRITE_LOCK = 0x434f4e56454e45

/** Write transactions of one instance holding a pooled connection at once (see the top). */
export const WRITERS_WITH_A_CONNECTION = 2

const INT8 = 20
const NUMERIC = 1700

/** `pg`'s parsers, with `bigint` and `numeric` as numbers. */
export const types: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 || oid === NUMERIC
      ? (value: string) => Number(value)
      : Pg.types.getTypeParser(oid, format as "text")) as Pg.CustomTypesConfig["getTypeParser"]
}

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
}

/** The connection a snapshot's reads run on (provided by `DirectSql.snapshot`). */
class CurrentSnapshot extends Context.Tag("Convene/Postgres/CurrentSnapshot")<CurrentSnapshot, SqlConnection.Connection>() {}

/**
 * A statement whose fiber is interrupted (its client left) runs to its end, as on SQLite, instead of
 * being cancelled. `@effect/sql-pg` cancels it with `pg_cancel_backend(<the connection's process
 * id>)`, sent on another connection of the pool: when the pool is busy (downloads abandoned at
 * once, each holding its snapshot's connection) that cancellation waits for a connection itself,
 * up to 5 s, and holds its own meanwhile, so the instance's next requests found none and were
 * refused (503); and a cancellation that arrives once the statement has ended can fail the next
 * request's statement on that connection. Without a process id, the library sends none: an
 * interrupted pooled statement's connection goes back to the pool, where the next borrower's
 * statement waits behind it, and a transaction's ROLLBACK waits behind it on its own connection.
 */
const withoutCancellation = (client: Pg.PoolClient) => {
  Object.defineProperty(client, "processID", { configurable: true, get: () => undefined, set: () => {} })
}

export const make = (options: Options) =>
  Effect.gen(function*() {
    const acquireTimeout = Duration.decode(options.acquireTimeout ?? "5 seconds")
    const maxConnections = options.maxConnections ?? 10
    const pool = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const pool = new Pg.Pool({
            connectionString: Redacted.value(options.url),
            max: maxConnections,
            // the wait for a pooled connection as well as for a new one
            connectionTimeoutMillis: Duration.toMillis(acquireTimeout),
            application_name: "convene",
            types
          })
          pool.on("error", () => {})
          const prepared = new PreparedStatements()
          pool.on("connect", (client) => {
            withoutCancellation(client)
            prepared.install(client)
          })
          try {
            await pool.query("SELECT 1")
          } catch (error) {
            await pool.end()
            throw error
          }
          return pool
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(Effect.timeoutFail({
        duration: acquireTimeout,
        onTimeout: () => new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
      })),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    )
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
          : writers.withPermits(1)(pg.withTransaction(Effect.zipRight(Effect.suspend(() => rows(lock)), self))))
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
    /** An error of the statement, the session going on (not FATAL: the connection ends with it). */
    const refusedStatement = (cause: Error) => cause instanceof Pg.DatabaseError && cause.severity === "ERROR"
    /**
     * A statement on a connection of the pool, given back when it ends: `pool.query`, except that
     * a statement PostgreSQL refused (`refusedStatement`) gives its connection back as good as
     * before, where `pool.query` closed it (the next statement then paid for a new connection and
     * its prepared statements). A connection that failed (reset, ended) is dropped, and its
     * `error` event, which Node would throw without a listener, ends the statement. A fiber
     * interrupted meanwhile leaves the callbacks to give the connection back.
     */
    const pooled = <A>(text: string, params: ReadonlyArray<unknown>) =>
      Effect.async<ReadonlyArray<A>, SqlError.SqlError>((resume) => {
        pool.connect((connectError, connection, release) => {
          if (connectError !== undefined && connectError !== null) {
            return resume(Effect.fail(new SqlError.SqlError({ cause: connectError, message: "Failed to acquire connection" })))
          }
          let done = false
          const end = (cause: Error | undefined, rows?: ReadonlyArray<A>) => {
            if (done) return
            done = true
            connection!.removeListener("error", end)
            release(cause === undefined || refusedStatement(cause) ? undefined : cause)
            resume(
              cause === undefined
                ? Effect.succeed(rows!)
                : Effect.fail(new SqlError.SqlError({ cause, message: "Failed to execute statement" }))
            )
          }
          connection!.once("error", end)
          try {
            connection!.query(text, params as Array<unknown>, (cause, result) =>
              end(cause ?? undefined, cause ? undefined : result.rows as ReadonlyArray<A>))
          } catch (cause) {
            end(cause instanceof Error ? cause : new Error(String(cause)))
          }
        })
      })
    // The hot reads and writes run as directly as on SQLite (Sqlite.ts): on the snapshot's or the
    // transaction's connection if there is one, else on a pooled one, without the span, scope and
    // context that `@effect/sql` builds around each statement (a copy of the whole context per
    // statement: most of a one-guest PUT's garbage on PostgreSQL, bench/RESULTS.md). An
    // interrupted statement runs to its end, as with `withoutCancellation`.
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
    return { client, directSql }
  })

export const layer = (options: Options) =>
  Layer.scopedContext(
    Effect.map(make(options), ({ client, directSql }) =>
      Context.make(PgClient.PgClient, client).pipe(
        Context.add(SqlClient.SqlClient, client),
        Context.add(DirectSql, directSql)
      ))
  ).pipe(Layer.provide(Reactivity.layer))
