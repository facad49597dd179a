/**
 * The embedded database: one SQLite file in WAL mode with foreign keys on, and the numbered
 * migrations in `migrations/` applied at start by the `@effect/sql` Migrator.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlError from "@effect/sql/SqlError"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { fileURLToPath } from "node:url"
import { AppConfig } from "./Config/AppConfig.js"
import * as Sqlite from "./Db/Sqlite.js"

/** `migrations/` beside `src/` (and `dist/migrations/` beside `dist/src/` once compiled). */
export const migrationsDirectory = fileURLToPath(new URL("../migrations", import.meta.url))

const ensureDirectory = Effect.gen(function*() {
  const { databasePath } = yield* AppConfig
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  yield* fs.makeDirectory(path.dirname(path.resolve(databasePath)), { recursive: true })
}).pipe(Effect.mapError((cause) => new SqlError.SqlError({ cause, message: "Failed to create the database folder" })))

const ClientLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { databasePath } = yield* AppConfig
    yield* ensureDirectory
    return Sqlite.layer({ filename: databasePath })
  })
)

/** The migrations, applied at start; on close, the write-ahead log is checkpointed. */
const SchemaLive = Layer.scopedDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* SqliteMigrator.run({ loader: SqliteMigrator.fromFileSystem(migrationsDirectory) })
  // Closing: fold the write-ahead log back into the database file before the connection closes.
  yield* Effect.addFinalizer(() => Effect.ignore(sql`PRAGMA wal_checkpoint(TRUNCATE)`))
}).pipe(Effect.orDie))

export const SqlLive = SchemaLive.pipe(
  Layer.provideMerge(ClientLive),
  Layer.provide(NodeContext.layer)
)
