/**
 * Where SQLite and PostgreSQL differ, in one place. Repositories build their statements with the
 * ambient `sql` tag and take these fragments from `dialectOf(sql)` where the engines disagree:
 *
 * | what | SQLite | PostgreSQL |
 * |---|---|---|
 * | a JSON array as a table `j` (`value`, `key` in array order) | `json_each(?)` | `jsonb_array_elements(?::jsonb) WITH ORDINALITY` |
 * | field `i` of a row array `j.value` | `j.value ->> i` (typed as stored) | `(j.value ->> i)::<type>` (text otherwise) |
 * | equality where NULL equals NULL | `a IS b` | `a IS NOT DISTINCT FROM b` |
 * | rows as compact JSON text of an array of objects | `json_group_array(json_object(…))` | `string_agg` of `to_json(column)::text` pieces (`json_agg` and `json_build_object` write `"key" : value, …` with spaces) |
 * | case-insensitive order | `x COLLATE NOCASE` | `lower(x) COLLATE "C"` |
 * | a substring of a person's name | FTS5 trigram table `persons_search` (3+ characters), else `LIKE` | `LIKE` on `name_key`, served by the `pg_trgm` GIN index when the term holds a trigram (3+ characters), else under `COLLATE "C"`, kept off that index |
 *
 * Everything else the repositories write is common SQL: `INSERT … ON CONFLICT`, `RETURNING`,
 * `LIMIT … OFFSET`, `->>` on JSON text columns, ISO-8601 text dates compared as text, 0/1 integers
 * for booleans (both schemas, migrations/pg/0001_tenancy.ts).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { ftsPhrase, likeContains, TRIGRAM } from "../Persons/Keys.js"

export type FieldType = "integer" | "text" | "real"

/** The keys (plain identifiers) and columns of a JSON object built in SQL, in key order. */
export type JsonFields = ReadonlyArray<readonly [key: string, column: string]>

export interface Dialect {
  readonly name: "sqlite" | "pg"
  /** A JSON array of scalars as a table `j` (`j.value` of `type`, `j.key` its position), for `FROM`. */
  readonly values: (json: string, type: FieldType) => Statement.Fragment
  /** `(SELECT value FROM …)` of a JSON array of scalars, for `x IN …`. */
  readonly inValues: (json: string, type: FieldType) => Statement.Fragment
  /** A JSON array of row arrays as a table `j` (`j.value` the row, `j.key` its position), for `FROM`. */
  readonly rows: (json: string) => Statement.Fragment
  /** Field `index` of the row `j.value` of `rows`, as `type` (NULL stays NULL). */
  readonly at: (index: number, type?: FieldType) => Statement.Fragment
  /** `a = b`, where NULL equals NULL. */
  readonly same: (a: Statement.Fragment, b: Statement.Fragment) => Statement.Fragment
  /**
   * SQL text (no parameters, for `sql.literal`) giving the compact JSON text of an array of objects,
   * as `JSON.stringify` writes it (`[]` when there are none): each object's `fields` are
   * `[key, column]` in key order (scalar columns; NULL is `null`), the objects in `orderBy` order;
   * for a correlated subquery's SELECT.
   */
  readonly jsonObjects: (fields: JsonFields, orderBy: string) => string
  /** `column`, ordered without regard to case. */
  readonly nocase: (column: string) => Statement.Fragment
  /** A condition: the person `p`'s name contains `term` (case-insensitive). */
  readonly nameContains: (term: string) => Statement.Fragment
}

/**
 * Whether pg_trgm takes a trigram from the pattern `%term%`: it splits the term into words
 * (letters and digits) and pads each with two spaces before and one after, except where the
 * pattern's `%` touches it. (A term of one or two characters never has one.)
 */
const hasTrigram = (term: string) =>
  Array.from(term.matchAll(/[\p{L}\p{N}]+/gu)).some((word) =>
    [...word[0]].length + (word.index === 0 ? 0 : 2) + (word.index + word[0].length === term.length ? 0 : 1) >= TRIGRAM
  )

/** `Dialect.jsonObjects` of each engine (tested on its own against both: test/guest-json.test.ts). */
export const jsonObjectsSql: Record<Dialect["name"], Dialect["jsonObjects"]> = {
  sqlite: (fields, orderBy) =>
    `json_group_array(json_object(${fields.map(([key, column]) => `'${key}', ${column}`).join(", ")}) ORDER BY ${orderBy})`,
  pg: (fields, orderBy) => {
    const object = fields.map(([key, column], i) => `'${i === 0 ? "{" : ","}"${key}":' || COALESCE(to_json(${column})::text, 'null')`)
      .join(" || ")
    return `'[' || COALESCE(string_agg(${object} || '}', ',' ORDER BY ${orderBy}), '') || ']'`
  }
}

const typeOf = (type: FieldType) => type === "integer" ? "bigint" : type === "real" ? "double precision" : "text"

const sqlite = (sql: SqlClient.SqlClient): Dialect => ({
  name: "sqlite",
  values: (json) => sql`json_each(${json}) j`,
  inValues: (json) => sql`(SELECT value FROM json_each(${json}))`,
  rows: (json) => sql`json_each(${json}) j`,
  at: (index) => sql.literal(`j.value ->> ${index}`),
  same: (a, b) => sql`${a} IS ${b}`,
  jsonObjects: jsonObjectsSql.sqlite,
  nocase: (column) => sql.literal(`${column} COLLATE NOCASE`),
  nameContains: (term) =>
    [...term].length >= TRIGRAM
      ? sql`p.id IN (SELECT rowid FROM persons_search WHERE persons_search MATCH ${ftsPhrase(term)})`
      : sql`p.name_key LIKE ${likeContains(term)} ESCAPE '\\'`
})

const pg = (sql: SqlClient.SqlClient): Dialect => ({
  name: "pg",
  values: (json, type) =>
    sql`(SELECT v::${sql.literal(typeOf(type))} AS value, k AS key
          FROM jsonb_array_elements_text(${json}::jsonb) WITH ORDINALITY AS t(v, k)) j`,
  inValues: (json, type) => sql`(SELECT v::${sql.literal(typeOf(type))} FROM jsonb_array_elements_text(${json}::jsonb) AS t(v))`,
  rows: (json) => sql`jsonb_array_elements(${json}::jsonb) WITH ORDINALITY AS j(value, key)`,
  at: (index, type = "text") =>
    type === "text" ? sql.literal(`(j.value ->> ${index})`) : sql.literal(`(j.value ->> ${index})::${typeOf(type)}`),
  same: (a, b) => sql`${a} IS NOT DISTINCT FROM ${b}`,
  jsonObjects: jsonObjectsSql.pg,
  // byte order of the lower-cased text, as SQLite's NOCASE, whatever the database's collation
  nocase: (column) => sql.literal(`lower(${column}) COLLATE "C"`),
  // The trigram index serves LIKE when the term holds a trigram (`hasTrigram`). Otherwise the
  // index would hand every row over to be rechecked, slower than a scan, and the planner cannot
  // tell: the term's LIKE is then under another collation than the index's, which keeps the index
  // out. LIKE matches the same under any deterministic collation, and the planner still estimates
  // it from name_key's statistics: a common term walks the persons in id order and stops at the
  // page, a rare one scans them once.
  nameContains: (term) =>
    hasTrigram(term.toLowerCase())
      ? sql`p.name_key LIKE ${likeContains(term)} ESCAPE '\\'`
      : sql`p.name_key COLLATE "C" LIKE ${likeContains(term)} ESCAPE '\\'`
})

/** The dialect of the client's engine. */
export const dialectOf = (sql: SqlClient.SqlClient): Dialect => sql.onDialectOrElse({ pg: () => pg(sql), orElse: () => sqlite(sql) })
