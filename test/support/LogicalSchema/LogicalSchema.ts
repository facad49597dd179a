/**
 * The logical schema of a database, read from SQLite or PostgreSQL into one normalized,
 * JSON-able structure, so that the two engines' migrations can be checked to produce the same
 * schema (test/repo/schema-engines.test.ts) and a difference can be named (`diff`).
 *
 * What is compared, per table:
 * - columns: name, type class (`integer`, `text`, `real`, `blob`, by SQLite's affinity rules on
 *   one side and PostgreSQL's type on the other: `bigint`/`integer` → integer, `double precision`
 *   → real, `bytea` → blob), nullability, position in the primary key (1-based, null outside it)
 *   and the default, normalized (see `normalizeExpression`: `'[]'::text` and `'[]'` compare equal);
 * - unique constraints (as sets of columns; their indexes' names differ by engine and are not
 *   compared), foreign keys (columns, referenced table and columns, ON DELETE and ON UPDATE);
 * - secondary indexes (those made by CREATE INDEX, not the ones backing a primary key or unique
 *   constraint): name, key columns in order (or a normalized expression), unique, and the
 *   normalized predicate of a partial index;
 * - CHECK constraints: the columns each one names and its normalized text. Normalizing makes
 *   PostgreSQL's rewriting comparable (`x = ANY (ARRAY['a'::text, 'b'::text])` is SQLite's
 *   `x IN ('a', 'b')`; casts and parentheses are dropped), so it compares the meaning of the
 *   simple checks used here, not arbitrary expressions; an expression written differently on each
 *   side shows as a difference to look at;
 * - triggers, by name;
 * and views by name with their columns.
 *
 * Engine-specific objects are not compared: they are listed apart (`engineSpecific`) so the
 * comparison leaves them out knowingly: the Migrator's own table (`effect_sql_migrations`); the
 * name search's counts (`persons_search_counts`, of other n-grams on each engine, and SQLite's
 * `persons_search_counting`); on SQLite, the FTS5 tables `persons_search*` (and their
 * vocabularies), their shadow tables and the triggers that feed them, `sqlite_sequence`
 * (AUTOINCREMENT's counters), STRICT and WITHOUT ROWID tables, and the rowid keys (INTEGER
 * PRIMARY KEY); on PostgreSQL, extensions (pg_trgm), trigram indexes, the triggers that feed the
 * search counts, identity columns and the functions triggers run.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { readPg } from "./Pg.js"
import type { LogicalSchema, SchemaReport } from "./Schema.js"
import { record } from "./Text.js"
import { readSqlite } from "./Sqlite.js"

export type { LogicalSchema, SchemaReport } from "./Schema.js"

/** The logical schema of the database `SqlClient` is connected to, SQLite or PostgreSQL. */
export const read: Effect.Effect<SchemaReport, SqlError.SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql.onDialectOrElse({
      sqlite: () => readSqlite,
      pg: () => readPg,
      orElse: () => Effect.dieMessage("LogicalSchema: only SQLite and PostgreSQL are supported")
    })
)


// ---------------------------------------------------------------------------------------------
// Comparing

const show = (value: unknown) => JSON.stringify(value)

/**
 * The differences between two logical schemas, one line each, naming the side an object is
 * missing from (`left`/`right` labels, e.g. "sqlite" and "pg"); empty when they are the same.
 */
export const diff = (left: LogicalSchema, right: LogicalSchema, labels: readonly [string, string] = ["left", "right"]): Array<string> => {
  const [l, r] = labels
  const lines: Array<string> = []
  const names = (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>) => [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
  const compareSets = <A>(where: string, what: string, a: ReadonlyArray<A>, b: ReadonlyArray<A>) => {
    const as = new Set(a.map(show))
    const bs = new Set(b.map(show))
    for (const item of as) if (!bs.has(item)) lines.push(`${where}: ${what} ${item} only on ${l}`)
    for (const item of bs) if (!as.has(item)) lines.push(`${where}: ${what} ${item} only on ${r}`)
  }
  for (const name of names(left.tables, right.tables)) {
    const a = left.tables[name]
    const b = right.tables[name]
    if (a === undefined || b === undefined) {
      lines.push(`table ${name}: only on ${a === undefined ? r : l}`)
      continue
    }
    const where = `table ${name}`
    const aColumns = record(a.columns)
    const bColumns = record(b.columns)
    for (const column of names(aColumns, bColumns)) {
      const x = aColumns[column]
      const y = bColumns[column]
      if (x === undefined || y === undefined) {
        lines.push(`${where}: column ${column} only on ${x === undefined ? r : l}`)
        continue
      }
      for (const field of ["type", "nullable", "primaryKey", "default"] as const) {
        if (x[field] !== y[field]) lines.push(`${where}: column ${column}: ${field} ${show(x[field])} on ${l}, ${show(y[field])} on ${r}`)
      }
    }
    compareSets(where, "unique", a.uniques, b.uniques)
    compareSets(where, "foreign key", a.foreignKeys, b.foreignKeys)
    compareSets(where, "check", a.checks, b.checks)
    compareSets(where, "trigger", a.triggers, b.triggers)
    const aIndexes = record(a.indexes)
    const bIndexes = record(b.indexes)
    for (const index of names(aIndexes, bIndexes)) {
      const x = aIndexes[index]
      const y = bIndexes[index]
      if (x === undefined || y === undefined) {
        lines.push(`${where}: index ${index} only on ${x === undefined ? r : l}`)
      } else if (show(x) !== show(y)) {
        lines.push(`${where}: index ${index}: ${show(x)} on ${l}, ${show(y)} on ${r}`)
      }
    }
  }
  for (const name of names(left.views, right.views)) {
    const a = left.views[name]
    const b = right.views[name]
    if (a === undefined || b === undefined) lines.push(`view ${name}: only on ${a === undefined ? r : l}`)
    else if (show(a.columns) !== show(b.columns)) lines.push(`view ${name}: columns ${show(a.columns)} on ${l}, ${show(b.columns)} on ${r}`)
  }
  return lines
}
