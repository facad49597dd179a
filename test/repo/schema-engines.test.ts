/**
 * The two engines' migrations (`migrations/` for SQLite, `migrations/pg/` for PostgreSQL) produce
 * the same logical schema (test/support/LogicalSchema/): after all of them and after each numbered
 * step. The engine-specific objects exist on their side (SQLite's FTS5 n-gram tables, PostgreSQL's
 * trigram index and n-gram counts) and count the same persons, the `attended_at` triggers behave
 * alike on both, 0012 keeps the webhook deliveries' ids on both, and the comparison does report a
 * difference when there is one.
 *
 * SQLite: a fresh file migrated by the service's own `SqlLive` (or by the Migrator over the same
 * client, for a prefix of the steps). PostgreSQL: a real server (test/support/Postgres.ts), one
 * database per test, migrated by `PgMigrator`.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Migrator from "@effect/sql/Migrator/FileSystem"
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import * as SqliteMigrator from "@effect/sql-sqlite-node/SqliteMigrator"
import { Cause, Context, Effect, Exit, Layer } from "effect"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { AppConfig } from "../../src/Config/AppConfig.js"
import * as Sqlite from "../../src/Db/Sqlite.js"
import { diff, type LogicalSchema, read, type SchemaReport } from "../support/LogicalSchema/LogicalSchema.js"
import { migrationsDirectory, SqlLive } from "../../src/Db/Sql.js"
import { postgresAvailable, postgresServer, type PostgresServer } from "../support/Postgres.js"
import { configFrom, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

const pgMigrationsDirectory = fileURLToPath(new URL("../../migrations/pg", import.meta.url))
/** The highest migration number (numbers may be skipped: each helper of a change reserves its own). */
const STEPS = 28

class Postgres extends Context.Tag("test/Postgres")<Postgres, PostgresServer>() {}

/** The numbered migrations of `directory` up to `through`. */
const loader = (directory: string, through: number) =>
  Effect.map(Migrator.fromFileSystem(directory), (migrations) => migrations.filter(([id]) => id <= through))

/** Runs `effect` on a fresh SQLite file migrated by the service's own `SqlLive`. */
const onSqliteLive = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const dir = yield* temporaryDirectory
    // SQLite whichever engine the suite runs on (an empty DATABASE_URL counts as unset)
    const config = Layer.effect(AppConfig, configFrom({ ...testEnvironment(join(dir, "convene.db")), DATABASE_URL: "" }))
    return yield* Effect.provide(effect, SqlLive.pipe(Layer.provide(config)))
  })

/** Runs `effect` on a fresh SQLite file migrated through step `through` by the Migrator. */
const onSqlite = <A, E, R>(through: number, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const dir = yield* temporaryDirectory
    return yield* Effect.gen(function*() {
      yield* SqliteMigrator.run({ loader: loader(migrationsDirectory, through) })
      return yield* effect
    }).pipe(Effect.provide(Layer.merge(Sqlite.layer({ filename: join(dir, "convene.db") }), NodeContext.layer)))
  })

/** Runs `effect` on a fresh PostgreSQL database migrated through step `through`. */
const onPostgres = <A, E, R>(through: number, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const server = yield* Postgres
    const database = yield* server.createDatabase()
    return yield* Effect.gen(function*() {
      yield* PgMigrator.run({ loader: loader(pgMigrationsDirectory, through) })
      return yield* effect
    }).pipe(Effect.provide(Layer.merge(server.layer(database), NodeContext.layer)))
  })

const names = (report: SchemaReport, kind: string) =>
  report.engineSpecific.filter((object) => object.kind === kind).map((object) => object.table === undefined ? object.name : `${object.table}.${object.name}`)

/**
 * The attended_at triggers (0013), the same statements on either engine: the values attended_at
 * takes as a guest's attendance changes.
 */
const attendedAtScenario = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const id = (rows: ReadonlyArray<{ readonly id: unknown }>) => Number(rows[0]!.id)
  const organization = id(yield* sql<{ id: unknown }>`INSERT INTO organizations (slug, name, created_at)
    VALUES ('acme', 'Acme', '2026-01-01T00:00:00.000Z') RETURNING id`)
  const person = (n: number) =>
    Effect.map(
      sql<{ id: unknown }>`INSERT INTO persons (public_id, organization_id, first_name, last_name, email, email_key, name_key, created_at, updated_at)
        VALUES (${`p${n}`}, ${organization}, 'Ada', ${`Lovelace${n}`}, ${`ada${n}@example.org`}, ${`ada${n}@example.org`}, ${`ada lovelace${n}`},
                '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z') RETURNING id`,
      id
    )
  const event = id(yield* sql<{ id: unknown }>`INSERT INTO events (public_id, organization_id, name, primary_date, primary_date_utc, timezone, created_at, updated_at)
    VALUES ('e1', ${organization}, 'Gala', '2026-06-01T19:00:00.000Z', '2026-06-01T19:00:00.000Z', 'UTC', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')
    RETURNING id`)
  const attendedAt = (guest: number) =>
    Effect.map(sql<{ attended_at: string | null }>`SELECT attended_at FROM event_guests WHERE id = ${guest}`, (rows) => rows[0]!.attended_at)
  const seen: Record<string, string | null> = {}

  // inserted with attendance Attended: its updated_at
  const first = id(yield* sql<{ id: unknown }>`INSERT INTO event_guests (event_id, person_id, rsvp_status, attendance_status, created_at, updated_at)
    VALUES (${event}, ${yield* person(1)}, 'Going', 'Attended', '2026-02-01T10:00:00.000Z', '2026-02-01T10:00:00.000Z') RETURNING id`)
  seen["inserted Attended"] = yield* attendedAt(first)
  // inserted without attendance: none
  const second = id(yield* sql<{ id: unknown }>`INSERT INTO event_guests (event_id, person_id, rsvp_status, created_at, updated_at)
    VALUES (${event}, ${yield* person(2)}, 'Going', '2026-02-01T10:00:00.000Z', '2026-02-01T10:00:00.000Z') RETURNING id`)
  seen["inserted without attendance"] = yield* attendedAt(second)
  // checked in by an update that stamps updated_at: that time
  yield* sql`UPDATE event_guests SET attendance_status = 'Attended', updated_at = '2026-02-02T09:30:00.000Z' WHERE id = ${second}`
  seen["updated to Attended"] = yield* attendedAt(second)
  // an update that does not change the attendance leaves it
  yield* sql`UPDATE event_guests SET attendance_status = 'Attended', updated_at = '2026-02-03T00:00:00.000Z' WHERE id = ${second}`
  seen["updated, attendance unchanged"] = yield* attendedAt(second)
  // an update of other columns leaves it
  yield* sql`UPDATE event_guests SET rsvp_note = 'late', updated_at = '2026-02-04T00:00:00.000Z' WHERE id = ${second}`
  seen["other columns updated"] = yield* attendedAt(second)
  // No Show: cleared
  yield* sql`UPDATE event_guests SET attendance_status = 'No Show', updated_at = '2026-02-05T00:00:00.000Z' WHERE id = ${first}`
  seen["updated to No Show"] = yield* attendedAt(first)
  // attendance cleared
  yield* sql`UPDATE event_guests SET attendance_status = 'Attended', updated_at = '2026-02-06T00:00:00.000Z' WHERE id = ${first}`
  yield* sql`UPDATE event_guests SET attendance_status = NULL, updated_at = '2026-02-07T00:00:00.000Z' WHERE id = ${first}`
  seen["attendance cleared"] = yield* attendedAt(first)
  // checked in without a new updated_at: the statement's time, ISO-8601 UTC with milliseconds
  yield* sql`UPDATE event_guests SET attendance_status = 'Attended' WHERE id = ${first}`
  const stamped = yield* attendedAt(first)
  seen["Attended without a new updated_at"] = stamped !== null && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(stamped) &&
      Math.abs(Date.parse(stamped) - Date.now()) < 60_000
    ? "now"
    : stamped
  return seen
})

const expectedAttendedAt = {
  "inserted Attended": "2026-02-01T10:00:00.000Z",
  "inserted without attendance": null,
  "updated to Attended": "2026-02-02T09:30:00.000Z",
  "updated, attendance unchanged": "2026-02-02T09:30:00.000Z",
  "other columns updated": "2026-02-02T09:30:00.000Z",
  "updated to No Show": null,
  "attendance cleared": null,
  "Attended without a new updated_at": "now"
}

/** A webhook delivery written before 0012, and what became of it after. */
const deliveryBefore0012 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const id = (rows: ReadonlyArray<{ readonly id: unknown }>) => Number(rows[0]!.id)
  const organization = id(yield* sql<{ id: unknown }>`INSERT INTO organizations (slug, name, created_at) VALUES ('acme', 'Acme', 'x') RETURNING id`)
  const webhook = id(yield* sql<{ id: unknown }>`INSERT INTO webhooks (public_id, organization_id, url, type, secret, created_at)
    VALUES ('w1', ${organization}, 'https://example.org/hook', 'Event', 's', 'x') RETURNING id`)
  const message = id(yield* sql<{ id: unknown }>`INSERT INTO webhook_messages (public_id, organization_id, type, payload, created_at)
    VALUES ('m1', ${organization}, 'Event', '{}', 'x') RETURNING id`)
  const deliveries: Array<number> = []
  for (const [publicId, status] of [["d1", "delivered"], ["d2", "pending"], ["d3", "failed"]] as const) {
    deliveries.push(id(yield* sql<{ id: unknown }>`INSERT INTO webhook_deliveries (public_id, message_id, webhook_id, organization_id, status, max_attempts, created_at, updated_at)
      VALUES (${publicId}, ${message}, ${webhook}, ${organization}, ${status}, 10, 'c', ${`u-${publicId}`}) RETURNING id`))
  }
  // the middle one deleted: ids need not be dense
  yield* sql`DELETE FROM webhook_deliveries WHERE id = ${deliveries[1]!}`
  return { organization, deliveries }
})

const deliveryAfter0012 = (organization: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: unknown; public_id: string; channel: string; delivered_at: string | null }>`
      SELECT id, public_id, channel, delivered_at FROM outbox_deliveries ORDER BY id`
    const fromView = yield* sql<{ id: unknown }>`SELECT id FROM webhook_deliveries ORDER BY id`
    const next = yield* sql<{ id: unknown }>`INSERT INTO outbox_deliveries (public_id, channel, organization_id, status, max_attempts, created_at, updated_at)
      VALUES ('e1', 'email', ${organization}, 'pending', 10, 'c', 'u') RETURNING id`
    return {
      rows: rows.map((row) => ({ ...row, id: Number(row.id) })),
      view: fromView.map((row) => Number(row.id)),
      next: Number(next[0]!.id)
    }
  })

describe.skipIf(!postgresAvailable)("migrations on SQLite and PostgreSQL", () => {
  layer(Layer.scoped(Postgres, postgresServer), { excludeTestServices: true, timeout: "90 seconds" })((it) => {
    it.scoped("all the migrations give the same logical schema; the engine-specific objects are there", () =>
      Effect.gen(function*() {
        const sqlite = yield* onSqliteLive(read)
        const pg = yield* onPostgres(STEPS, read)
        expect(sqlite.engine).toBe("sqlite")
        expect(pg.engine).toBe("pg")

        expect(diff(sqlite.schema, pg.schema, ["sqlite", "pg"])).toEqual([])
        expect(pg.schema).toEqual(sqlite.schema)

        // what was compared is the whole schema, not an empty one
        const tables = Object.keys(sqlite.schema.tables)
        expect(tables).toHaveLength(37)
        expect(tables).toEqual(expect.arrayContaining(["persons", "events", "event_guests", "outbox_deliveries", "changes", "webhook_message_parts", "persons_blocks"]))
        expect(tables).not.toContain("webhook_deliveries")
        expect(Object.keys(sqlite.schema.views)).toEqual(["webhook_deliveries"])
        expect(sqlite.schema.tables["event_guests"]!.triggers).toEqual(["event_guests_attended_at_insert", "event_guests_attended_at_update"])
        expect(sqlite.schema.tables["persons"]!.indexes.map((index) => index.name)).toEqual(["persons_active_email", "persons_email", "persons_organization"])
        // the directory's per-block counts: the same table and triggers on both engines
        expect(sqlite.schema.tables["persons"]!.triggers).toEqual(["persons_blocks_delete", "persons_blocks_insert", "persons_blocks_update"])
        expect(sqlite.schema.tables["outbox_deliveries"]!.checks).toHaveLength(3)

        // SQLite-only: FTS5 (and its vocabularies) and what feeds it, STRICT, rowid keys
        expect(names(sqlite, "virtual table")).toEqual(["persons_search", "persons_search_short", "persons_search_short_terms", "persons_search_terms"])
        expect(names(sqlite, "shadow table").every((name) => name.startsWith("persons_search_"))).toBe(true)
        expect(names(sqlite, "shadow table").length).toBeGreaterThan(0)
        expect(names(sqlite, "trigger feeding a virtual table")).toEqual(["persons.persons_search_delete", "persons.persons_search_insert", "persons.persons_search_update"])
        expect(names(sqlite, "search counts table")).toEqual(["persons_search_counting", "persons_search_counts"])
        expect(names(sqlite, "strict")).toEqual(tables)
        expect(names(sqlite, "migrations table")).toEqual(["effect_sql_migrations"])
        expect(sqlite.engineSpecific.find((object) => object.kind === "rowid key" && object.table === "changes")?.detail).toBe("AUTOINCREMENT")

        // PostgreSQL-only: pg_trgm and its index over the name search key, the search's n-gram
        // counts and what feeds them, identities
        expect(names(pg, "extension")).toEqual(["pg_trgm"])
        expect(names(pg, "trigram index")).toEqual(["persons.persons_search_trgm"])
        expect(pg.engineSpecific.find((object) => object.kind === "trigram index")?.detail).toMatch(/USING gin \(name_key gin_trgm_ops\)/)
        expect(names(pg, "search counts table")).toEqual(["persons_search_counts"])
        expect(names(pg, "trigger feeding the search counts"))
          .toEqual(["persons.persons_search_count_delete", "persons.persons_search_count_insert", "persons.persons_search_count_update"])
        expect(names(pg, "function")).toEqual([
          "event_guests_attended_at()",
          "persons_blocks_delete()",
          "persons_blocks_insert()",
          "persons_blocks_update()",
          "persons_search_count_delete()",
          "persons_search_count_insert()",
          "persons_search_count_update()",
          "persons_search_grams(name text)"
        ])
        expect(names(pg, "migrations table")).toEqual(["effect_sql_migrations"])
        // every identity is a rowid key on SQLite; the rowid keys that are not identities are the
        // keys the database does not pick
        const identities = names(pg, "identity")
        const rowidKeys = names(sqlite, "rowid key")
        expect(rowidKeys).toEqual(expect.arrayContaining(identities))
        expect(rowidKeys.filter((key) => !identities.includes(key))).toEqual(["change_feed_key.id", "change_feed_pruned.organization_id", "outbox_emails.delivery_id"])
      }), 120_000)

    it.scoped("instances starting together on an empty PostgreSQL database all start, and migrate it once", () =>
      Effect.gen(function*() {
        const server = yield* Postgres
        const migrations = (yield* Migrator.fromFileSystem(pgMigrationsDirectory).pipe(Effect.provide(NodeContext.layer))).map(([id]) => id)
        // numbers may be skipped (one reserved for a change that did not need it)
        expect(Math.max(...migrations)).toBeGreaterThanOrEqual(STEPS)
        for (let round = 0; round < 3; round++) {
          const database = yield* server.createDatabase()
          // the service's own start on the database: its client and its migrations (src/Db/Sql.ts)
          const config = Layer.effect(AppConfig, configFrom({ DATABASE_PATH: "/tmp/unused.db", DATABASE_URL: server.url(database) }))
          const started = yield* Effect.all(
            Array.from({ length: 4 }, () => Effect.exit(Layer.build(SqlLive.pipe(Layer.provide(config))))),
            { concurrency: "unbounded" }
          ).pipe(Effect.scoped)
          expect({ round, started: started.map((exit) => Exit.isSuccess(exit) ? "started" : Cause.pretty(exit.cause)) })
            .toEqual({ round, started: ["started", "started", "started", "started"] })
          const applied = yield* Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            return yield* sql<{ migration_id: number }>`SELECT migration_id FROM effect_sql_migrations ORDER BY migration_id`
          }).pipe(Effect.provide(server.layer(database)))
          expect(applied.map((row) => row.migration_id)).toEqual(migrations)
        }
      }), 120_000)

    it.scoped("each numbered step gives the same logical schema on both engines", () =>
      Effect.gen(function*() {
        for (let step = 1; step <= STEPS; step++) {
          const sqlite = yield* onSqlite(step, read)
          const pg = yield* onPostgres(step, read)
          expect({ step, differences: diff(sqlite.schema, pg.schema, ["sqlite", "pg"]) }).toEqual({ step, differences: [] })
        }
      }), 120_000)

    it.scoped("the search structures follow the persons alike: n-gram FTS5 tables on SQLite, a trigram index and n-gram counts on PostgreSQL", () =>
      Effect.gen(function*() {
        // persons written by hand, as SQL (the triggers, not the service, keep the structures)
        const writePersons = Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO organizations (slug, name, created_at) VALUES ('acme', 'Acme', 'x'), ('other', 'Other', 'x')`
          const names = ["ada lovelace", "grace hopper", "alan turing", "zoë ςσ😀", "ab"]
          for (const [n, name] of names.entries()) {
            yield* sql`INSERT INTO persons (public_id, organization_id, first_name, last_name, email, email_key, name_key, created_at, updated_at)
              VALUES (${`p${n}`}, ${n === 4 ? 2 : 1}, 'x', 'y', ${`p${n}@example.org`}, ${`p${n}@example.org`}, ${name}, 'x', 'x')`
          }
          yield* sql`UPDATE persons SET name_key = 'grace brewster hopper' WHERE public_id = 'p1'`
          yield* sql`UPDATE persons SET archived_at = 'x' WHERE public_id = 'p2'`
          yield* sql`UPDATE persons SET company = 'Acme' WHERE public_id = 'p3'`
          yield* sql`DELETE FROM persons WHERE public_id = 'p0'`
        })
        // what the structures must count: persons per organization, archived state and n-gram of one to three characters
        const expected: Record<string, number> = {}
        for (const [organization, archived, name] of [[1, 0, "grace brewster hopper"], [1, 1, "alan turing"], [1, 0, "zoë ςσ😀"], [2, 0, "ab"]] as const) {
          const characters = [...name]
          const grams = new Set<string>()
          for (let n = 1; n <= 3; n++) for (let i = 0; i + n <= characters.length; i++) grams.add(characters.slice(i, i + n).join(""))
          for (const gram of grams) {
            const key = `${organization}/${archived}/${gram}`
            expected[key] = (expected[key] ?? 0) + 1
          }
        }
        const sqliteFound = yield* onSqliteLive(Effect.gen(function*() {
          yield* writePersons
          const sql = yield* SqlClient.SqlClient
          const counted: Record<string, number> = {}
          for (const [table, gramsOf] of [["persons_search_short_terms", (n: number) => n < 3], ["persons_search_terms", (n: number) => n === 3]] as const) {
            for (const row of yield* sql<{ term: string; doc: number }>`SELECT term, doc FROM ${sql.literal(table)}`) {
              const [, organization, state, hex] = /^(\d+)([ax])([0-9a-f]+)$/.exec(row.term)!
              const gram = Buffer.from(hex!, "hex").toString("utf8")
              expect(gramsOf([...gram].length)).toBe(true)
              counted[`${organization}/${state === "x" ? 1 : 0}/${gram}`] = row.doc
            }
          }
          // single characters: also in the counts table
          const characters = Object.fromEntries(
            (yield* sql<{ organization_id: number; archived: number; gram: string; persons: number }>`
              SELECT organization_id, archived, gram, persons FROM persons_search_counts WHERE persons <> 0`)
              .map((row) => [`${row.organization_id}/${row.archived}/${row.gram}`, row.persons])
          )
          // a longer term: the phrase of its trigrams, in the scope
          const phrase = `"${["rew", "ews"].map((gram) => `1a${Buffer.from(gram).toString("hex")}`).join(" ")}"`
          const rows = yield* sql<{ name_key: string }>`SELECT p.name_key FROM persons p
            WHERE p.id IN (SELECT rowid FROM persons_search WHERE persons_search MATCH ${phrase}) ORDER BY p.id`
          return { counted, characters, longer: rows.map((row) => row.name_key) }
        }))
        const pgFound = yield* onPostgres(STEPS, Effect.gen(function*() {
          yield* writePersons
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ organization_id: number; archived: number; gram: string; persons: number }>`
            SELECT organization_id, archived, gram, persons FROM persons_search_counts WHERE persons <> 0`
          const counted = Object.fromEntries(rows.map((row) => [`${Number(row.organization_id)}/${row.archived}/${row.gram}`, Number(row.persons)]))
          return yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`SET LOCAL enable_seqscan = off`
            const plan = yield* sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT name_key FROM persons WHERE name_key LIKE '%rews%'`
            const found = yield* sql<{ name_key: string }>`SELECT name_key FROM persons WHERE name_key LIKE '%rews%' ORDER BY id`
            return { counted, plan: plan.map((row) => row["QUERY PLAN"]).join("\n"), longer: found.map((row) => row.name_key) }
          }))
        }))
        expect(sqliteFound.counted).toEqual(expected)
        expect(sqliteFound.characters).toEqual(Object.fromEntries(Object.entries(expected).filter(([key]) => [...key.split("/")[2]!].length === 1)))
        expect(pgFound.counted).toEqual(expected)
        expect(sqliteFound.longer).toEqual(["grace brewster hopper"])
        expect(pgFound.longer).toEqual(["grace brewster hopper"])
        expect(pgFound.plan).toContain("persons_search_trgm")
      }), 60_000)

    it.scoped("the directory's per-block counts follow the persons alike on both engines, whatever writes them", () =>
      Effect.gen(function*() {
        // persons written by hand, as SQL, with ids in several blocks of 1,024 (the triggers keep the counts)
        const writeAndCount = (overriding: string) => Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO organizations (slug, name, created_at) VALUES ('acme', 'Acme', 'x'), ('other', 'Other', 'x')`
          for (const [n, id] of [1, 2, 1023, 1024, 1025, 2047, 5000, 5001, 9999].entries()) {
            yield* sql.unsafe(`INSERT INTO persons (id, public_id, organization_id, first_name, last_name, email, email_key, name_key, created_at, updated_at)
              ${overriding} VALUES (${id}, 'p${n}', ${n % 3 === 2 ? 2 : 1}, 'x', 'y', 'p${n}@example.org', 'p${n}@example.org', 'x y', 'x', 'x')`)
          }
          yield* sql`UPDATE persons SET archived_at = 'x' WHERE id IN (2, 5000, 1025)`
          yield* sql`UPDATE persons SET archived_at = NULL WHERE id = 5000`
          yield* sql`UPDATE persons SET archived_at = 'y' WHERE id = 2`
          yield* sql`UPDATE persons SET organization_id = 2 WHERE id = 1024`
          yield* sql`UPDATE persons SET archived_at = 'z' WHERE organization_id = 1`
          yield* sql`UPDATE persons SET archived_at = NULL WHERE organization_id = 1 AND id > 1024`
          yield* sql`DELETE FROM persons WHERE id IN (1, 9999)`
          const rows = (statement: Effect.Effect<ReadonlyArray<Record<string, unknown>>, unknown>) =>
            Effect.map(statement, (found) => found.map((row) => [row.organization_id, row.archived, row.block, row.persons].map(Number)))
          return {
            kept: yield* rows(sql`SELECT organization_id, archived, block, persons FROM persons_blocks WHERE persons <> 0
              ORDER BY organization_id, archived, block`),
            counted: yield* rows(sql`SELECT organization_id, CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END AS archived,
              id / 1024 AS block, count(*) AS persons FROM persons GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)
          }
        })
        const sqlite = yield* onSqliteLive(writeAndCount(""))
        const pg = yield* onPostgres(STEPS, writeAndCount("OVERRIDING SYSTEM VALUE"))
        expect(sqlite.counted).toEqual([[1, 0, 1, 1], [1, 0, 4, 2], [1, 1, 0, 1], [2, 0, 0, 1], [2, 0, 1, 2]])
        expect(sqlite.kept).toEqual(sqlite.counted)
        expect(pg).toEqual(sqlite)
      }), 120_000)

    it.scoped("the attended_at triggers behave alike on both engines", () =>
      Effect.gen(function*() {
        const sqlite = yield* onSqliteLive(attendedAtScenario)
        const pg = yield* onPostgres(STEPS, attendedAtScenario)
        expect(sqlite).toEqual(expectedAttendedAt)
        expect(pg).toEqual(expectedAttendedAt)
      }), 60_000)

    it.scoped("0012 keeps the webhook deliveries' ids on both engines, and new ids follow them", () =>
      Effect.gen(function*() {
        const run = <R>(migrate: (through: number) => Effect.Effect<unknown, unknown, R>) =>
          Effect.gen(function*() {
            yield* migrate(11)
            const { deliveries, organization } = yield* deliveryBefore0012
            yield* migrate(STEPS)
            return { deliveries, after: yield* deliveryAfter0012(organization) }
          })
        const sqlite = yield* onSqlite(0, run((through) => SqliteMigrator.run({ loader: loader(migrationsDirectory, through) })))
        const pg = yield* onPostgres(0, run((through) => PgMigrator.run({ loader: loader(pgMigrationsDirectory, through) })))
        for (const side of [sqlite, pg]) {
          const [d1, , d3] = side.deliveries
          expect(side.after.rows.map((row) => [row.id, row.public_id, row.channel, row.delivered_at])).toEqual([
            [d1, "d1", "webhook", "u-d1"],
            [d3, "d3", "webhook", null]
          ])
          expect(side.after.view).toEqual([d1, d3])
          expect(side.after.next).toBe(d3! + 1)
        }
      }), 60_000)

    it.scoped("0025 gives the events written before it the defaults of their new fields on both engines", () =>
      Effect.gen(function*() {
        const run = <R>(migrate: (through: number) => Effect.Effect<unknown, unknown, R>) =>
          Effect.gen(function*() {
            yield* migrate(24)
            const sql = yield* SqlClient.SqlClient
            const organization = (yield* sql<{ id: unknown }>`INSERT INTO organizations (slug, name, created_at) VALUES ('acme', 'Acme', 'x') RETURNING id`)[0]!.id
            yield* sql`INSERT INTO events (public_id, organization_id, name, primary_date, primary_date_utc, timezone, created_at, updated_at)
              VALUES ('e1', ${Number(organization)}, 'Gala', '2026-06-01T19:00:00Z', '2026-06-01T19:00:00.000Z', 'UTC', 'x', 'x')`
            yield* migrate(25)
            const rows = yield* sql<Record<string, unknown>>`SELECT registration_open, registration_closes_at, registration_approval,
              reminders, reply_to, end_date FROM events`
            return rows.map((row) => ({ ...row, registration_open: Number(row["registration_open"]), registration_approval: Number(row["registration_approval"]) }))
          })
        const sqlite = yield* onSqlite(0, run((through) => SqliteMigrator.run({ loader: loader(migrationsDirectory, through) })))
        const pg = yield* onPostgres(0, run((through) => PgMigrator.run({ loader: loader(pgMigrationsDirectory, through) })))
        const defaults = [{ registration_open: 1, registration_closes_at: null, registration_approval: 0, reminders: "[]", reply_to: null, end_date: null }]
        expect({ sqlite, pg }).toEqual({ sqlite: defaults, pg: defaults })
      }), 60_000)

    it.scoped("the comparison reports what differs: a column, a check, nullability, an index", () =>
      Effect.gen(function*() {
        const sqlite = yield* onSqliteLive(read)
        const altered = (statements: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
          onPostgres(
            STEPS,
            Effect.gen(function*() {
              yield* statements(yield* SqlClient.SqlClient)
              return (yield* read).schema
            })
          )
        const differences = (schema: LogicalSchema) => diff(sqlite.schema, schema, ["sqlite", "pg"])

        expect(differences(yield* altered((sql) => sql`ALTER TABLE persons DROP COLUMN birthday`)))
          .toEqual(["table persons: column birthday only on sqlite"])
        expect(differences(yield* altered((sql) => sql`ALTER TABLE persons ADD COLUMN nickname text`)))
          .toEqual(["table persons: column nickname only on pg"])
        expect(differences(yield* altered((sql) => sql`ALTER TABLE webhooks DROP CONSTRAINT webhooks_type_check`)))
          .toEqual([`table webhooks: check {"columns":["type"],"expression":"type in 'EventPerson', 'Event', 'GuestList'"} only on sqlite`])
        expect(differences(yield* altered((sql) => sql`ALTER TABLE events ALTER COLUMN timezone DROP NOT NULL`)))
          .toEqual(["table events: column timezone: nullable false on sqlite, true on pg"])
        expect(differences(yield* altered((sql) => sql`ALTER TABLE phones ALTER COLUMN is_preferred SET DEFAULT 1`)))
          .toEqual(["table phones: column is_preferred: default \"0\" on sqlite, \"1\" on pg"])
        expect(differences(yield* altered((sql) => sql`DROP INDEX sessions_user`)))
          .toEqual(["table sessions: index sessions_user only on sqlite"])
        expect(differences(yield* altered((sql) =>
          Effect.zipRight(sql`DROP INDEX persons_active_email`, sql`CREATE UNIQUE INDEX persons_active_email ON persons (organization_id, email_key)`)
        ))).toEqual([
          `table persons: index persons_active_email: {"name":"persons_active_email","columns":["organization_id","email_key"],"unique":true,"where":"archived_at is null"} on sqlite, {"name":"persons_active_email","columns":["organization_id","email_key"],"unique":true,"where":null} on pg`
        ])
        expect(differences(yield* altered((sql) => sql`DROP VIEW webhook_deliveries`)))
          .toEqual(["view webhook_deliveries: only on sqlite"])
      }), 120_000)
  })
})
