/** The logical schema of a SQLite database (LogicalSchema.ts says what is compared). */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import {
  type Column,
  type EngineObject,
  type ForeignKey,
  type Index,
  MIGRATIONS_TABLE,
  type SchemaReport,
  SEARCH_COUNTS,
  SQLITE_SEARCH_COUNTING,
  type Table,
  type View
} from "./Schema.js"
import {
  byName,
  columnsNamed,
  normalizeExpression,
  record,
  sortedByJson,
  sortObjects,
  sqliteChecks,
  sqliteIndexTerms,
  sqlitePredicate,
  sqliteTypeClass
} from "./Text.js"

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
