/**
 * Online backups: SQLite's backup API copies a consistent snapshot of the live database, page by
 * page, while the server keeps running; the copy is then checked with `PRAGMA integrity_check`.
 */
import { Command, Options } from "@effect/cli"
import { FileSystem, Path } from "@effect/platform"
import { Reactivity } from "@effect/experimental"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Clock, Console, Effect } from "effect"

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
      const sql = yield* SqliteClient.SqliteClient
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
