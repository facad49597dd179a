/**
 * The SQLite client's read-only connections (Sqlite.ts): a pool of them, opened on first use and
 * kept for the next, for two things.
 * - Snapshots (`DirectSql.snapshot`): a streamed answer's reads run on a connection of their own
 *   inside a read transaction. In WAL mode a reader sees the database as of its transaction's
 *   first read while the writing connection goes on committing. The trade-off: a checkpoint cannot
 *   move past the oldest snapshot still open, so while a long answer is read (a slow client), the
 *   write-ahead log grows by what is written meanwhile, and is folded back by the first checkpoint
 *   after it ends.
 * - Reads beside a write transaction (`readBeside`): a read while another fiber's write transaction
 *   holds the writing connection (a CSV import, a guest batch) runs at once on an idle reader,
 *   outside any transaction, instead of waiting for the commit.
 */
import * as SqlError from "@effect/sql/SqlError"
import Database from "better-sqlite3"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * Snapshots open at once (`DirectSql.snapshotCapacity`: Http/StreamSlots.ts holds the others back).
 * Each costs a connection with its own page cache (`SNAPSHOT_CACHE_KIB`) and its answer's batch in
 * flight, 6-8 MB of RSS in all with guest lists: four keep the server under its 200 MB while
 * answering other requests, and more would not go faster on two cores.
 */
export const MAX_SNAPSHOTS = 4
const SNAPSHOT_CACHE_KIB = 2_048

/** A read-only connection serving one snapshot at a time, with its own prepared statements. */
export interface Reader {
  readonly db: Database.Database
  readonly prepare: (sql: string) => Database.Statement
}

/** The snapshot the current fiber reads from, if any (provided by `DirectSql.snapshot`). */
export class CurrentSnapshot extends Context.Tag("Convene/Sqlite/CurrentSnapshot")<CurrentSnapshot, Reader>() {}

/** Whether a file name opens a private in-memory database, which has no second connection. */
export const inMemory = (filename: string) => filename === "" || filename === ":memory:" || filename.startsWith("file::memory:")

/**
 * The readers of the database file `filename`, closed with the scope. `executed` counts each
 * statement they prepare to run (`DirectSql.executed`); `failed` makes a driver's error a `SqlError`.
 */
export const makeReaders = (options: {
  readonly filename: string
  readonly executed: () => void
  readonly failed: (cause: unknown) => SqlError.SqlError
}): Effect.Effect<{
  readonly snapshot: <A, E, R>(stream: Stream.Stream<A, E, R>) => Stream.Stream<A, E | SqlError.SqlError, R>
  readonly readBeside: <A>(
    text: string,
    params: ReadonlyArray<unknown>,
    execute: (prepared: Database.Statement, params: ReadonlyArray<unknown>) => A
  ) => Effect.Effect<A, SqlError.SqlError>
}, never, Scope.Scope> =>
  Effect.gen(function*() {
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
          options.executed()
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
        // a private in-memory database has no second connection: reads stay on the writing one
        ? stream
        : Stream.unwrapScoped(Effect.map(acquireReader, (reader) => Stream.provideService(stream, CurrentSnapshot, reader)))

    /**
     * Runs a read at once on an idle reader, outside any transaction, so it sees what is
     * committed, as it would have a moment before the writer's transaction began. It runs in one
     * synchronous step, so one spare connection serves them all.
     */
    const readBeside = <A>(
      text: string,
      params: ReadonlyArray<unknown>,
      execute: (prepared: Database.Statement, params: ReadonlyArray<unknown>) => A
    ) =>
      Effect.try({
        try: () => {
          const reader = idleReaders.pop() ?? openReader()
          try {
            return execute(reader.prepare(text), params)
          } finally {
            idleReaders.push(reader)
          }
        },
        catch: options.failed
      })

    return { snapshot, readBeside }
  })
