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
 * | other instances on the same database (`shared`) | none: one process owns the file | any number, behind a balancer |
 * | the database's clock in epoch milliseconds (`clockMillis`) | `julianday('now')` | `clock_timestamp()` |
 * | a subquery's rows locked for an UPDATE, those another transaction locks skipped (`skipLocked`) | nothing: one writer at a time | `FOR UPDATE SKIP LOCKED` |
 * | a typed parameter where PostgreSQL cannot tell its type (`param`) | `?` | `CAST(? AS type)` |
 * | a condition as 0 or 1 (`bit`) | `(c)` | `(c)::int` |
 * | LIKE without regard to case (`caseInsensitiveLike`) | `LIKE` (ASCII letters) | `ILIKE` |
 * | an inner join that keeps the written order (`drivingJoin`) | `CROSS JOIN … ON` | `JOIN … ON` (the planner orders it) |
 * | each row of a batch finding its match by an index (`probe`, `lookup`) | `CROSS JOIN`, `IN` | `CROSS JOIN LATERAL` |
 * | a JSON array held in a text column, as a subquery (`inJsonText`) | `json_each` | `jsonb_array_elements_text` |
 * | the parameters of a statement's text (`placeholder`) | `?` | `$1`, `$2`, … |
 * | a text column's UTF-8 bytes (`textBytes`) | `CAST(x AS BLOB)` | `convert_to(x, 'UTF8')` |
 * | rows per batch of a streamed answer (`streamBatch`) | as given | half |
 * | a part written for each engine (`pick`) | its `sqlite` | its `pg` |
 *
 * Everything else the repositories write is common SQL: `INSERT … ON CONFLICT`, `RETURNING`,
 * `LIMIT … OFFSET`, `->>` on JSON text columns, ISO-8601 text dates compared as text, 0/1 integers
 * for booleans (both schemas, migrations/pg/0001_tenancy.ts).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"

export type FieldType = "integer" | "text" | "real"

/** The keys (plain identifiers) and columns of a JSON object built in SQL, in key order. */
export type JsonFields = ReadonlyArray<readonly [key: string, column: string]>

export interface Dialect {
  readonly name: "sqlite" | "pg"
  /**
   * Whether other instances of the service may use the database at the same time (PostgreSQL),
   * so that background work that must run once (the outbox's claims) is coordinated through it;
   * SQLite's file is one process's.
   */
  readonly shared: boolean
  /**
   * The database's clock as epoch milliseconds (an integer expression), for times that instances
   * compare with each other's (a heartbeat's age): one clock, whatever each instance's says.
   */
  readonly clockMillis: Statement.Fragment
  /**
   * Appended to a subquery that picks rows for an UPDATE (the outbox's claim): the rows it picks
   * are locked, and those another transaction holds are skipped. Empty on SQLite, which has one
   * writer at a time and no row locks.
   */
  readonly skipLocked: Statement.Fragment
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
  /**
   * SQL text (no parameters) giving a text expression (or NULL) as a JSON string literal (`null`
   * for NULL), as `JSON.stringify` writes it (test/repo/guest-json.test.ts).
   */
  readonly jsonQuote: (expression: string) => string
  /** `column`, ordered without regard to case. */
  readonly nocase: (column: string) => Statement.Fragment
  /** A parameter of `type` where PostgreSQL cannot tell its type from its place (`? IS NULL`). */
  readonly param: (value: string | number | null, type: FieldType) => Statement.Fragment
  /** SQL text of a condition as an integer, 1 or 0 (PostgreSQL answers booleans). */
  readonly bit: (condition: string) => string
  /** `LIKE` that ignores case: SQLite's own (ASCII letters), PostgreSQL's `ILIKE` (what its locale folds, ASCII letters at least). */
  readonly caseInsensitiveLike: Statement.Fragment
  /**
   * An inner join (with `ON`) from a batch `j` to a table, the batch as the outer loop where the
   * engine lets the statement say so: SQLite's `CROSS JOIN` keeps the written order (from the JSON
   * array to the table, by its index), PostgreSQL's takes no `ON` and its planner chooses the order
   * itself (a hash join, even with the statistics of tables an import is filling: measured at
   * 20-30 ms a batch of 2,000 against 50,000 persons).
   */
  readonly drivingJoin: Statement.Fragment
  /**
   * `<join> table alias`: for each row of a batch `j` already in `FROM`, the rows of `table` that
   * meet `on` (which names `j`), found by an index, the batch as the outer loop whatever the
   * planner thinks; `columns` are the columns of `alias` the statement reads, `atMostOne` that
   * `on` matches one row at most (a unique key). SQLite: `CROSS JOIN` (never reordered).
   * PostgreSQL: the planner's estimate of a JSON array is a fixed 100 rows, and a table's
   * statistics lag behind a bulk write (an import's own uncommitted rows, and its rows for a minute
   * after its commit, until autovacuum analyzes them). With both wrong, it may put the table
   * outside and the batch inside, scanning the whole batch for each of the table's rows: 26 s
   * instead of 11 ms for 5,000 emails against 50,000 persons, seen under the 50,000-row import
   * test. A `LATERAL` subquery with `LIMIT` or `OFFSET` is never flattened into the join, so the
   * batch stays outside and each of its rows probes the index, whatever the statistics say.
   */
  readonly probe: (table: string, alias: string, on: Statement.Fragment, options: Probe) => Statement.Fragment
  /**
   * `FROM …`: the rows of `table alias` whose column `key` holds one of the values of a JSON array
   * (`json`, of `type`) and that meet `where`: on SQLite by `key IN` the values, on PostgreSQL
   * each distinct value probing the index (`probe`: the values as the outer loop).
   */
  readonly lookup: (
    table: string,
    alias: string,
    key: string,
    values: { readonly json: string; readonly type: FieldType },
    where: Statement.Fragment | undefined,
    options: Probe
  ) => Statement.Fragment
  /** `(SELECT …)` of the values of the JSON array held in the text `expression` (a column), for `x IN …`. */
  readonly inJsonText: (expression: string) => string
  /** The text of parameter `n` (from 1) in a statement written as text (`sql.unsafe`). */
  readonly placeholder: (n: number) => string
  /** SQL text of a text column's value as its UTF-8 bytes (read as a `Uint8Array` outside the JS heap). */
  readonly textBytes: (column: string) => string
  /**
   * Rows per batch of a streamed answer that reads `rows` at a time on SQLite. PostgreSQL's are
   * half as many: there the first whole read of a 40,000-guest list peaked 12-18 MB of live heap
   * above SQLite's with batches of 1,000, past test/slow/large-answers.test.ts's 64 MB heap (measured,
   * cause not pinned down: the driver's reads are asynchronous where SQLite's are not); 500 hold it
   * near SQLite's peak (700 failed one run in three).
   */
  readonly streamBatch: (rows: number) => number
  /**
   * The one of `parts` written for this engine: a feature with statements of its own for each
   * engine keeps them in per-engine files (`Persons/Search.sqlite.ts`, `Search.pg.ts`) and takes
   * its engine's here, rather than asking which engine it runs on.
   */
  readonly pick: <A>(parts: { readonly sqlite: A; readonly pg: A }) => A
}

/** How a `probe` reads the rows it finds. */
export interface Probe {
  /** The columns of the alias the statement reads (PostgreSQL's subquery gives only those). */
  readonly columns: string
  /** Whether one row matches at most (a unique key). */
  readonly atMostOne: boolean
}

/** `Dialect.jsonQuote` of each engine (tested on its own against both: test/repo/guest-json.test.ts). */
export const jsonQuoteSql: Record<Dialect["name"], Dialect["jsonQuote"]> = {
  sqlite: (expression) => `json_quote(${expression})`,
  pg: (expression) => `COALESCE(to_json(${expression})::text, 'null')`
}

/** `Dialect.jsonObjects` of each engine (tested on its own against both: test/repo/guest-json.test.ts). */
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

/** `a AND b`, or `b` alone. */
const both = (sql: SqlClient.SqlClient, a: Statement.Fragment | undefined, b: Statement.Fragment) => a === undefined ? b : sql`${a} AND ${b}`

/** PostgreSQL's `Dialect.probe`. */
const lateral = (sql: SqlClient.SqlClient, table: string, alias: string, on: Statement.Fragment, { atMostOne, columns }: Probe) =>
  sql`CROSS JOIN LATERAL (SELECT ${sql.literal(columns)} FROM ${sql.literal(`${table} ${alias}`)}
        WHERE ${on} ${sql.literal(atMostOne ? "LIMIT 1" : "OFFSET 0")}) ${sql.literal(alias)}`

const sqlite = (sql: SqlClient.SqlClient): Dialect => ({
  name: "sqlite",
  shared: false,
  clockMillis: sql.literal("CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"),
  skipLocked: sql.literal(""),
  values: (json) => sql`json_each(${json}) j`,
  inValues: (json) => sql`(SELECT value FROM json_each(${json}))`,
  rows: (json) => sql`json_each(${json}) j`,
  at: (index) => sql.literal(`j.value ->> ${index}`),
  same: (a, b) => sql`${a} IS ${b}`,
  jsonObjects: jsonObjectsSql.sqlite,
  jsonQuote: jsonQuoteSql.sqlite,
  nocase: (column) => sql.literal(`${column} COLLATE NOCASE`),
  param: (value) => sql`${value}`,
  bit: (condition) => `(${condition})`,
  caseInsensitiveLike: sql.literal("LIKE"),
  drivingJoin: sql.literal("CROSS JOIN"),
  probe: (table, alias, on) => sql`CROSS JOIN ${sql.literal(`${table} ${alias}`)} ON ${on}`,
  lookup: (table, alias, key, values, where) =>
    sql`FROM ${sql.literal(`${table} ${alias}`)} WHERE ${both(sql, where, sql`${sql.literal(`${alias}.${key}`)} IN (SELECT value FROM json_each(${values.json}))`)}`,
  inJsonText: (expression) => `(SELECT value FROM json_each(${expression}))`,
  placeholder: () => "?",
  textBytes: (column) => `CAST(${column} AS BLOB)`,
  streamBatch: (rows) => rows,
  pick: (parts) => parts.sqlite
})

const pg = (sql: SqlClient.SqlClient): Dialect => ({
  name: "pg",
  shared: true,
  clockMillis: sql.literal("(extract(epoch FROM clock_timestamp()) * 1000)::bigint"),
  skipLocked: sql.literal("FOR UPDATE SKIP LOCKED"),
  values: (json, type) =>
    sql`(SELECT v::${sql.literal(typeOf(type))} AS value, k AS key
          FROM jsonb_array_elements_text(${json}::jsonb) WITH ORDINALITY AS t(v, k)) j`,
  inValues: (json, type) => sql`(SELECT v::${sql.literal(typeOf(type))} FROM jsonb_array_elements_text(${json}::jsonb) AS t(v))`,
  rows: (json) => sql`jsonb_array_elements(${json}::jsonb) WITH ORDINALITY AS j(value, key)`,
  at: (index, type = "text") =>
    type === "text" ? sql.literal(`(j.value ->> ${index})`) : sql.literal(`(j.value ->> ${index})::${typeOf(type)}`),
  same: (a, b) => sql`${a} IS NOT DISTINCT FROM ${b}`,
  jsonObjects: jsonObjectsSql.pg,
  jsonQuote: jsonQuoteSql.pg,
  // byte order of the lower-cased text, as SQLite's NOCASE, whatever the database's collation
  nocase: (column) => sql.literal(`lower(${column}) COLLATE "C"`),
  param: (value, type) => sql`CAST(${value} AS ${sql.literal(typeOf(type))})`,
  bit: (condition) => `(${condition})::int`,
  caseInsensitiveLike: sql.literal("ILIKE"),
  drivingJoin: sql.literal("JOIN"),
  probe: (table, alias, on, probe) => lateral(sql, table, alias, on, probe),
  lookup: (table, alias, key, values, where, probe) =>
    sql`FROM (SELECT DISTINCT v::${sql.literal(typeOf(values.type))} AS value FROM jsonb_array_elements_text(${values.json}::jsonb) AS t(v)) j
        ${lateral(sql, table, alias, both(sql, where, sql`${sql.literal(`${alias}.${key}`)} = j.value`), probe)}`,
  inJsonText: (expression) => `(SELECT jsonb_array_elements_text(${expression}::jsonb))`,
  placeholder: (n) => `$${n}`,
  textBytes: (column) => `convert_to(${column}, 'UTF8')`,
  streamBatch: (rows) => Math.floor(rows / 2),
  pick: (parts) => parts.pg
})

/** The dialect of the client's engine. */
export const dialectOf = (sql: SqlClient.SqlClient): Dialect => sql.onDialectOrElse({ pg: () => pg(sql), orElse: () => sqlite(sql) })
