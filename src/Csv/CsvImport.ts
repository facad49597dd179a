/**
 * Reading an imported CSV (docs/integrators.md#csv-export-and-import) into rows of cells, for a feature that supplies its columns
 * (`HeaderSpec`) and then validates and writes the rows itself. What spreadsheets make is accepted:
 * - a UTF-8 BOM (the body was checked to be UTF-8 when it was read: CsvBody.ts);
 * - separators: comma, semicolon (spreadsheets in locales whose decimal mark is a comma write `;`)
 *   or tab, found from the header row: the one of the three that occurs most often outside quotes
 *   there (ties: comma). Headers are known words, so the count is not misled by data. A first line
 *   `sep=;` (Excel's hint) names the separator itself and is not part of the table;
 * - CRLF, LF or CR line ends, quoted fields with the separator, quotes (`""`) or line breaks in them,
 *   stray quotes inside unquoted fields, spaces after a separator, rows shorter than the header
 *   (CsvRecords.ts);
 * - headers matched whatever their case, spaces and punctuation (`First name`, `first_name`,
 *   `firstName` and `FIRST-NAME` are one header), and the aliases a feature gives (persons:
 *   `E-mail address`, `ZIP`, `Surname`...) (CsvHeader.ts). A header that matches nothing is
 *   reported in `unknownColumns` and its cells are ignored; the import goes on.
 * Cells are trimmed (as every string of the API is) and the export's formula prefix is taken off
 * (Formula.ts); an empty cell is "no value".
 *
 * The whole file is refused with 400 (nothing to report row by row) when it has no header row,
 * lacks a required column, has two columns for one field, holds U+0000 in the header, has more than
 * `MAX_CSV_COLUMNS` columns or `MAX_CSV_ROWS` rows, or cannot be parsed (an unclosed quote). Row
 * problems found here (U+0000 in a cell, which SQLite's text functions would read as the end of the
 * text and PostgreSQL's text cannot hold; cells past the header's end) are row errors, reported
 * with the others.
 *
 * Rows are handed to the feature's sink as they are read (nothing here keeps them), and the parse
 * runs in slices, each followed by a turn of the event loop (CsvRecords.ts).
 */
import * as Effect from "effect/Effect"
import { InvalidRequest } from "../Domain/Errors.js"
import { MAX_CSV_ROWS } from "./CsvBody.js"
import { type CsvHeader, type Header, headerOfFile, type HeaderSpec, matchHeader, refuse } from "./CsvHeader.js"
import { detectDelimiter, parseRecords } from "./CsvRecords.js"
import { restore } from "./Formula.js"
import { RowErrors } from "./ImportReport.js"

export {
  type CsvHeader,
  type ExtraColumn,
  type HeaderSpec,
  type ImportColumn,
  matchHeader,
  normalizeHeader,
  type Slot
} from "./CsvHeader.js"
export { detectDelimiter } from "./CsvRecords.js"

export interface CsvRow {
  /** 1 = the first record after the header. */
  readonly row: number
  /** One per slot, in slot order: trimmed, formula prefix removed, "" when empty. */
  readonly cells: ReadonlyArray<string>
}

/**
 * Takes each non-blank row as it is read (rows are not kept: a feature keeps what it makes of
 * them), adding the row's errors to `errors`.
 */
export type RowSink<K extends string, X> = (row: CsvRow, header: CsvHeader<K, X>, errors: RowErrors) => void

/** What reading found, besides the rows it handed to the sink. */
export interface CsvSummary<K extends string, X> extends CsvHeader<K, X> {
  /** Non-blank data rows read. */
  readonly rows: number
  readonly unknownColumns: ReadonlyArray<string>
  /** Row errors found while reading, the sink's included. */
  readonly errors: RowErrors
}

export interface ReadOptions {
  readonly maxRows?: number
}

const isBlank = (record: ReadonlyArray<string>) => record.every((cell) => cell.trim() === "")

/** Reads a CSV import (see above), handing each non-blank row to `sink` as it is read. */
export const readCsv = <K extends string, X>(
  body: string,
  spec: HeaderSpec<K, X>,
  sink: RowSink<K, X>,
  options: ReadOptions = {}
): Effect.Effect<CsvSummary<K, X>, InvalidRequest> =>
  Effect.gen(function*() {
    const maxRows = options.maxRows ?? MAX_CSV_ROWS
    const text = body.startsWith("\ufeff") ? body.slice(1) : body
    if (text.trim() === "") return yield* refuse("The CSV is empty: it needs a header row and a row per record")
    const { delimiter, start } = detectDelimiter(text)
    const errors = new RowErrors()
    const state: { header?: Header<K, X>; records: number; rows: number } = { records: 0, rows: 0 }
    const blankWithData = new Set<number>()
    yield* parseRecords(text, start, delimiter, (record) => {
      const header = state.header
      if (header === undefined) {
        if (isBlank(record)) return undefined
        const headers = record.map((cell) => cell.trim())
        const matched = matchHeader(headers, spec)
        if (matched instanceof InvalidRequest) return matched
        state.header = headerOfFile(delimiter, headers, matched)
        return undefined
      }
      const row = ++state.records
      if (isBlank(record)) return undefined
      if (state.rows === maxRows) {
        return refuse(`The CSV has more than ${maxRows} rows: split it into several imports`)
      }
      state.rows++
      const cells = header.slots.map((slot) => {
        const cell = record[slot.index] ?? ""
        if (cell.includes("\u0000")) {
          errors.add(row, slot.header, "holds the NUL character (U+0000)")
          return ""
        }
        return restore(cell).trim()
      })
      if (record.length > header.headers.length && record.slice(header.headers.length).some((cell) => cell.trim() !== "")) {
        errors.add(
          row,
          null,
          `has ${record.length} cells but the header has ${header.headers.length}: is a separator missing from the header, or a quote from a cell?`
        )
      }
      // the blank header cells are in column order: none past the row's own cells is looked at
      for (const index of header.blank) {
        if (index >= record.length) break
        if (record[index]!.trim() !== "") blankWithData.add(index)
      }
      sink({ row, cells }, header, errors)
      return undefined
    })
    const header = state.header
    if (header === undefined) return yield* refuse("The CSV is empty: it needs a header row and a row per record")
    const { headerOf, headers, slotOf, slots, unknown } = header
    const unknownColumns = [...unknown, ...blankWithData].sort((a, b) => a - b).map((i) =>
      headers[i] === "" ? `(column ${i + 1}, no header)` : headers[i]!
    )
    return { delimiter, slots, slotOf, headerOf, rows: state.rows, unknownColumns, errors }
  })
