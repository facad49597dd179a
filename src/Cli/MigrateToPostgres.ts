/**
 * `convene migrate-to-postgres --to <postgres://...>`: moves the data of the SQLite database
 * (`DATABASE_PATH`, which may be in use by a running server) into an empty PostgreSQL database,
 * and verifies the copy.
 *
 * 1. A consistent snapshot of the live database is taken with SQLite's online backup (as
 *    `convene backup` does) into a temporary file; the server may go on writing meanwhile, but
 *    writes after the snapshot are not moved: stop the server first for a final move.
 * 2. The target must be empty (no table at all), or hold only the schema a previous run of this
 *    command made with no rows copied yet. Its schema is made by the PostgreSQL migrations
 *    (`migrations/pg`), which give the same logical schema as SQLite's (test/support/LogicalSchema/).
 * 3. Every table is copied in one PostgreSQL transaction, parents before children (foreign keys),
 *    in batches, ids kept (`OVERRIDING SYSTEM VALUE`; identity sequences then continue after the
 *    highest id), with the `attended_at` triggers off so that copied times stay as they were. The
 *    change feed's cursor key is copied too, so integrators' cursors stay valid. The SQLite
 *    full-text index is not copied: PostgreSQL searches persons through its trigram index; nor are
 *    the directory's per-block counts, which PostgreSQL's triggers keep as the persons are copied.
 * 4. Verification: for every table, the row count and an order-independent digest of every row's
 *    values are computed on both sides and must be equal; the command fails otherwise.
 * The URL, which may hold a password, is never printed.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import Database from "better-sqlite3"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { createHash } from "node:crypto"
import { runPgMigrations } from "../Db/PostgresLive.js"

/** Bind parameters per INSERT, at most (PostgreSQL allows 65,535). */
const PARAMETERS_PER_BATCH = 30_000
/**
 * Tables that are not data: the migrator's own, SQLite's full-text index and its shadow tables,
 * and the directory's per-block counts, which PostgreSQL's triggers count again from the persons
 * copied (migrations/pg/0019).
 */
const skipped = (table: string) =>
  table === "effect_sql_migrations" || table.startsWith("sqlite_") || table.startsWith("persons_search") || table === "persons_blocks"

interface Table {
  readonly name: string
  readonly columns: ReadonlyArray<string>
}

/** The data tables of the SQLite file, parents before children. */
const tablesOf = (db: Database.Database): ReadonlyArray<Table> => {
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>)
    .map((r) => r.name)
    .filter((name) => !skipped(name))
  const parents = new Map(names.map((name) => [
    name,
    new Set((db.prepare(`SELECT "table" AS parent FROM pragma_foreign_key_list(?)`).all(name) as Array<{ parent: string }>)
      .map((r) => r.parent)
      .filter((parent) => parent !== name))
  ]))
  const ordered: Array<string> = []
  const visit = (name: string, path: Set<string>) => {
    if (ordered.includes(name)) return
    if (path.has(name)) throw new Error(`foreign keys form a cycle through ${name}`)
    path.add(name)
    for (const parent of parents.get(name) ?? []) if (parents.has(parent)) visit(parent, path)
    path.delete(name)
    ordered.push(name)
  }
  for (const name of names) visit(name, new Set())
  return ordered.map((name) => ({
    name,
    columns: (db.prepare("SELECT name FROM pragma_table_info(?) ORDER BY cid").all(name) as Array<{ name: string }>).map((c) => c.name)
  }))
}

const quote = (identifier: string) => `"${identifier.replaceAll("\"", "\"\"")}"`

/** One value as text, the same on both engines (PostgreSQL answers bigint as text, bytea as a Buffer). */
const canonical = (value: unknown): string =>
  value === null || value === undefined
    ? "\u0000"
    : value instanceof Uint8Array
    ? `x${Buffer.from(value).toString("hex")}`
    : String(value)

/** Adds a row's digest to an order-independent sum (the first 8 bytes of its SHA-256, mod 2^64). */
const digestRow = (sum: bigint, row: Record<string, unknown>, columns: ReadonlyArray<string>): bigint => {
  const hash = createHash("sha256")
  for (const column of columns) hash.update(canonical(row[column])).update("\u0001")
  return (sum + hash.digest().readBigUInt64BE(0)) & 0xffff_ffff_ffff_ffffn
}

export const migrateToPostgres = Command.make(
  "migrate-to-postgres",
  {
    to: Options.redacted("to").pipe(
      Options.withDescription("The empty PostgreSQL database to move the data to: postgres://user:password@host:5432/database")
    )
  },
  ({ to }) =>
    Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const target = Redacted.value(to)
      if (!/^postgres(ql)?:\/\//.test(target)) return yield* Effect.fail(new Error("--to must be a postgres:// URL"))

      // 1. a consistent snapshot of the live database
      const directory = yield* fs.makeTempDirectoryScoped({ prefix: "convene-move-" })
      const snapshotFile = path.join(directory, "snapshot.db")
      const sqlite = yield* Effect.serviceOption(SqliteClient.SqliteClient)
      if (Option.isNone(sqlite)) {
        return yield* Effect.fail(new Error("DATABASE_URL is set: this command copies the SQLite database at DATABASE_PATH, so run it without DATABASE_URL"))
      }
      yield* sqlite.value.backup(snapshotFile)
      const source = yield* Effect.acquireRelease(
        Effect.sync(() => new Database(snapshotFile, { readonly: true })),
        (db) => Effect.sync(() => db.close())
      )
      const tables = tablesOf(source)

      // 2. the target: empty, then migrated
      const context = yield* Layer.build(PgClient.layer({ url: to, maxConnections: 2 })).pipe(
        Effect.mapError((error) => new Error(`cannot connect to the PostgreSQL database: ${error.message}`))
      )
      const pg = Context.get(context, PgClient.PgClient)
      const existing = (yield* pg<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)
        .map((r) => r.table_name)
      if (existing.length > 0) {
        const ours = existing.includes("effect_sql_migrations") && tables.every((t) => existing.includes(t.name))
        const rows = ours
          ? yield* Effect.forEach(tables.filter((t) => t.name !== "change_feed_key"), (t) =>
            Effect.map(pg.unsafe<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(t.name)}`), (r) => r[0]!.n))
          : [1]
        if (rows.some((n) => n > 0)) {
          return yield* Effect.fail(new Error("the PostgreSQL database is not empty: give an empty database (CREATE DATABASE ...)"))
        }
      }
      // under the service's migration lock, should an instance start on the database meanwhile
      yield* runPgMigrations.pipe(Effect.provide(context))
      const identityColumns = yield* pg<{ table_name: string; column_name: string }>`SELECT table_name, column_name
        FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'`
      const identities = new Set(identityColumns.map((r) => r.table_name))

      // 3. the copy, in one transaction
      const copied = new Map<string, number>()
      yield* Effect.gen(function*() {
        yield* pg`ALTER TABLE event_guests DISABLE TRIGGER USER`
        for (const table of tables) {
          // rows a migration seeded (the cursor key) give way to the copied ones
          yield* pg.unsafe(`DELETE FROM ${quote(table.name)}`)
          const columns = table.columns.map(quote).join(", ")
          const perBatch = Math.max(1, Math.floor(PARAMETERS_PER_BATCH / table.columns.length))
          const overriding = identities.has(table.name) ? " OVERRIDING SYSTEM VALUE" : ""
          const rows = source.prepare(`SELECT ${columns} FROM ${quote(table.name)}`).raw(true).iterate() as IterableIterator<Array<unknown>>
          let count = 0
          for (;;) {
            const batch: Array<Array<unknown>> = []
            for (let next = rows.next(); !next.done; next = rows.next()) {
              batch.push(next.value)
              if (batch.length === perBatch) break
            }
            if (batch.length === 0) break
            const params: Array<unknown> = []
            const tuples = batch.map((row) =>
              `(${row.map((value) => `$${params.push(value instanceof Uint8Array ? Buffer.from(value) : value)}`).join(", ")})`
            )
            yield* pg.unsafe(`INSERT INTO ${quote(table.name)} (${columns})${overriding} VALUES ${tuples.join(", ")}`, params as any)
            count += batch.length
            if (batch.length < perBatch) break
          }
          copied.set(table.name, count)
        }
        yield* pg`ALTER TABLE event_guests ENABLE TRIGGER USER`
        // identity sequences continue after the highest id copied
        for (const { column_name, table_name } of identityColumns) {
          yield* pg.unsafe(
            `SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(${quote(column_name)}) FROM ${quote(table_name)}), 1),
              (SELECT max(${quote(column_name)}) FROM ${quote(table_name)}) IS NOT NULL)`,
            [quote(table_name), column_name] as any
          )
        }
      }).pipe(pg.withTransaction)

      // 4. verification: counts and digests of every row, on both sides
      const lines: Array<string> = []
      let mismatches = 0
      for (const table of tables) {
        let sqliteSum = 0n
        let sqliteCount = 0
        for (const row of source.prepare(`SELECT * FROM ${quote(table.name)}`).iterate() as IterableIterator<Record<string, unknown>>) {
          sqliteSum = digestRow(sqliteSum, row, table.columns)
          sqliteCount++
        }
        const pgSide = yield* Stream.runFold(
          pg.unsafe<Record<string, unknown>>(`SELECT * FROM ${quote(table.name)}`).stream,
          { sum: 0n, count: 0 },
          (acc, row) => ({ sum: digestRow(acc.sum, row, table.columns), count: acc.count + 1 })
        )
        const same = pgSide.count === sqliteCount && pgSide.sum === sqliteSum
        if (!same) mismatches++
        lines.push(`${table.name.padEnd(26)} ${String(sqliteCount).padStart(9)} ${same ? "ok" : `DIFFERS (PostgreSQL has ${pgSide.count})`}`)
      }
      for (const line of lines) yield* Console.log(line)
      if (mismatches > 0) return yield* Effect.fail(new Error(`${mismatches} tables differ after the copy`))
      const total = [...copied.values()].reduce((a, b) => a + b, 0)
      yield* Console.log(
        `Moved ${total} rows in ${tables.length} tables to PostgreSQL in ${(yield* Clock.currentTimeMillis) - started} ms; ` +
          "every table verified (row count and contents)."
      )
    }).pipe(Effect.scoped)
).pipe(Command.withDescription("Copy the SQLite database into an empty PostgreSQL database and verify the copy"))
