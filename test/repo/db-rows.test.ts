/**
 * Rows decoded by schemas (src/Db/Rows.ts, `DirectSql.rows` and `first`), on the suite's engine:
 * each row as its schema makes it (columns it does not name left out, a nullable column's NULL, a
 * bigint count as a number, bytes as a `Uint8Array`), `first` undefined without a row, and a row the
 * schema refuses a defect whose message names the statement and the column, not a value passed on.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Redacted, Schema } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectSql } from "../../src/Db/DirectSql.js"
import * as Postgres from "../../src/Db/Postgres.js"
import { RowMismatch } from "../../src/Db/Rows.js"
import * as Sqlite from "../../src/Db/Sqlite.js"
import { onPostgres, testDatabaseUrl } from "../support/Engine.js"

const database = () =>
  onPostgres
    ? Postgres.layer({ url: Redacted.make(testDatabaseUrl()), maxConnections: 2 })
    : Sqlite.layer({ filename: join(mkdtempSync(join(tmpdir(), "convene-rows-")), "rows.db") })

const setUp = Effect.gen(function*() {
  const context = yield* Layer.build(database())
  const sql = Context.get(context, SqlClient.SqlClient)
  const direct = Context.get(context, DirectSql)
  yield* sql`CREATE TABLE items (id ${sql.literal(onPostgres ? "bigint" : "INTEGER")} PRIMARY KEY, name TEXT, extra TEXT)`
  yield* sql`INSERT INTO items (id, name, extra) VALUES (1, 'one', 'x'), (2, NULL, 'y')`
  return { sql, direct }
})

const Item = Schema.Struct({ id: Schema.Number, name: Schema.NullOr(Schema.String) })

describe("rows decoded by schemas", () => {
  it.scoped("each row as its schema makes it; first is undefined without a row", () =>
    Effect.gen(function*() {
      const { direct, sql } = yield* setUp
      expect(yield* direct.rows(Item, sql`SELECT id, name, extra FROM items ORDER BY id`)).toEqual([
        { id: 1, name: "one" },
        { id: 2, name: null }
      ])
      expect(yield* direct.first(Schema.Struct({ n: Schema.Number }), sql`SELECT count(*) AS n FROM items`)).toEqual({ n: 2 })
      expect(yield* direct.first(Item, sql`SELECT id, name FROM items WHERE id = ${3}`)).toBeUndefined()
      const bytes = yield* direct.first(
        Schema.Struct({ b: Schema.Uint8ArrayFromSelf }),
        sql`SELECT ${sql.literal(onPostgres ? "convert_to(name, 'UTF8')" : "CAST(name AS BLOB)")} AS b FROM items WHERE id = ${1}`
      )
      expect(Buffer.from(bytes!.b).toString()).toBe("one")
    }))

  it.scoped("a row its schema refuses is a defect naming the statement and the column", () =>
    Effect.gen(function*() {
      const { direct, sql } = yield* setUp
      const Named = Schema.Struct({ id: Schema.Number, name: Schema.String })
      const reads: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        direct.rows(Named, sql`SELECT id, name FROM items ORDER BY id`),
        direct.first(Named, sql`SELECT id, name FROM items WHERE id = ${2}`)
      ]
      for (const read of reads) {
        const exit = yield* Effect.exit(read)
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        expect(defect).toBeInstanceOf(RowMismatch)
        expect((defect as RowMismatch).message).toMatch(/SELECT id, name FROM items/)
        expect((defect as RowMismatch).message).toMatch(/\["name"\][\s\S]*Expected string, actual null/)
      }
    }))
})
