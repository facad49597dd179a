/**
 * The SQLite client: `@effect/sql`'s client over one better-sqlite3 connection, configured for a
 * server that shares its file with the admin CLI:
 * - write transactions begin IMMEDIATE, so they take the write lock first and wait (busy timeout)
 *   instead of failing with SQLITE_BUSY when another process committed in between;
 * - prepared statements live in a plain map keyed by SQL text (the statements are the code's own,
 *   a bounded set), which costs less per query than a general-purpose cache;
 * - the connection settings are applied once, before any statement runs.
 * It is offered as both `SqlClient` and `SqliteClient` (the Migrator and backups use the latter),
 * with `DirectSql`, a shorter path for the reads of every request (see there), whose `snapshot`
 * runs a streamed answer's reads on read-only connections of their own (SqliteReaders.ts). Its
 * transactions are SqliteTransactions.ts's.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlError from "@effect/sql/SqlError"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as Statement from "@effect/sql/Statement"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import Database from "better-sqlite3"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { DirectSql, withSchemas } from "./DirectSql.js"
import { sqliteOpen } from "./OpenTransaction.js"
import { CurrentSnapshot, inMemory, makeReaders, MAX_SNAPSHOTS } from "./SqliteReaders.js"
import { makeTransactions } from "./SqliteTransactions.js"

/**
 * Statements on the hot path. A `sql` statement normally runs through the client's machinery (a
 * permit of the connection's semaphore, a span, the statement cache) at a cost of tens of Effect
 * operations per statement, which adds up: a guest-list batch runs thousands. `DirectSql` runs the
 * compiled statement at once when that is safe: when no transaction holds the connection (a
 * statement outside a transaction commits on its own), or when the calling fiber is the one that
 * holds it (a statement of that transaction). Otherwise a read runs beside the transaction on a
 * read-only connection (SqliteReaders.ts), and a write waits for the connection like any
 * statement. The tables are STRICT, so column types are guaranteed.
 */

const STATEMENT_CACHE = 1_000

export interface Options {
  readonly filename: string
  /** `synchronous`: FULL makes every commit durable against power loss. */
  readonly synchronous?: "FULL" | "NORMAL"
}

export const make = (options: Options) =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const db = new Database(options.filename)
          try {
            db.pragma("journal_mode = WAL")
            db.pragma(`synchronous = ${options.synchronous ?? "FULL"}`)
            db.pragma("foreign_keys = ON")
            db.pragma("busy_timeout = 5000")
            // 16 MiB of pages in the process; beyond that reads come from the OS page cache (this
            // and the heap flags of `npm start` keep RSS under 200 MB under load: bench/RESULTS.md)
            db.pragma("cache_size = -16384")
            db.pragma("temp_store = MEMORY")
            return db
          } catch (error) {
            db.close()
            throw error
          }
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: `Failed to open ${options.filename}` })
      }),
      (db) => Effect.sync(() => db.close())
    )

    const statements = new Map<string, Database.Statement>()
    let executed = 0
    const prepare = (sql: string) => {
      executed++
      let statement = statements.get(sql)
      if (statement === undefined) {
        statement = db.prepare(sql)
        if (statements.size >= STATEMENT_CACHE) statements.delete(statements.keys().next().value!)
        statements.set(sql, statement)
      }
      return statement
    }
    // the driver's message ("no such table: …", "database is locked") belongs in the log line
    const failed = (cause: unknown) =>
      new SqlError.SqlError({ cause, message: `Failed to execute statement: ${cause instanceof Error ? cause.message : String(cause)}` })
    const run = (sql: string, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.try({
        try: () => {
          const statement = prepare(sql)
          if (statement.reader) return statement.all(...params) as ReadonlyArray<any>
          const result = statement.run(...params)
          return raw ? (result as unknown as ReadonlyArray<any>) : []
        },
        catch: failed
      })

    const readers = yield* makeReaders({
      filename: options.filename,
      executed: () => {
        executed++
      },
      failed
    })

    const connection: SqlConnection.Connection = {
      execute: (sql, params, transformRows) =>
        transformRows === undefined ? run(sql, params, false) : Effect.map(run(sql, params, false), transformRows),
      executeRaw: (sql, params) => run(sql, params, true),
      executeValues: (sql, params) =>
        Effect.try({
          try: () => {
            const statement = prepare(sql)
            if (!statement.reader) {
              statement.run(...params)
              return []
            }
            statement.raw(true)
            try {
              return statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
            } finally {
              statement.raw(false)
            }
          },
          catch: failed
        }),
      executeUnprepared: (sql, params, transformRows) =>
        Effect.try({
          try: () => {
            executed++
            const statement = db.prepare(sql)
            const rows = statement.reader ? (statement.all(...params) as ReadonlyArray<any>) : (statement.run(...params), [])
            return transformRows === undefined ? rows : transformRows(rows)
          },
          catch: failed
        }),
      executeStream: () => Effect.dieMessage("executeStream is not supported") as never
    }

    const transactions = yield* makeTransactions({ db, connection, prepare, failed })
    let dataVersion: Database.Statement | undefined

    const direct = <A>(
      statement: Statement.Statement<unknown>,
      execute: (prepared: Database.Statement, params: ReadonlyArray<unknown>) => A,
      kind: "read" | "write"
    ) =>
      Effect.withFiberRuntime<A, SqlError.SqlError>((fiber) => {
        const [text, params] = statement.compile()
        const reader = Context.getOption(fiber.currentContext, CurrentSnapshot)
        if (reader._tag === "Some") return Effect.try({ try: () => execute(reader.value.prepare(text), params), catch: failed })
        const run = Effect.try({ try: () => execute(prepare(text), params), catch: failed })
        // the check and the statement run in this one synchronous step: no other fiber can begin
        // a transaction in between
        if (!transactions.open() || Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)._tag === "Some") {
          return run
        }
        if (kind === "read" && !inMemory(options.filename)) return readers.readBeside(text, params, execute)
        return transactions.semaphore.withPermits(1)(run)
      })
    const read = <A>(statement: Statement.Statement<unknown>) =>
      direct(statement, (prepared, params) => prepared.all(...params) as ReadonlyArray<A>, "read")

    const client = yield* SqlClient.make({
      acquirer: transactions.acquirer,
      transactionAcquirer: transactions.transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      beginTransaction: "BEGIN IMMEDIATE",
      spanAttributes: [["db.system.name", "sqlite"]]
    })

    // `@effect/sql`'s own, for a transaction inside another (a savepoint), before it is replaced below
    const nested = client.withTransaction
    const withTransaction = transactions.transaction("write", nested)

    const sqlite: SqliteClient.SqliteClient = Object.assign(client, {
      withTransaction,
      [SqliteClient.TypeId]: SqliteClient.TypeId,
      config: { filename: options.filename },
      export: Effect.try({ try: () => db.serialize() as Uint8Array, catch: failed }),
      backup: (destination: string) =>
        Effect.tryPromise({
          try: () => db.backup(destination),
          catch: (cause) => new SqlError.SqlError({ cause, message: "Failed to back up the database" })
        }),
      loadExtension: (path: string) => Effect.try({ try: () => void db.loadExtension(path), catch: failed })
    }) as unknown as SqliteClient.SqliteClient
    const directSql = withSchemas({
      rows: read,
      first: <A>(statement: Statement.Statement<unknown>) => Effect.map(read<A>(statement), (rows) => rows[0]),
      run: (statement) => direct(statement, (prepared, params) => void prepared.run(...params), "write"),
      insert: <Id extends number>(statement: Statement.Statement<unknown>) =>
        direct(statement, (prepared, params) => (prepared.get(...params) as { readonly id: Id }).id, "write"),
      snapshot: readers.snapshot,
      snapshotCapacity: MAX_SNAPSHOTS,
      readTransaction: transactions.transaction("read", nested),
      open: sqliteOpen({ connection, begin: (restore) => transactions.begin("write", restore), end: transactions.end }),
      externalVersion: () => (dataVersion ??= db.prepare("PRAGMA data_version").pluck()).get() as number,
      writing: transactions.open,
      executed: () => executed
    })
    return { sqlite, directSql }
  })

export const layer = (options: Options) =>
  Layer.scopedContext(
    Effect.map(make(options), ({ directSql, sqlite }) =>
      Context.make(SqliteClient.SqliteClient, sqlite).pipe(
        Context.add(SqlClient.SqlClient, sqlite),
        Context.add(DirectSql, directSql)
      ))
  ).pipe(Layer.provide(Reactivity.layer))
