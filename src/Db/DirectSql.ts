/**
 * The statement path of the repositories' hot reads and writes, on either engine (Db/Sqlite.ts,
 * Db/Postgres.ts). Statements are built with the ambient `SqlClient`'s `sql` tag, so they compile
 * for the engine in use. Rows are decoded by the schema the caller names (`rows`, `first`:
 * Rows.ts); `unchecked` gives them as the engine does, typed by the caller and checked by nothing,
 * for the few hot reads where decoding was measured to cost (each says so beside its call).
 */
import type * as SqlError from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { OpenTransaction } from "./OpenTransaction.js"
import { decodedReads } from "./Rows.js"

/** Reads whose rows come as the engine gives them: typed by the caller, checked by nothing. */
export interface UncheckedReads {
  readonly rows: <A = unknown>(statement: Statement.Statement<unknown>) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
  readonly first: <A = unknown>(statement: Statement.Statement<unknown>) => Effect.Effect<A | undefined, SqlError.SqlError>
}

/** Reads whose rows are decoded by a schema. */
export interface DecodedReads {
  /**
   * The rows of a statement, each decoded by `schema` (columns it does not name are left out); a
   * row it refuses is a defect that names the statement and the mismatch (Rows.ts).
   */
  readonly rows: <A, I>(
    schema: Schema.Schema<A, I, never>,
    statement: Statement.Statement<unknown>
  ) => Effect.Effect<ReadonlyArray<A>, SqlError.SqlError>
  /** The first row of a statement, decoded as `rows` decodes them; `undefined` when there is none. */
  readonly first: <A, I>(
    schema: Schema.Schema<A, I, never>,
    statement: Statement.Statement<unknown>
  ) => Effect.Effect<A | undefined, SqlError.SqlError>
}

export interface DirectSqlShape extends DecodedReads, Omit<EngineSql, "rows" | "first"> {
  /** Rows as the engine gives them: only where decoding was measured to cost, with the measure beside the call. */
  readonly unchecked: UncheckedReads
}

/** What each engine's client implements (Sqlite.ts, Postgres.ts); `withSchemas` makes it a `DirectSqlShape`. */
export interface EngineSql extends UncheckedReads {
  /** A write (INSERT, UPDATE, DELETE) answering nothing. */
  readonly run: (statement: Statement.Statement<unknown>) => Effect.Effect<void, SqlError.SqlError>
  /** An `INSERT … RETURNING id` of one row; resolves to that id (a row id type of Domain/RowIds.ts, named by the caller). */
  readonly insert: <Id extends number = number>(statement: Statement.Statement<unknown>) => Effect.Effect<Id, SqlError.SqlError>
  /**
   * Runs the reads of a stream (its `rows` and `first`) on one consistent, read-only snapshot of
   * the database, taken at its first read and held until the stream ends, fails or is interrupted:
   * an answer read in many batches then never mixes states, and writers go on meanwhile (neither
   * side waits for the other). Writes inside it fail. SQLite: a read transaction on a read-only
   * connection of its own; PostgreSQL: a `REPEATABLE READ READ ONLY` transaction on a pooled
   * connection reserved for the stream.
   */
  readonly snapshot: <A, E, R>(stream: Stream.Stream<A, E, R>) => Stream.Stream<A, E | SqlError.SqlError, R>
  /**
   * How many snapshots the server holds at once without harm to its other work. Nothing here
   * counts them: every streamed answer takes a share of them first (Http/StreamSlots.ts, which
   * also keeps one organization to half of them).
   */
  readonly snapshotCapacity: number
  /**
   * Runs the statements of `effect` (its `sql` statements and `DirectSql` reads alike) as one
   * read-only transaction, for reads that must see one state of the database: unlike
   * `sql.withTransaction`, it takes no write lock, so it neither waits for writers nor holds them
   * up. Nothing inside it may write. Inside a transaction already, `effect` simply runs in it.
   * SQLite: a deferred transaction, which locks nothing on the file while it only reads; PostgreSQL:
   * a `REPEATABLE READ READ ONLY` transaction on a pooled connection reserved for it, without the
   * advisory write lock (a write inside it fails).
   */
  readonly readTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError.SqlError, R>
  /**
   * Begins a write transaction that is ended later, by whoever holds it (`commit`, `rollback`),
   * rather than around one effect, holding the lock named `lock` until it ends; `undefined`, at
   * once, when a live transaction holds that lock already (here or, on PostgreSQL, on another
   * instance). Rolled back when the scope closes unless ended before. See OpenTransaction.ts.
   */
  readonly open: (lock: string) => Effect.Effect<OpenTransaction | undefined, SqlError.SqlError, Scope.Scope>
  /**
   * A number that moves whenever another process commits to the database, for caches of rows
   * this process writes itself (and so knows when to forget): SQLite's `PRAGMA data_version`
   * (the CLI on the same file). `undefined` on PostgreSQL, where other instances write the same
   * rows: nothing read there may be remembered.
   */
  readonly externalVersion: () => number | undefined
  /** Whether a write transaction holds the connection now (reads beside it see the state before it). */
  readonly writing: () => boolean
  /** Statements executed so far, by any path, snapshots included (for tests that bound queries). */
  readonly executed: () => number
}

export class DirectSql extends Context.Tag("Convene/DirectSql")<DirectSql, DirectSqlShape>() {}

/** An engine's statement path with its reads decoded by schemas, and its unchecked reads kept apart. */
export const withSchemas = (engine: EngineSql): DirectSqlShape => ({
  ...engine,
  ...decodedReads(engine),
  unchecked: { rows: engine.rows, first: engine.first }
})
