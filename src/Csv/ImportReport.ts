/**
 * The answer of a CSV import (docs/integrators.md#csv-export-and-import): `{ dryRun, rows, created, updated, unchanged, errors:
 * [{ row, column, message }], unknownColumns }`, plus the feature's own counts (a guest list's
 * `added`). A real import with any row error writes nothing and answers 422 with the same body,
 * to which `message` and `code: "import_rejected"` are added, so that a client reading every error
 * body's `message` (every error body is `{ message, code, issues? }`) has one, and can tell it from the other 422 (`idempotency_key_reused`).
 *
 * Rows are numbered from 1, the first record after the header (blank records count, so row N is
 * the spreadsheet's line N + 1 whatever is skipped). `column` is the header as the file gives it,
 * or the field's name when the file has no such column; null when the error is the row's as a whole.
 * At most `MAX_LISTED_ERRORS` are listed, in row order; `errorsOmitted` says how many more there are.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Schema from "effect/Schema"

export const MAX_LISTED_ERRORS = 1_000

export const RowError = Schema.Struct({
  row: Schema.Int,
  column: Schema.NullOr(Schema.String),
  message: Schema.String
}).annotations({
  identifier: "CsvRowError",
  description: "A row the import refuses: row 1 is the first record after the header; column is the header as the file gives it " +
    "(or the field's name when the file lacks the column), null for the row as a whole."
})
export type RowError = typeof RowError.Type

const countFields = {
  dryRun: Schema.Boolean,
  rows: Schema.Int.annotations({ description: "Data rows read (blank rows not counted)" }),
  created: Schema.Int,
  updated: Schema.Int.annotations({ description: "Existing records whose blank fields the import filled" }),
  unchanged: Schema.Int
}

const listFields = {
  errors: Schema.Array(RowError),
  errorsOmitted: Schema.optionalWith(Schema.Int, { exact: true }).annotations({
    description: `Errors not listed: only the first ${MAX_LISTED_ERRORS} are (present only when some are left out)`
  }),
  unknownColumns: Schema.Array(Schema.String).annotations({
    description: "Headers that match no field: their cells are ignored, and the import goes on"
  })
}

/** The success and 422 schemas of one import endpoint; `extra` are its own counts, after `unchanged`. */
export const importSchemas = <const Extra extends Schema.Struct.Fields>(name: string, extra: Extra) => {
  const Report = Schema.Struct({ ...countFields, ...extra, ...listFields }).annotations({
    identifier: `${name}ImportReport`,
    description: "What the import did, or with dryRun what it would do"
  })
  const Rejected = Schema.Struct({
    message: Schema.String,
    code: Schema.Literal("import_rejected"),
    ...countFields,
    ...extra,
    ...listFields
  }).annotations({
    identifier: `${name}ImportRejected`,
    description: "Some rows have errors: nothing was written. The counts say what the other rows would have done."
  })
  return { Report, Rejected } as const
}

/** Row errors as they are found; the answer lists them in row order, capped (`report`). */
export class RowErrors {
  private readonly found: Array<RowError> = []
  private readonly rowsWithErrors = new Set<number>()

  add(row: number, column: string | null, message: string): void {
    this.rowsWithErrors.add(row)
    this.found.push({ row, column, message })
  }

  /** Whether row `row` has an error. */
  has(row: number): boolean {
    return this.rowsWithErrors.has(row)
  }

  get size(): number {
    return this.found.length
  }

  /** These errors and those of `others`, in one new list. */
  with(...others: ReadonlyArray<RowErrors>): RowErrors {
    const all = new RowErrors()
    for (const list of [this, ...others]) for (const e of list.found) all.add(e.row, e.column, e.message)
    return all
  }

  /** `errors` (by row, then as found) and `errorsOmitted` for the answer. */
  report(): { readonly errors: ReadonlyArray<RowError>; readonly errorsOmitted?: number } {
    const sorted = [...this.found].sort((a, b) => a.row - b.row)
    const errors = sorted.slice(0, MAX_LISTED_ERRORS)
    return sorted.length > errors.length ? { errors, errorsOmitted: sorted.length - errors.length } : { errors }
  }
}

interface ReportShape {
  readonly dryRun: boolean
  readonly errors: ReadonlyArray<RowError>
  readonly errorsOmitted?: number
}

/**
 * The HTTP answer: 200 with the report, or 422 when a real import was refused for row errors.
 * Sent without the schema's encoder (its encoding is the identity), like `jsonAs`.
 */
export const importAnswer = <Report extends ReportShape>(report: Report): HttpServerResponse.HttpServerResponse => {
  if (report.dryRun || report.errors.length === 0) return HttpServerResponse.unsafeJson(report)
  const total = report.errors.length + (report.errorsOmitted ?? 0)
  const rows = new Set(report.errors.map((e) => e.row)).size
  const message = `The import was refused: ${total} error${total === 1 ? "" : "s"}` +
    (report.errorsOmitted === undefined ? ` in ${rows} row${rows === 1 ? "" : "s"}` : ` (the first ${report.errors.length} listed)`) +
    "; nothing was written"
  return HttpServerResponse.unsafeJson({ message, code: "import_rejected", ...report }, { status: 422 })
}
