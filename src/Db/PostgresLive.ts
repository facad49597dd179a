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

/**
 * PostgreSQL's migrations, one process at a time. The Migrator locks its table while it runs, but
 * creates that table first, outside any lock: two processes starting at once on an empty database
 * both find it missing and both create it, and one of them fails. So the whole run holds a
 * session advisory lock, taken on a connection reserved for it and released with it (PostgreSQL
 * releases it too if the process dies meanwhile); the others wait for it, then find nothing to do.
 */
export const runPgMigrations = Effect.scoped(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const connection = yield* sql.reserve
  yield* connection.executeRaw(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`, [])
  yield* Effect.addFinalizer(() => Effect.ignore(connection.executeRaw(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`, [])))
  return yield* PgMigrator.run({ loader: PgMigrator.fromFileSystem(pgMigrationsDirectory) })
}))

const PgSchema = Layer.effectDiscard(runPgMigrations.pipe(Effect.orDie))

/** The client and its migrations, as src/Db/Sql.ts's `SqlLive` gives them on PostgreSQL. */
export const postgresLayer = (options: Postgres.Options) => PgSchema.pipe(Layer.provideMerge(Postgres.layer(options)))
