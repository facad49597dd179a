/**
 * The embedded database: one SQLite file in WAL mode with foreign keys on, and the numbered
 * migrations in `migrations/` applied at start by the `@effect/sql` Migrator.
 */
import { FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import { Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"
import { AppConfig } from "./Config/AppConfig.js"

/** `migrations/` beside `src/` (and `dist/migrations/` beside `dist/src/` once compiled). */
export const migrationsDirectory = fileURLToPath(new URL("../migrations", import.meta.url))

const ensureDirectory = Effect.gen(function*() {
  const { databasePath } = yield* AppConfig
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  yield* fs.makeDirectory(path.dirname(path.resolve(databasePath)), { recursive: true })
}).pipe(Effect.orDie)

const ClientLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { databasePath } = yield* AppConfig
    yield* ensureDirectory
    return SqliteClient.layer({ filename: databasePath })
  })
)

/**
 * Connection settings, then the migrations. There is one connection per process (better-sqlite3
 * is synchronous), so the settings hold for every statement: durable commits, a busy timeout for
 * a second process writing (the admin CLI beside the server), and a 32 MiB page cache.
 */
const SchemaLive = Layer.scopedDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`PRAGMA foreign_keys = ON`
  yield* sql`PRAGMA busy_timeout = 5000`
  yield* sql`PRAGMA synchronous = FULL`
  yield* sql`PRAGMA cache_size = -32768`
  yield* sql`PRAGMA temp_store = MEMORY`
  yield* SqliteMigrator.run({ loader: SqliteMigrator.fromFileSystem(migrationsDirectory) })
  // Closing: fold the write-ahead log back into the database file before the connection closes.
  yield* Effect.addFinalizer(() => Effect.ignore(sql`PRAGMA wal_checkpoint(TRUNCATE)`))
}).pipe(Effect.orDie))

export const SqlLive = SchemaLive.pipe(
  Layer.provideMerge(ClientLive),
  Layer.provide(NodeContext.layer)
)
