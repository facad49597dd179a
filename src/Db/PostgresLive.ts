/**
 * PostgreSQL as the service's database (CONTRACT §15): the pooled client (Postgres.ts) with its
 * migrations applied at start. Loaded by src/Db/Sql.ts only when `DATABASE_URL` is set, so the
 * embedded SQLite default never reads `pg` or `@effect/sql-pg`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { pgMigrationsDirectory } from "../Paths.js"
import * as Postgres from "./Postgres.js"

/** The advisory lock held around PostgreSQL's migrations ("CONVMIG" in ASCII, one bigint, apart from the write lock). */
export const MIGRATION_LOCK = 0x434f4e564d4947

/** `@effect/sql`'s table of applied migrations, as its Migrator creates it on PostgreSQL. */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS effect_sql_migrations (
  migration_id integer primary key,
  created_at timestamp with time zone not null default now(),
  name text not null
)`

/**
 * PostgreSQL's migrations, one process at a time. The Migrator locks its table while it runs, but
 * creates that table first, outside any lock: two processes starting at once on an empty database
 * both find it missing and both create it, and one of them fails. So the whole run is one
 * transaction that first takes a transaction-scoped advisory lock (after the write lock every
 * write transaction takes: Postgres.ts); the others wait for it, then find nothing to do. The lock
 * goes with the transaction however it ends, the process's death included, and it is the
 * transaction's, not a session's: behind a pooler in transaction mode (`DATABASE_POOL_MODE`), a
 * session lock taken on one statement's server connection would be released, or not, on another's.
 * The Migrator's own transaction runs inside it, as a savepoint.
 */
export const runPgMigrations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
    // the Migrator's table, as the Migrator makes it: it looks for it with a statement that fails
    // when it is missing, which would end this transaction
    yield* sql.unsafe(MIGRATIONS_TABLE)
    return yield* PgMigrator.run({ loader: PgMigrator.fromFileSystem(pgMigrationsDirectory) })
  }))
})

const PgSchema = Layer.effectDiscard(runPgMigrations.pipe(Effect.orDie))

/** The client and its migrations, as src/Db/Sql.ts's `SqlLive` gives them on PostgreSQL. */
export const postgresLayer = (options: Postgres.Options) => PgSchema.pipe(Layer.provideMerge(Postgres.layer(options)))
