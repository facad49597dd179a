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
 * | a substring of a person's name (`nameSearch`) | FTS5 tables of the name's n-grams in the person's scope; the total of a term of one character from `persons_search_counts`, of two or three from the tables' `fts5vocab` counts | `LIKE` on `name_key` (the `pg_trgm` GIN index for terms with a trigram); the total of a term of up to three characters from `persons_search_counts` |
 *
 * Everything else the repositories write is common SQL: `INSERT … ON CONFLICT`, `RETURNING`,
 * `LIMIT … OFFSET`, `->>` on JSON text columns, ISO-8601 text dates compared as text, 0/1 integers
 * for booleans (both schemas, migrations/pg/0001_tenancy.ts).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { gramToken, likeContains, NGRAM, searchScope, termCharacters } from "../Persons/Keys.js"

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
  /**
   * SQL text (no parameters) giving a text expression (or NULL) as a JSON string literal (`null`
   * for NULL), as `JSON.stringify` writes it (test/repo/guest-json.test.ts).
   */
  readonly jsonQuote: (expression: string) => string
  /** `column`, ordered without regard to case. */
  readonly nocase: (column: string) => Statement.Fragment
  /**
   * The persons of an organization whose name contains `term` (case-insensitive: `name_key`
   * contains the lower-cased term), active ones, archived ones or both (`states`).
   */
  readonly nameSearch: (organizationId: OrganizationRowId, states: NameStates, term: string) => NameSearch
}

/** Which of an organization's persons a name search looks at. */
export type NameStates = "active" | "archived" | "any"

export interface NameSearch {
  /** A SELECT of the `id`s of the matching persons from the `skip`th, at most `limit`, in creation order. */
  readonly pageIds: (limit: number, skip: number) => Statement.Fragment
  /** A statement answering the number of matching persons as `total`. */
  readonly count: Statement.Statement<unknown>
  /**
   * Whether `count` reads a number kept as persons are written (a count table's, an index's own),
   * not every match: then it costs about the same for any term, and a search asks it first (a page
   * past the total is not read).
   */
  readonly totalKept: boolean
}

const statesOf = (states: NameStates): ReadonlyArray<boolean> =>
  states === "active" ? [false] : states === "archived" ? [true] : [false, true]

/** The persons an n-gram's count in `persons_search_counts` (both engines, engine-own) gives. */
const countedGrams = (sql: SqlClient.SqlClient, organizationId: OrganizationRowId, states: NameStates, gram: string) =>
  sql`SELECT coalesce(sum(persons), 0) AS total FROM persons_search_counts
      WHERE organization_id = ${organizationId} AND archived IN ${sql.in(statesOf(states).map((archived) => archived ? 1 : 0))}
        AND gram = ${gram}`

/**
 * Whether pg_trgm takes a trigram from the pattern `%term%`: it splits the term into words
 * (letters and digits) and pads each with two spaces before and one after, except where the
 * pattern's `%` touches it. (A term of one or two characters never has one.)
 */
const hasTrigram = (term: string) =>
  Array.from(term.matchAll(/[\p{L}\p{N}]+/gu)).some((word) =>
    [...word[0]].length + (word.index === 0 ? 0 : 2) + (word.index + word[0].length === term.length ? 0 : 1) >= 3
  )

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

const sqlite = (sql: SqlClient.SqlClient): Dialect => ({
  name: "sqlite",
  values: (json) => sql`json_each(${json}) j`,
  inValues: (json) => sql`(SELECT value FROM json_each(${json}))`,
  rows: (json) => sql`json_each(${json}) j`,
  at: (index) => sql.literal(`j.value ->> ${index}`),
  same: (a, b) => sql`${a} IS ${b}`,
  jsonObjects: jsonObjectsSql.sqlite,
  jsonQuote: jsonQuoteSql.sqlite,
  nocase: (column) => sql.literal(`${column} COLLATE NOCASE`),
  // migrations/0018_person_search_ngrams.ts: one token per n-gram and scope; a term of up to three
  // characters is one token, a longer one the phrase of its trigrams; `a OR b` lists both scopes'
  // persons merged in rowid (creation) order. The total of one character is kept in
  // `persons_search_counts`, of two or three the vocabulary table counts from the index.
  nameSearch: (organizationId, states, term) => {
    const characters = termCharacters(term)
    const short = characters.length < NGRAM
    const table = sql.literal(short ? "persons_search_short" : "persons_search")
    const scopes = statesOf(states).map((archived) => searchScope(organizationId, archived))
    const grams = characters.length <= NGRAM
      ? [characters.join("")]
      : characters.slice(NGRAM - 1).map((_, i) => characters.slice(i, i + NGRAM).join(""))
    const match = scopes.map((scope) => `"${grams.map((gram) => gramToken(scope, gram)).join(" ")}"`).join(" OR ")
    return {
      pageIds: (limit, skip) => sql`SELECT rowid FROM ${table} WHERE ${table} MATCH ${match} ORDER BY rowid LIMIT ${limit} OFFSET ${skip}`,
      count: characters.length === 1
        ? countedGrams(sql, organizationId, states, characters[0]!)
        : characters.length <= NGRAM
        ? sql`SELECT coalesce(sum(doc), 0) AS total FROM ${sql.literal(short ? "persons_search_short_terms" : "persons_search_terms")}
              WHERE term IN ${sql.in(scopes.map((scope) => gramToken(scope, grams[0]!)))}`
        : sql`SELECT count(*) AS total FROM ${table} WHERE ${table} MATCH ${match}`,
      totalKept: characters.length <= NGRAM
    }
  }
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
  jsonQuote: jsonQuoteSql.pg,
  // byte order of the lower-cased text, as SQLite's NOCASE, whatever the database's collation
  nocase: (column) => sql.literal(`lower(${column}) COLLATE "C"`),
  // The page: the trigram index serves LIKE when the term holds a trigram (`hasTrigram`).
  // Otherwise the index would hand every row over to be rechecked, slower than a scan, and the
  // planner cannot tell: the term's LIKE is then under another collation than the index's, which
  // keeps the index out. LIKE matches the same under any deterministic collation, and the planner
  // still estimates it from name_key's statistics: a common term walks the persons in id order and
  // stops at the page, a rare one scans them once. The total of a term of up to three characters
  // is the count `persons_search_counts` keeps of that n-gram (migrations/pg/0018).
  nameSearch: (organizationId, states, term) => {
    const characters = termCharacters(term)
    const filter = sql.literal(states === "active" ? "AND p.archived_at IS NULL" : states === "archived" ? "AND p.archived_at IS NOT NULL" : "")
    const where = sql`WHERE p.organization_id = ${organizationId} ${filter} AND ${
      hasTrigram(term.toLowerCase())
        ? sql`p.name_key LIKE ${likeContains(term)} ESCAPE '\\'`
        : sql`p.name_key COLLATE "C" LIKE ${likeContains(term)} ESCAPE '\\'`
    }`
    return {
      pageIds: (limit, skip) => sql`SELECT p.id FROM persons p ${where} ORDER BY p.id LIMIT ${limit} OFFSET ${skip}`,
      count: characters.length <= NGRAM
        ? countedGrams(sql, organizationId, states, characters.join(""))
        : sql`SELECT count(*) AS total FROM persons p ${where}`,
      totalKept: characters.length <= NGRAM
    }
  }
})

/** The dialect of the client's engine. */
export const dialectOf = (sql: SqlClient.SqlClient): Dialect => sql.onDialectOrElse({ pg: () => pg(sql), orElse: () => sqlite(sql) })
