/** The logical schema of a PostgreSQL database (LogicalSchema.ts says what is compared). */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import {
  type Column,
  type EngineObject,
  type Index,
  MIGRATIONS_TABLE,
  type SchemaReport,
  SEARCH_COUNTS,
  type Table,
  type View
} from "./Schema.js"
import { byName, columnsNamed, normalizeExpression, pgTypeClass, record, sortedByJson, sortObjects } from "./Text.js"

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
