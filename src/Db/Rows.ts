/**
 * Rows decoded by schemas: how `DirectSql.rows` and `first` check what the engine gives against
 * the row's schema (columns as the migrations type them, on both engines: numbers for integers,
 * bigint included (Postgres.ts), text, 0/1 for booleans, bytes as `Uint8Array`s).
 *
 * A row the schema refuses is not an error a caller can handle: the statement and its schema
 * disagree, which is a bug. It is a defect whose message names the statement and the mismatch, so
 * that the log line says which query and which column. Each row is decoded on its own, in one
 * synchronous loop (no Effect per row), with the schema's memoized parser.
 */
import type * as SqlError from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"

/** The defect of a row that its statement's schema refuses. */
export class RowMismatch extends Error {
  override readonly name = "RowMismatch"
  constructor(readonly statement: string, readonly issue: string) {
    super(`A row of the statement \`${statement}\` does not match its schema:\n${issue}`)
  }
}

/** The statement's SQL text on one line, shortened: enough to find it in the code. */
const describe = (statement: Statement.Statement<unknown>) => {
  const text = statement.compile()[0].replace(/\s+/g, " ").trim()
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

const mismatch = (statement: Statement.Statement<unknown>, issue: ParseResult.ParseIssue) =>
  Effect.die(new RowMismatch(describe(statement), ParseResult.TreeFormatter.formatIssueSync(issue)))

/** Every row decoded by `schema`, or the defect of the first it refuses. */
export const decodeRows = <A, I>(
  schema: Schema.Schema<A, I, never>,
  statement: Statement.Statement<unknown>,
  rows: ReadonlyArray<unknown>
): Effect.Effect<ReadonlyArray<A>> => {
  const decode = ParseResult.decodeUnknownEither(schema)
  const decoded = new Array<A>(rows.length)
  for (let i = 0; i < rows.length; i++) {
    const row = decode(rows[i])
    if (row._tag === "Left") return mismatch(statement, row.left)
    decoded[i] = row.right
  }
  return Effect.succeed(decoded)
}

/** The row (if any) decoded by `schema`, or the defect of its refusal. */
export const decodeFirst = <A, I>(
  schema: Schema.Schema<A, I, never>,
  statement: Statement.Statement<unknown>,
  row: unknown
): Effect.Effect<A | undefined> => {
  if (row === undefined) return Effect.succeed(undefined)
  const decoded = ParseResult.decodeUnknownEither(schema)(row)
  return decoded._tag === "Left" ? mismatch(statement, decoded.left) : Effect.succeed(decoded.right)
}

/** Reads of an engine whose rows are decoded by the schema each call names. */
export const decodedReads = (engine: {
  readonly rows: (statement: Statement.Statement<unknown>) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>
  readonly first: (statement: Statement.Statement<unknown>) => Effect.Effect<unknown, SqlError.SqlError>
}) => ({
  rows: <A, I>(schema: Schema.Schema<A, I, never>, statement: Statement.Statement<unknown>) =>
    Effect.flatMap(engine.rows(statement), (rows) => decodeRows(schema, statement, rows)),
  first: <A, I>(schema: Schema.Schema<A, I, never>, statement: Statement.Statement<unknown>) =>
    Effect.flatMap(engine.first(statement), (row) => decodeFirst(schema, statement, row))
})
