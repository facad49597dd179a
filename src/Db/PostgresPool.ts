/**
 * PostgreSQL's pool of connections for the client (Postgres.ts): `pg`'s `Pool`, with
 * - numbers as numbers: `bigint` (every id and count) and `numeric` (sums) come back from `pg` as
 *   strings unless parsed; every value the service stores fits in a double;
 * - statements never cancelled (`withoutCancellation`);
 * - the service's recurring statements prepared once per connection (`PreparedStatements`), unless
 *   a pooler in transaction mode stands between (`DATABASE_POOL_MODE=transaction`): PgBouncer then
 *   hands each transaction whichever server connection is free, where a statement prepared on
 *   another does not exist, or one of the same name does ("prepared statement "convene_1" already
 *   exists"), so every statement goes unnamed, as `pg` sends it by default;
 * - its state for `/metrics` (`PoolStatus`, PostgresMetrics.ts);
 * - one statement on a connection of the pool (`pooledStatement`), which keeps a connection whose
 *   statement PostgreSQL refused.
 */
import * as SqlError from "@effect/sql/SqlError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import Pg from "pg"
import type { PoolState } from "./PostgresMetrics.js"
import { PreparedStatements } from "./PreparedStatements.js"

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

export interface PoolOptions {
  readonly url: Redacted.Redacted
  readonly maxConnections: number
  readonly acquireTimeout: Duration.Duration
  /** Named prepared statements for recurring texts (false behind a pooler in transaction mode). */
  readonly prepare: boolean
}

/** The pool, connected once (a first `SELECT 1`) and ended with the scope. */
export const openPool = (options: PoolOptions) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const pool = new Pg.Pool({
          connectionString: Redacted.value(options.url),
          max: options.maxConnections,
          // the wait for a pooled connection as well as for a new one
          connectionTimeoutMillis: Duration.toMillis(options.acquireTimeout),
          application_name: "convene",
          types
        })
        pool.on("error", () => {})
        const prepared = options.prepare ? new PreparedStatements() : undefined
        pool.on("connect", (client) => {
          withoutCancellation(client)
          prepared?.install(client)
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
      duration: options.acquireTimeout,
      onTimeout: () => new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
    })),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  )

/** The pool's connections now, for `/metrics`. */
export const poolState = (pool: Pg.Pool, max: number) => (): PoolState => ({
  inUse: pool.totalCount - pool.idleCount,
  idle: pool.idleCount,
  waiting: pool.waitingCount,
  max
})

/** An error of the statement, the session going on (not FATAL: the connection ends with it). */
const refusedStatement = (cause: Error) => cause instanceof Pg.DatabaseError && cause.severity === "ERROR"

/**
 * A statement on a connection of the pool, given back when it ends: `pool.query`, except that a
 * statement PostgreSQL refused (`refusedStatement`) gives its connection back as good as before,
 * where `pool.query` closed it (the next statement then paid for a new connection and its prepared
 * statements). A connection that failed (reset, ended) is dropped, and its `error` event, which
 * Node would throw without a listener, ends the statement. A fiber interrupted meanwhile leaves
 * the callbacks to give the connection back.
 */
export const pooledStatement = (pool: Pg.Pool) => <A>(text: string, params: ReadonlyArray<unknown>) =>
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
