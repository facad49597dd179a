/**
 * Online backups: SQLite's backup API copies a consistent snapshot of the live database, page by
 * page, while the server keeps running; the copy is then checked with `PRAGMA integrity_check`.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
export const backup = Command.make(
  "backup",
  { to: Options.text("to").pipe(Options.withDescription("The backup file to write (must not exist)")) },
  ({ to }) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const destination = path.resolve(to)
      if (yield* fs.exists(destination)) return yield* Effect.fail(new Error(`${destination} exists; choose a new file`))
      yield* fs.makeDirectory(path.dirname(destination), { recursive: true })
      const sqlite = yield* Effect.serviceOption(SqliteClient.SqliteClient)
      if (Option.isNone(sqlite)) {
        return yield* Effect.fail(new Error("DATABASE_URL is set: back up PostgreSQL with its own tools (pg_dump); this command copies the SQLite database"))
      }
      const sql = sqlite.value
      const started = yield* Clock.currentTimeMillis
      const result = yield* sql.backup(destination)
      // The copy is a plain single file (rollback journal); the server puts it back in WAL mode when it opens it.
      const check = yield* Effect.scoped(Effect.gen(function*() {
        const copy = yield* SqliteClient.make({ filename: destination, disableWAL: true })
        yield* copy`PRAGMA journal_mode = DELETE`
        return yield* copy`PRAGMA integrity_check`
      }).pipe(Effect.provide(Reactivity.layer)))
      const verdict = String(check[0]?.["integrity_check"] ?? "unknown")
      if (verdict !== "ok") return yield* Effect.fail(new Error(`backup written to ${destination} but integrity_check says: ${verdict}`))
      const { size } = yield* fs.stat(destination)
      yield* Console.log(
        `Backed up ${result.totalPages} pages (${Number(size)} bytes) to ${destination} in ${(yield* Clock.currentTimeMillis) - started} ms; integrity_check: ok`
      )
    })
).pipe(Command.withDescription("Write a consistent online backup of the live database"))
