/**
 * The database, on the engine the configuration names (CONTRACT §15): PostgreSQL when
 * `DATABASE_URL` is set, with the migrations in `migrations/pg/`; else the embedded SQLite file at
 * `DATABASE_PATH` in WAL mode with foreign keys on, with the migrations in `migrations/`. Both sets
 * are numbered the same and produce the same logical schema (test/repo/schema-engines.test.ts); they
 * are applied at start by the `@effect/sql` Migrator. On PostgreSQL, instances starting together
 * on one database migrate it one at a time under an advisory lock (`runPgMigrations`), so the
 * first migrates it and the others find it done (src/Db/PostgresLive.ts). PostgreSQL's client
 * (`pg`, `@effect/sql-pg`) is loaded only when `DATABASE_URL` names it: the embedded default starts
 * without reading it.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlError from "@effect/sql/SqlError"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppConfig } from "../Config/AppConfig.js"
import * as Sqlite from "./Sqlite.js"
import { migrationsDirectory, pgMigrationsDirectory } from "../Paths.js"

export { migrationsDirectory, pgMigrationsDirectory }

const ensureDirectory = Effect.gen(function*() {
  const { databasePath } = yield* AppConfig
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  yield* fs.makeDirectory(path.dirname(path.resolve(databasePath)), { recursive: true })
}).pipe(Effect.mapError((cause) => new SqlError.SqlError({ cause, message: "Failed to create the database folder" })))

/** The migrations, applied at start; on close, SQLite's write-ahead log is checkpointed. */
const SqliteSchema = Layer.scopedDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* SqliteMigrator.run({ loader: SqliteMigrator.fromFileSystem(migrationsDirectory) })
  // Closing: fold the write-ahead log back into the database file before the connection closes.
  yield* Effect.addFinalizer(() => Effect.ignore(sql`PRAGMA wal_checkpoint(TRUNCATE)`))
}).pipe(Effect.orDie))

export const SqlLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { databasePath, databasePool, databaseUrl } = yield* AppConfig
    if (Option.isSome(databaseUrl)) {
      const { postgresLayer } = yield* Effect.promise(() => import("./PostgresLive.js"))
      return postgresLayer({
        url: databaseUrl.value,
        maxConnections: databasePool.size,
        acquireTimeout: databasePool.acquireTimeout,
        mode: databasePool.mode
      })
    }
    yield* ensureDirectory
    return SqliteSchema.pipe(Layer.provideMerge(Sqlite.layer({ filename: databasePath })))
  })
).pipe(Layer.provide(NodeContext.layer))
