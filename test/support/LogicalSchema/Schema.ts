/** The logical schema's shape (LogicalSchema.ts says what is compared), and the objects left out of it by name. */
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
export const SEARCH_COUNTS = "persons_search_counts"
/** SQLite's mark that an import counts its persons itself (migrations/0018). */
export const SQLITE_SEARCH_COUNTING = "persons_search_counting"
