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
 * runs a streamed answer's reads on read-only connections of their own (see there).
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
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { DirectSql, withSchemas } from "./DirectSql.js"
import { sqliteOpen } from "./OpenTransaction.js"

/**
 * Statements on the hot path. A `sql` statement normally runs through the client's machinery (a
 * permit of the connection's semaphore, a span, the statement cache) at a cost of tens of Effect
 * operations per statement, which adds up: a guest-list batch runs thousands. `DirectSql` runs the
 * compiled statement at once when that is safe: when no transaction holds the connection (a
 * statement outside a transaction commits on its own), or when the calling fiber is the one that
 * holds it (a statement of that transaction). Otherwise it waits for the connection like any
 * statement. The tables are STRICT, so column types are guaranteed.
 */

const STATEMENT_CACHE = 1_000

/**
 * Snapshots open at once (`DirectSql.snapshotCapacity`: Http/StreamSlots.ts holds the others back).
 * Each costs a connection with its own page cache (`SNAPSHOT_CACHE_KIB`) and its answer's batch in
 * flight, 6-8 MB of RSS in all with guest lists: four keep the server under its 200 MB while
 * answering other requests, and more would not go faster on two cores.
 */
const MAX_SNAPSHOTS = 4
const SNAPSHOT_CACHE_KIB = 2_048

/** A read-only connection serving one snapshot at a time, with its own prepared statements. */
interface Reader {
  readonly db: Database.Database
  readonly prepare: (sql: string) => Database.Statement
}

/** The snapshot the current fiber reads from, if any (provided by `DirectSql.snapshot`). */
class CurrentSnapshot extends Context.Tag("Convene/Sqlite/CurrentSnapshot")<CurrentSnapshot, Reader>() {}

const inMemory = (filename: string) => filename === "" || filename === ":memory:" || filename.startsWith("file::memory:")

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

    // Snapshots: a pool of read-only connections, opened on first use and kept for the next. In WAL
    // mode a reader sees the database as of its transaction's first read while the connection
    // above goes on committing. The trade-off: a checkpoint cannot move past the oldest snapshot
    // still open, so while a long answer is read (a slow client), the write-ahead log grows by what
    // is written meanwhile, and is folded back by the first checkpoint after it ends.
    const idleReaders: Array<Reader> = []
    let closing = false
    const openReader = (): Reader => {
      const reader = new Database(options.filename, { readonly: true, fileMustExist: true })
      try {
        reader.pragma("busy_timeout = 5000")
        reader.pragma(`cache_size = -${SNAPSHOT_CACHE_KIB}`)
      } catch (error) {
        reader.close()
        throw error
      }
      const cache = new Map<string, Database.Statement>()
      return {
        db: reader,
        prepare: (sql) => {
          executed++
          let statement = cache.get(sql)
          if (statement === undefined) {
            statement = reader.prepare(sql)
            cache.set(sql, statement)
          }
          return statement
        }
      }
    }
    const acquireReader = Effect.acquireRelease(
      Effect.try({
        try: () => {
          const reader = idleReaders.pop() ?? openReader()
          try {
            // deferred: the snapshot is taken by the first read
            reader.db.exec("BEGIN")
          } catch (error) {
            reader.db.close()
            throw error
          }
          return reader
        },
        catch: (cause) => new SqlError.SqlError({ cause, message: "Failed to open a read snapshot" })
      }),
      (reader) =>
        Effect.sync(() => {
          try {
            if (reader.db.inTransaction) reader.db.exec("ROLLBACK")
            if (closing) reader.db.close()
            else idleReaders.push(reader)
          } catch {
            reader.db.close()
          }
        })
    )
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closing = true
        for (const reader of idleReaders.splice(0)) reader.db.close()
      })
    )
    const snapshot = <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, E | SqlError.SqlError, R> =>
      inMemory(options.filename)
        // a private in-memory database has no second connection: reads stay on the one above
        ? stream
        : Stream.unwrapScoped(Effect.map(acquireReader, (reader) => Stream.provideService(stream, CurrentSnapshot, reader)))

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

    // One connection: a statement outside a transaction waits while a transaction holds it.
    // `transactionOpen` covers BEGIN to COMMIT or ROLLBACK: it is set once the permit is taken
    // and cleared when the transaction's scope closes, after the last statement.
    const semaphore = yield* Effect.makeSemaphore(1)
    let transactionOpen = false
    let dataVersion: Database.Statement | undefined
    const acquirer = semaphore.withPermits(1)(Effect.succeed(connection))
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) =>
            Effect.zipRight(
              Effect.sync(() => {
                transactionOpen = true
              }),
              Scope.addFinalizer(
                scope,
                Effect.zipRight(
                  Effect.sync(() => {
                    transactionOpen = false
                  }),
                  semaphore.release(1)
                )
              )
            ))
        ),
        connection
      )
    )

    /**
     * A read while another fiber's write transaction holds the connection (a CSV import, a guest
     * batch): instead of waiting for its commit, it runs at once on an idle read-only connection,
     * outside any transaction, so it sees what is committed, as it would have a moment before the
     * transaction began. It runs in one synchronous step, so one spare connection serves them all.
     */
    const readBeside = <A>(text: string, params: ReadonlyArray<unknown>, execute: (prepared: Database.Statement, params: ReadonlyArray<unknown>) => A) =>
      Effect.try({
        try: () => {
          const reader = idleReaders.pop() ?? openReader()
          try {
            return execute(reader.prepare(text), params)
          } finally {
            idleReaders.push(reader)
          }
        },
        catch: failed
      })

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
        if (!transactionOpen || Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)._tag === "Some") {
          return run
        }
        if (kind === "read" && !inMemory(options.filename)) return readBeside(text, params, execute)
        return semaphore.withPermits(1)(run)
      })
    const read = <A>(statement: Statement.Statement<unknown>) =>
      direct(statement, (prepared, params) => prepared.all(...params) as ReadonlyArray<A>, "read")

    const client = yield* SqlClient.make({
      acquirer,
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      beginTransaction: "BEGIN IMMEDIATE",
      spanAttributes: [["db.system.name", "sqlite"]]
    })

    /**
     * A write transaction in a few steps instead of `@effect/sql`'s general path (a span, a scope
     * and an acquired connection around every transaction: bench/RESULTS.md, issue 18), with the
     * same rules: the connection's permit is awaited (interruptibly), BEGIN IMMEDIATE, the effect
     * with the connection as its `TransactionConnection`, then COMMIT on success and ROLLBACK
     * otherwise, and the permit given back whatever happens. A transaction inside another one is
     * `@effect/sql`'s savepoint, as before.
     *
     * A read transaction (`DirectSql.readTransaction`) is the same with a deferred BEGIN, which
     * takes no lock on the file until something writes (nothing should), so that another process
     * (the CLI) may write meanwhile; inside a transaction or a snapshot already, its effect just
     * runs there. It holds the one connection as any transaction does, which costs nothing while
     * its reads run (they are synchronous), and reads of other fibers go on beside it.
     */
    const nested = client.withTransaction
    const control = (text: string) => {
      try {
        prepare(text).run()
        return undefined
      } catch (cause) {
        return failed(cause)
      }
    }
    /** Takes the connection (waiting through `restore`, interruptibly) and begins a transaction; gives it back if BEGIN fails. */
    const begin = (kind: "read" | "write", restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>) =>
      Effect.flatMap(restore(semaphore.take(1)), () => {
        transactionOpen = true
        const failure = control(kind === "write" ? "BEGIN IMMEDIATE" : "BEGIN")
        if (failure === undefined) return Effect.void
        transactionOpen = false
        return Effect.zipRight(semaphore.release(1), Effect.fail(failure))
      })
    /**
     * Ends the transaction when called: COMMIT, else ROLLBACK (a COMMIT that fails leaves the
     * transaction open: it is rolled back). The effect gives the connection back and answers the failure.
     */
    const end = (commit: boolean): Effect.Effect<void, SqlError.SqlError> => {
      const failure = control(commit ? "COMMIT" : "ROLLBACK")
      if (db.inTransaction) control("ROLLBACK")
      transactionOpen = false
      return Effect.zipRight(semaphore.release(1), failure === undefined ? Effect.void : Effect.fail(failure))
    }
    const transaction = (kind: "read" | "write") =>
    <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.withFiberRuntime<A, E | SqlError.SqlError, R>((fiber) => {
          const context = fiber.currentContext
          if (kind === "read") {
            if (
              Context.getOption(context, SqlClient.TransactionConnection)._tag === "Some" ||
              Context.getOption(context, CurrentSnapshot)._tag === "Some"
            ) return restore(effect)
          } else if (Context.getOption(context, SqlClient.TransactionConnection)._tag === "Some") return nested(restore(effect))
          return Effect.flatMap(begin(kind, restore), () =>
            Effect.flatMap(
              Effect.exit(Effect.locally(
                restore(effect),
                FiberRef.currentContext,
                Context.add(context, SqlClient.TransactionConnection, [connection, 0] as const)
              )),
              // a COMMIT that fails is a defect
              (exit) => Effect.zipRight(Effect.orDie(end(Exit.isSuccess(exit))), exit)
            ))
        })
      )
    const withTransaction = transaction("write")

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
      snapshot,
      snapshotCapacity: MAX_SNAPSHOTS,
      readTransaction: transaction("read"),
      open: sqliteOpen({ connection, begin: (restore) => begin("write", restore), end }),
      externalVersion: () => (dataVersion ??= db.prepare("PRAGMA data_version").pluck()).get() as number,
      writing: () => transactionOpen,
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
