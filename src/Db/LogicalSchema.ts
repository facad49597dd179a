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

export type TypeClass = "integer" | "text" | "real" | "blob" | `other:${string}`

export interface Column {
  readonly name: string
  readonly type: TypeClass
  readonly nullable: boolean
  /** Position in the primary key, from 1; null when the column is not part of it. */
  readonly primaryKey: number | null
  /** The default, normalized; null without one. */
  readonly default: string | null
}

export interface ForeignKey {
  readonly columns: ReadonlyArray<string>
  readonly table: string
  readonly references: ReadonlyArray<string>
  readonly onDelete: string
  readonly onUpdate: string
}

export interface Index {
  readonly name: string
  /** Key columns in order; an expression key is `expr:<normalized expression>`. */
  readonly columns: ReadonlyArray<string>
  readonly unique: boolean
  /** A partial index's normalized predicate. */
  readonly where: string | null
}

export interface Check {
  /** The table's columns the check names, sorted. */
  readonly columns: ReadonlyArray<string>
  readonly expression: string
}

export interface Table {
  readonly name: string
  /** Sorted by name (column order is not part of the logical schema). */
  readonly columns: ReadonlyArray<Column>
  readonly uniques: ReadonlyArray<ReadonlyArray<string>>
  readonly foreignKeys: ReadonlyArray<ForeignKey>
  readonly indexes: ReadonlyArray<Index>
  readonly checks: ReadonlyArray<Check>
  readonly triggers: ReadonlyArray<string>
}

export interface View {
  readonly name: string
  /** In the view's order. */
  readonly columns: ReadonlyArray<string>
}

export interface LogicalSchema {
  readonly tables: Readonly<Record<string, Table>>
  readonly views: Readonly<Record<string, View>>
}

export interface EngineObject {
  /** e.g. `fts5 table`, `trigram index`, `identity`, `strict`. */
  readonly kind: string
  readonly name: string
  readonly table?: string
  readonly detail?: string
}

export interface SchemaReport {
  readonly engine: "sqlite" | "pg"
  readonly schema: LogicalSchema
  /** Left out of `schema` on purpose, sorted by kind and name. */
  readonly engineSpecific: ReadonlyArray<EngineObject>
}

/** The Migrator's own table (`@effect/sql` Migrator's default name). */
export const MIGRATIONS_TABLE = "effect_sql_migrations"

/**
 * The name search's counts of n-grams, kept by triggers on `persons`: of single characters on
 * SQLite (migrations/0018), of one to three on PostgreSQL (migrations/pg/0018).
 */
const SEARCH_COUNTS = "persons_search_counts"
/** SQLite's mark that an import counts its persons itself (migrations/0018). */
const SQLITE_SEARCH_COUNTING = "persons_search_counting"

// ---------------------------------------------------------------------------------------------
// Normalizing expressions

/**
 * An SQL expression as a comparable string: PostgreSQL's `= ANY (ARRAY[...])` becomes `IN (...)`,
 * casts (`::text`) and a numeric literal's quotes (`'-1'::integer`) go, then tokens are joined by
 * single spaces: words lower-cased, identifiers unquoted, parentheses dropped (PostgreSQL adds its
 * own around every operand), `==` as `=`, `!=` as `<>`, string literals kept as written.
 */
export const normalizeExpression = (text: string): string => {
  const rewritten = text
    .replace(/=\s*ANY\s*\(\s*ARRAY\s*\[([^\]]*)\]\s*\)/gi, "IN ($1)")
    .replace(/'(-?\d+(?:\.\d+)?)'::(?:smallint|integer|bigint|numeric|real|double precision)\b/gi, "$1")
    .replace(/::(?:double precision|character varying|timestamp with(?:out)? time zone|[a-z_][a-z0-9_]*)(?:\[\])?/gi, "")
  const tokens: Array<string> = []
  let i = 0
  while (i < rewritten.length) {
    const char = rewritten[i]!
    if (/\s|[()]/.test(char)) {
      i++
    } else if (char === "'") {
      let j = i + 1
      while (j < rewritten.length) {
        if (rewritten[j] === "'" && rewritten[j + 1] === "'") j += 2
        else if (rewritten[j] === "'") break
        else j++
      }
      tokens.push(rewritten.slice(i, j + 1))
      i = j + 1
    } else if (char === "\"" || char === "`" || char === "[") {
      const close = char === "[" ? "]" : char
      const j = rewritten.indexOf(close, i + 1)
      const end = j === -1 ? rewritten.length : j
      tokens.push(rewritten.slice(i + 1, end).toLowerCase())
      i = end + 1
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(rewritten.slice(i))![0]
      tokens.push(word.toLowerCase())
      i += word.length
    } else if (/\d/.test(char)) {
      const number = /^\d+(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(rewritten.slice(i))![0]
      const previous = tokens[tokens.length - 1]
      // a unary minus belongs to its number: `-1` whether written `- 1` or `'-1'::integer`
      if (previous === "-" && (tokens.length === 1 || /^(?:[=<>!,+*/-]|<>|<=|>=|in|and|or|not|is|between|like|case|then|else|when)$/.test(tokens[tokens.length - 2]!))) {
        tokens[tokens.length - 1] = `-${number}`
      } else {
        tokens.push(number)
      }
      i += number.length
    } else {
      const operator = /^(?:<>|<=|>=|==|!=|\|\||[=<>+\-*/%,.!])/.exec(rewritten.slice(i))?.[0] ?? char
      tokens.push(operator === "==" ? "=" : operator === "!=" ? "<>" : operator)
      i += operator.length
    }
  }
  return tokens.join(" ").replace(/ , /g, ", ")
}

/** The identifiers of an expression that are among `columns`, sorted. */
const columnsNamed = (expression: string, columns: ReadonlyArray<string>) => {
  const words = new Set(normalizeExpression(expression).split(" "))
  return columns.filter((column) => words.has(column.toLowerCase())).sort()
}

// ---------------------------------------------------------------------------------------------
// Scanning SQLite's CREATE statements (for what its PRAGMAs do not tell: checks, predicates,
// expression keys)

/** Index just past the quoted string, identifier or literal that starts at `i` (or `i + 1`). */
const skipQuoted = (text: string, i: number) => {
  const open = text[i]!
  const close = open === "[" ? "]" : open
  let j = i + 1
  while (j < text.length) {
    if (text[j] === close && text[j + 1] === close && close !== "]") j += 2
    else if (text[j] === close) return j + 1
    else j++
  }
  return j
}

/** The index of the parenthesis closing the one at `open`. */
const closingParen = (text: string, open: number) => {
  let depth = 0
  let i = open
  while (i < text.length) {
    const char = text[i]!
    if (char === "'" || char === "\"" || char === "`" || char === "[") {
      i = skipQuoted(text, i)
      continue
    }
    if (char === "(") depth++
    if (char === ")" && --depth === 0) return i
    i++
  }
  return text.length
}

/** Positions of `keyword` (a whole word, any case) outside quotes and at parenthesis depth `depth` or any. */
const keywordPositions = (text: string, keyword: string, depth?: number) => {
  const positions: Array<number> = []
  let level = 0
  let i = 0
  while (i < text.length) {
    const char = text[i]!
    if (char === "'" || char === "\"" || char === "`" || char === "[") {
      i = skipQuoted(text, i)
      continue
    }
    if (char === "(") level++
    if (char === ")") level--
    if (
      (depth === undefined || level === depth) &&
      text.slice(i, i + keyword.length).toUpperCase() === keyword &&
      !/[A-Za-z0-9_$]/.test(text[i - 1] ?? " ") &&
      !/[A-Za-z0-9_$]/.test(text[i + keyword.length] ?? " ")
    ) {
      positions.push(i)
      i += keyword.length
      continue
    }
    i++
  }
  return positions
}

/** Splits on commas at parenthesis depth 0, outside quotes. */
const splitTopLevel = (text: string) => {
  const parts: Array<string> = []
  let depth = 0
  let start = 0
  let i = 0
  while (i < text.length) {
    const char = text[i]!
    if (char === "'" || char === "\"" || char === "`" || char === "[") {
      i = skipQuoted(text, i)
      continue
    }
    if (char === "(") depth++
    else if (char === ")") depth--
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
    i++
  }
  parts.push(text.slice(start))
  return parts.map((part) => part.trim())
}

/** The CHECK expressions of a CREATE TABLE statement (column and table constraints alike). */
const sqliteChecks = (createTable: string) =>
  keywordPositions(createTable, "CHECK").flatMap((position) => {
    const open = createTable.indexOf("(", position)
    return open === -1 ? [] : [createTable.slice(open + 1, closingParen(createTable, open))]
  })

/** The predicate of a partial CREATE INDEX, or null. */
const sqlitePredicate = (createIndex: string) => {
  const where = keywordPositions(createIndex, "WHERE", 0)[0]
  return where === undefined ? null : normalizeExpression(createIndex.slice(where + "WHERE".length))
}

/** The key terms of a CREATE INDEX (`ON t (a, lower(b))` → `a`, `lower(b)`). */
const sqliteIndexTerms = (createIndex: string) => {
  const on = keywordPositions(createIndex, "ON", 0)[0] ?? 0
  const open = createIndex.indexOf("(", on)
  return open === -1 ? [] : splitTopLevel(createIndex.slice(open + 1, closingParen(createIndex, open)))
}

/** SQLite's column affinity rules (https://sqlite.org/datatype3.html#determination_of_column_affinity). */
const sqliteTypeClass = (declared: string): TypeClass => {
  const type = declared.toUpperCase()
  if (type.includes("INT")) return "integer"
  if (type.includes("CHAR") || type.includes("CLOB") || type.includes("TEXT")) return "text"
  if (type === "" || type.includes("BLOB")) return "blob"
  if (type.includes("REAL") || type.includes("FLOA") || type.includes("DOUB")) return "real"
  return `other:${declared.toLowerCase()}`
}

const pgTypeClass = (formatted: string): TypeClass => {
  const type = formatted.toLowerCase()
  if (type === "bigint" || type === "integer" || type === "smallint") return "integer"
  if (type === "text" || type.startsWith("character")) return "text"
  if (type === "double precision" || type === "real") return "real"
  if (type === "bytea") return "blob"
  return `other:${type}`
}

// ---------------------------------------------------------------------------------------------
// Assembling

const byName = <A extends { readonly name: string }>(items: ReadonlyArray<A>) =>
  [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

const sortedByJson = <A>(items: ReadonlyArray<A>) =>
  [...items].sort((a, b) => {
    const x = JSON.stringify(a)
    const y = JSON.stringify(b)
    return x < y ? -1 : x > y ? 1 : 0
  })

const record = <A extends { readonly name: string }>(items: ReadonlyArray<A>): Record<string, A> =>
  Object.fromEntries(byName(items).map((item) => [item.name, item]))

const sortObjects = (objects: ReadonlyArray<EngineObject>) =>
  [...objects].sort((a, b) => {
    const x = `${a.kind}\u0000${a.table ?? ""}\u0000${a.name}`
    const y = `${b.kind}\u0000${b.table ?? ""}\u0000${b.name}`
    return x < y ? -1 : x > y ? 1 : 0
  })

// ---------------------------------------------------------------------------------------------
// SQLite

interface SqliteTableRow {
  readonly name: string
  readonly type: string
  readonly wr: number
  readonly strict: number
}
interface SqliteColumnRow {
  readonly name: string
  readonly type: string
  readonly notnull: number
  readonly dflt_value: string | null
  readonly pk: number
  readonly hidden: number
}
interface SqliteIndexRow {
  readonly name: string
  readonly unique: number
  readonly origin: string
  readonly partial: number
}
interface SqliteIndexColumnRow {
  readonly seqno: number
  readonly cid: number
  readonly name: string | null
  readonly key: number
}
interface SqliteForeignKeyRow {
  readonly id: number
  readonly seq: number
  readonly table: string
  readonly from: string
  readonly to: string | null
  readonly on_update: string
  readonly on_delete: string
}
interface SqliteSchemaRow {
  readonly type: string
  readonly name: string
  readonly tbl_name: string
  readonly sql: string | null
}

export const readSqlite: Effect.Effect<SchemaReport, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const list = yield* sql<SqliteTableRow>`SELECT name, type, wr, strict FROM pragma_table_list WHERE schema = 'main' ORDER BY name`
  const objects = yield* sql<SqliteSchemaRow>`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name`
  const sqlOf = (type: string, name: string) => objects.find((row) => row.type === type && row.name === name)?.sql ?? ""
  const engineSpecific: Array<EngineObject> = []

  // FTS5 (and any virtual table) with its shadow tables: SQLite-only
  const virtual = list.filter((row) => row.type === "virtual" || row.type === "shadow")
  for (const row of virtual) {
    engineSpecific.push(
      row.type === "virtual" ? { kind: "virtual table", name: row.name, detail: sqlOf("table", row.name) } : { kind: "shadow table", name: row.name }
    )
  }
  const virtualNames = virtual.map((row) => row.name)
  const feedsVirtual = (triggerSql: string) => virtualNames.some((name) => new RegExp(`\\b${name}\\b`, "i").test(triggerSql))

  const tables: Array<Table> = []
  for (const row of list.filter((row) => row.type === "table")) {
    if (row.name.startsWith("sqlite_")) {
      if (row.name === "sqlite_sequence") engineSpecific.push({ kind: "autoincrement counters", name: row.name })
      continue
    }
    if (row.name === MIGRATIONS_TABLE) {
      engineSpecific.push({ kind: "migrations table", name: row.name })
      continue
    }
    if (row.name === SEARCH_COUNTS || row.name === SQLITE_SEARCH_COUNTING) {
      engineSpecific.push({ kind: "search counts table", name: row.name })
      continue
    }
    const createTable = sqlOf("table", row.name)
    if (row.strict === 1) engineSpecific.push({ kind: "strict", name: row.name })
    if (row.wr === 1) engineSpecific.push({ kind: "without rowid", name: row.name })

    const columnRows = (yield* sql<SqliteColumnRow>`SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(${row.name}) ORDER BY cid`)
      .filter((column) => column.hidden === 0 || column.hidden >= 2)
    const pkColumns = columnRows.filter((column) => column.pk > 0)
    // INTEGER PRIMARY KEY of a rowid table: the rowid itself, never NULL
    const rowidKey = row.wr === 0 && pkColumns.length === 1 && pkColumns[0]!.type.toUpperCase() === "INTEGER" ? pkColumns[0]!.name : undefined
    if (rowidKey !== undefined) {
      engineSpecific.push({ kind: "rowid key", table: row.name, name: rowidKey, ...(/\bAUTOINCREMENT\b/i.test(createTable) ? { detail: "AUTOINCREMENT" } : {}) })
    }
    const columnNames = columnRows.map((column) => column.name)
    const columns: Array<Column> = columnRows.map((column) => ({
      name: column.name,
      type: sqliteTypeClass(column.type),
      nullable: !(column.notnull === 1 || column.name === rowidKey || (column.pk > 0 && row.wr === 1)),
      primaryKey: column.pk > 0 ? column.pk : null,
      default: column.dflt_value === null ? null : normalizeExpression(column.dflt_value)
    }))

    const uniques: Array<ReadonlyArray<string>> = []
    const indexes: Array<Index> = []
    for (const index of yield* sql<SqliteIndexRow>`SELECT name, "unique", origin, partial FROM pragma_index_list(${row.name})`) {
      if (index.origin === "pk") continue
      const keyRows = (yield* sql<SqliteIndexColumnRow>`SELECT seqno, cid, name, "key" FROM pragma_index_xinfo(${index.name}) ORDER BY seqno`)
        .filter((key) => key.key === 1)
      if (index.origin === "u") {
        uniques.push(keyRows.map((key) => key.name ?? ""))
        continue
      }
      const createIndex = sqlOf("index", index.name)
      const terms = sqliteIndexTerms(createIndex)
      indexes.push({
        name: index.name,
        columns: keyRows.map((key, i) => key.cid === -2 ? `expr:${normalizeExpression(terms[i] ?? "")}` : key.name ?? "rowid"),
        unique: index.unique === 1,
        where: index.partial === 1 ? sqlitePredicate(createIndex) : null
      })
    }

    const foreignKeyRows = yield* sql<SqliteForeignKeyRow>`SELECT id, seq, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list(${row.name}) ORDER BY id, seq`
    const foreignKeys: Array<ForeignKey> = []
    for (const id of [...new Set(foreignKeyRows.map((fk) => fk.id))]) {
      const parts = foreignKeyRows.filter((fk) => fk.id === id)
      const first = parts[0]!
      // `REFERENCES t` without columns names t's primary key
      const references = parts.every((fk) => fk.to !== null)
        ? parts.map((fk) => fk.to!)
        : (yield* sql<SqliteColumnRow>`SELECT name, pk FROM pragma_table_xinfo(${first.table}) WHERE pk > 0 ORDER BY pk`).map((column) => column.name)
      foreignKeys.push({ columns: parts.map((fk) => fk.from), table: first.table, references, onDelete: first.on_delete.toUpperCase(), onUpdate: first.on_update.toUpperCase() })
    }

    const checks = sqliteChecks(createTable).map((expression) => ({ columns: columnsNamed(expression, columnNames), expression: normalizeExpression(expression) }))

    const triggers: Array<string> = []
    for (const trigger of objects.filter((object) => object.type === "trigger" && object.tbl_name === row.name)) {
      if (feedsVirtual(trigger.sql ?? "")) engineSpecific.push({ kind: "trigger feeding a virtual table", table: row.name, name: trigger.name })
      else triggers.push(trigger.name)
    }

    tables.push({
      name: row.name,
      columns: byName(columns),
      uniques: sortedByJson(uniques),
      foreignKeys: sortedByJson(foreignKeys),
      indexes: byName(indexes),
      checks: sortedByJson(checks),
      triggers: [...triggers].sort()
    })
  }

  const views: Array<View> = []
  for (const row of list.filter((row) => row.type === "view")) {
    const columns = yield* sql<SqliteColumnRow>`SELECT name FROM pragma_table_xinfo(${row.name}) ORDER BY cid`
    views.push({ name: row.name, columns: columns.map((column) => column.name) })
  }

  return { engine: "sqlite", schema: { tables: record(tables), views: record(views) }, engineSpecific: sortObjects(engineSpecific) }
})

// ---------------------------------------------------------------------------------------------
// PostgreSQL

interface PgRelationRow {
  readonly name: string
  readonly kind: string
}
interface PgColumnRow {
  readonly table_name: string
  readonly name: string
  readonly type: string
  readonly not_null: boolean
  readonly default_expression: string | null
  readonly identity: string
  readonly generated: string
}
interface PgConstraintRow {
  readonly table_name: string
  readonly name: string
  readonly type: string
  readonly columns: ReadonlyArray<string> | null
  readonly referenced_table: string | null
  readonly referenced_columns: ReadonlyArray<string> | null
  readonly on_delete: string
  readonly on_update: string
  readonly definition: string
}
interface PgIndexRow {
  readonly table_name: string
  readonly name: string
  readonly unique: boolean
  readonly keys: ReadonlyArray<string>
  readonly key_columns: ReadonlyArray<number>
  readonly predicate: string | null
  readonly backs_constraint: boolean
  readonly definition: string
}
interface PgTriggerRow {
  readonly table_name: string
  readonly name: string
  readonly definition: string
}

const pgActions: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" }

/** Unquotes an identifier as pg_get_indexdef prints it (`"key"` → `key`). */
const pgIdentifier = (text: string) => /^"(?:[^"]|"")*"$/.test(text) ? text.slice(1, -1).replace(/""/g, "\"") : text

export const readPg: Effect.Effect<SchemaReport, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const engineSpecific: Array<EngineObject> = []

  const relations = yield* sql<PgRelationRow>`
    SELECT c.relname AS name, c.relkind::text AS kind
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
    ORDER BY c.relname`
  const columnRows = yield* sql<PgColumnRow>`
    SELECT c.relname AS table_name, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
      a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default_expression,
      a.attidentity::text AS identity, a.attgenerated::text AS generated
    FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`
  const constraintRows = yield* sql<PgConstraintRow>`
    SELECT c.relname AS table_name, k.conname AS name, k.contype::text AS type,
      ARRAY(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY AS u(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.attnum ORDER BY u.ord) AS columns,
      f.relname AS referenced_table,
      ARRAY(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY AS u(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.attnum ORDER BY u.ord) AS referenced_columns,
      k.confdeltype::text AS on_delete, k.confupdtype::text AS on_update, pg_get_constraintdef(k.oid) AS definition
    FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_class f ON f.oid = k.confrelid
    WHERE n.nspname = current_schema()
    ORDER BY c.relname, k.conname`
  const indexRows = yield* sql<PgIndexRow>`
    SELECT t.relname AS table_name, i.relname AS name, x.indisunique AS unique,
      ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts::int) AS k ORDER BY k) AS keys,
      ARRAY(SELECT x.indkey[k - 1]::int FROM generate_series(1, x.indnkeyatts::int) AS k ORDER BY k) AS key_columns,
      pg_get_expr(x.indpred, x.indrelid, true) AS predicate,
      EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid AND k.contype IN ('p', 'u', 'x')) AS backs_constraint,
      pg_get_indexdef(x.indexrelid) AS definition
    FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema()
    ORDER BY t.relname, i.relname`
  const triggerRows = yield* sql<PgTriggerRow>`
    SELECT c.relname AS table_name, t.tgname AS name, pg_get_triggerdef(t.oid) AS definition
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND NOT t.tgisinternal
    ORDER BY c.relname, t.tgname`
  const extensions = yield* sql<{ readonly name: string; readonly version: string }>`
    SELECT extname AS name, extversion AS version FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY extname`
  const functions = yield* sql<{ readonly name: string; readonly definition: string }>`
    SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS definition
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = current_schema()
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    ORDER BY p.proname`

  for (const extension of extensions) engineSpecific.push({ kind: "extension", name: extension.name, detail: extension.version })
  for (const fn of functions) engineSpecific.push({ kind: "function", name: `${fn.name}(${fn.definition})` })

  const tables: Array<Table> = []
  for (const relation of relations.filter((relation) => relation.kind !== "v" && relation.kind !== "m")) {
    if (relation.name === MIGRATIONS_TABLE) {
      engineSpecific.push({ kind: "migrations table", name: relation.name })
      continue
    }
    if (relation.name === SEARCH_COUNTS) {
      engineSpecific.push({ kind: "search counts table", name: relation.name })
      continue
    }
    const constraints = constraintRows.filter((row) => row.table_name === relation.name)
    const primaryKey = constraints.find((row) => row.type === "p")?.columns ?? []
    const ownColumns = columnRows.filter((row) => row.table_name === relation.name)
    const columnNames = ownColumns.map((row) => row.name)
    const columns: Array<Column> = ownColumns.map((row) => {
      if (row.identity !== "") {
        engineSpecific.push({ kind: "identity", table: relation.name, name: row.name, detail: row.identity === "a" ? "GENERATED ALWAYS" : "GENERATED BY DEFAULT" })
      }
      const position = primaryKey.indexOf(row.name)
      return {
        name: row.name,
        type: pgTypeClass(row.type),
        nullable: !row.not_null,
        primaryKey: position === -1 ? null : position + 1,
        default: row.default_expression === null ? null : normalizeExpression(row.default_expression)
      }
    })
    const indexes: Array<Index> = []
    for (const row of indexRows.filter((row) => row.table_name === relation.name && !row.backs_constraint)) {
      if (/_trgm_ops\b/.test(row.definition)) {
        engineSpecific.push({ kind: "trigram index", table: relation.name, name: row.name, detail: row.definition })
        continue
      }
      indexes.push({
        name: row.name,
        columns: row.keys.map((key, i) => Number(row.key_columns[i]) === 0 ? `expr:${normalizeExpression(key)}` : pgIdentifier(key)),
        unique: row.unique,
        where: row.predicate === null ? null : normalizeExpression(row.predicate)
      })
    }
    tables.push({
      name: relation.name,
      columns: byName(columns),
      uniques: sortedByJson(constraints.filter((row) => row.type === "u").map((row) => row.columns ?? [])),
      foreignKeys: sortedByJson(constraints.filter((row) => row.type === "f").map((row) => ({
        columns: row.columns ?? [],
        table: row.referenced_table ?? "",
        references: row.referenced_columns ?? [],
        onDelete: pgActions[row.on_delete] ?? row.on_delete,
        onUpdate: pgActions[row.on_update] ?? row.on_update
      }))),
      indexes: byName(indexes),
      checks: sortedByJson(constraints.filter((row) => row.type === "c").map((row) => {
        const expression = row.definition.replace(/^CHECK\s*/i, "").replace(/\s+NOT VALID$/i, "")
        return { columns: columnsNamed(expression, columnNames), expression: normalizeExpression(expression) }
      })),
      triggers: triggerRows.filter((row) => {
        if (row.table_name !== relation.name) return false
        const feedsCounts = /\bEXECUTE FUNCTION (?:\w+\.)?persons_search_count_\w*\(/.test(row.definition)
        if (feedsCounts) engineSpecific.push({ kind: "trigger feeding the search counts", table: relation.name, name: row.name })
        return !feedsCounts
      }).map((row) => row.name).sort()
    })
  }

  const views: Array<View> = relations
    .filter((relation) => relation.kind === "v" || relation.kind === "m")
    .map((relation) => ({ name: relation.name, columns: columnRows.filter((row) => row.table_name === relation.name).map((row) => row.name) }))

  return { engine: "pg", schema: { tables: record(tables), views: record(views) }, engineSpecific: sortObjects(engineSpecific) }
})

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
