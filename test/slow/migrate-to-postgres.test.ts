/**
 * `convene migrate-to-postgres`: a SQLite database made by `convene demo` (contacts, events, guest
 * lists with histories and check-ins, payments, the change feed) moves into an empty PostgreSQL
 * database with every count equal, the same values (check-in times untouched by the triggers, the
 * change feed's cursor key), identity sequences continuing after the copied ids, the name search's
 * n-gram counts made for the copied persons; a database that is not empty is refused and left as it was.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Context, Effect, Layer } from "effect"
import * as PgClient from "@effect/sql-pg/PgClient"
import { join } from "node:path"
import { cli } from "../support/Cli.js"
import { postgresAvailable, postgresServer } from "../support/Postgres.js"
import { temporaryDirectory } from "../support/TestServer.js"

const TABLES = ["organizations", "users", "persons", "events", "event_guests", "rsvp_history", "purchases", "purchase_items", "refunds", "changes"]

describe.skipIf(!postgresAvailable)("migrate-to-postgres", () => {
  it.scopedLive("moves a demo organization with every count and value equal, and refuses a database that is not empty", () =>
    Effect.gen(function*() {
      const postgres = yield* postgresServer
      const database = yield* postgres.createDatabase()
      const dir = yield* temporaryDirectory
      const env = { DATABASE_PATH: join(dir, "convene.db"), LOG_LEVEL: "Error" }
      const demo = yield* cli(env, "demo")
      expect(demo.code, demo.stderr).toBe(0)

      // a guest edited after check-in: its attended_at is no longer its updated_at (a copy that let the
      // attended_at triggers run would reset it)
      const editing = new Database(env.DATABASE_PATH)
      const edited = editing.prepare("UPDATE event_guests SET updated_at = '2031-01-01T00:00:00.000Z' WHERE attended_at IS NOT NULL").run().changes
      editing.close()
      expect(edited).toBeGreaterThan(0)

      const moved = yield* cli(env, "migrate-to-postgres", "--to", postgres.url(database))
      expect(moved.code, moved.stderr).toBe(0)
      expect(moved.stdout).toMatch(/Moved \d+ rows in \d+ tables to PostgreSQL in \d+ ms; every table verified/)
      expect(moved.stdout).not.toContain("DIFFERS")

      const sqlite = new Database(env.DATABASE_PATH, { readonly: true })
      yield* Effect.addFinalizer(() => Effect.sync(() => sqlite.close()))
      const pg = Context.get(yield* Layer.build(postgres.layer(database)), PgClient.PgClient)
      const countIn = (table: string) => ({
        sqlite: (sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
        pg: pg.unsafe<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`).pipe(Effect.map((rows) => rows[0]!.n))
      })
      for (const table of TABLES) {
        const { pg: pgCount, sqlite: sqliteCount } = countIn(table)
        expect(sqliteCount, table).toBeGreaterThan(0)
        expect(yield* pgCount, table).toBe(sqliteCount)
      }
      // values as they were: check-in times (not reset by the attended_at triggers), the cursor key
      const attended = sqlite.prepare("SELECT id, attended_at FROM event_guests WHERE attended_at IS NOT NULL ORDER BY id").all() as Array<{
        id: number
        attended_at: string
      }>
      expect(attended.length).toBeGreaterThan(0)
      const pgAttended = yield* pg<{ id: string; attended_at: string }>`SELECT id::text AS id, attended_at FROM event_guests
        WHERE attended_at IS NOT NULL ORDER BY event_guests.id`
      expect(pgAttended.map((r) => [Number(r.id), r.attended_at])).toEqual(attended.map((r) => [r.id, r.attended_at]))
      const key = (sqlite.prepare("SELECT cursor_key FROM change_feed_key").get() as { cursor_key: string }).cursor_key
      expect((yield* pg<{ cursor_key: string }>`SELECT cursor_key FROM change_feed_key`).map((r) => r.cursor_key)).toEqual([key])
      // the name search's n-gram counts (migrations/pg/0018) follow the copied persons: the same as counted afresh
      const counts = yield* pg<{ kept: number; differing: number }>`
        SELECT (SELECT count(*)::int FROM persons_search_counts WHERE persons <> 0) AS kept, count(*)::int AS differing
        FROM (SELECT organization_id, (archived_at IS NOT NULL)::integer AS archived, g.gram, count(*) AS persons
              FROM persons, persons_search_grams(name_key) AS g (gram) GROUP BY 1, 2, 3) AS fresh
          FULL JOIN (SELECT * FROM persons_search_counts WHERE persons <> 0) AS kept
            ON kept.organization_id = fresh.organization_id AND kept.archived = fresh.archived AND kept.gram = fresh.gram
        WHERE kept.persons IS DISTINCT FROM fresh.persons`
      expect(counts[0]!.kept).toBeGreaterThan(100)
      expect(counts[0]!.differing).toBe(0)
      // the directory's per-block counts (migrations/pg/0019), kept by PostgreSQL's triggers as the persons were copied
      const blocks = yield* pg<{ kept: number; differing: number }>`
        SELECT (SELECT count(*)::int FROM persons_blocks WHERE persons <> 0) AS kept, count(*)::int AS differing
        FROM (SELECT organization_id, (archived_at IS NOT NULL)::integer AS archived, id / 1024 AS block, count(*) AS persons
              FROM persons GROUP BY 1, 2, 3) AS fresh
          FULL JOIN (SELECT * FROM persons_blocks WHERE persons <> 0) AS kept
            ON kept.organization_id = fresh.organization_id AND kept.archived = fresh.archived AND kept.block = fresh.block
        WHERE kept.persons IS DISTINCT FROM fresh.persons`
      expect(blocks[0]!.kept).toBeGreaterThan(0)
      expect(blocks[0]!.differing).toBe(0)
      // a new person gets the next id
      const maxId = (sqlite.prepare("SELECT max(id) AS m FROM persons").get() as { m: number }).m
      const next = yield* pg<{ n: string }>`SELECT nextval(pg_get_serial_sequence('persons', 'id'))::text AS n`
      expect(Number(next[0]!.n)).toBe(maxId + 1)

      // again into the same database: refused, nothing changed
      const before = yield* countIn("persons").pg
      const again = yield* cli(env, "migrate-to-postgres", "--to", postgres.url(database))
      expect(again.code).toBe(1)
      expect(again.stderr).toContain("the PostgreSQL database is not empty")
      expect(yield* countIn("persons").pg).toBe(before)
      // not a PostgreSQL URL
      const wrong = yield* cli(env, "migrate-to-postgres", "--to", "mysql://somewhere/db")
      expect(wrong.code).toBe(1)
      expect(wrong.stderr).toContain("--to must be a postgres:// URL")
    }), 180_000)
})
