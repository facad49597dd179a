/**
 * Reading an imported CSV (docs/integrators.md#csv-export-and-import) into rows of cells, for a feature that supplies its columns
 * (`HeaderSpec`) and then validates and writes the rows itself. What spreadsheets make is accepted:
 * - a UTF-8 BOM (the body was checked to be UTF-8 when it was read: CsvBody.ts);
 * - separators: comma, semicolon (spreadsheets in locales whose decimal mark is a comma write `;`)
 *   or tab, found from the header row: the one of the three that occurs most often outside quotes
 *   there (ties: comma). Headers are known words, so the count is not misled by data. A first line
 *   `sep=;` (Excel's hint) names the separator itself and is not part of the table;
 * - CRLF, LF or CR line ends, quoted fields with the separator, quotes (`""`) or line breaks in them,
 *   stray quotes inside unquoted fields, spaces after a separator, rows shorter than the header;
 * - headers matched whatever their case, spaces and punctuation (`First name`, `first_name`,
 *   `firstName` and `FIRST-NAME` are one header), and the aliases a feature gives (persons:
 *   `E-mail address`, `ZIP`, `Surname`...). A header that matches nothing is reported in
 *   `unknownColumns` and its cells are ignored; the import goes on.
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
 * runs in slices of `SLICE_CHARS`, each followed by a turn of the event loop.
 */
import { CsvError, Parser } from "csv-parse"
import * as Effect from "effect/Effect"
import { InvalidRequest } from "../Domain/Errors.js"
import { MAX_CSV_COLUMNS, MAX_CSV_ROWS } from "./CsvBody.js"
import { restore } from "./Formula.js"
import { RowErrors } from "./ImportReport.js"

/**
 * Text parsed (and its rows handed to the sink) between two turns of the event loop: about a
 * thousand rows, 10-20 ms on a slow core with a feature's validation.
 */
const SLICE_CHARS = 64 * 1024

/** A column a feature imports (or knows and skips: `readOnly`). */
export interface ImportColumn<K extends string> {
  readonly key: K
  /** The header an export writes. */
  readonly header: string
  /** Other headers that mean the same field. */
  readonly aliases?: ReadonlyArray<string>
  /** Written by the export but not imported (ids, times): neither read nor reported as unknown. */
  readonly readOnly?: boolean
}

/** A column of the feature's own that a header names (a custom field), keyed to find duplicates. */
export interface ExtraColumn<X> {
  readonly key: string
  readonly value: X
}

export interface HeaderSpec<K extends string, X> {
  readonly columns: ReadonlyArray<ImportColumn<K>>
  /** For a header no column takes: the feature's own column, or undefined (an unknown column). */
  readonly extra?: (header: string) => ExtraColumn<X> | undefined
  /** Columns without which the file is refused. */
  readonly required?: ReadonlyArray<K>
}

/** A column of the file that is read: one of the spec's, or an extra one. */
export type Slot<K extends string, X> =
  | { readonly _tag: "Column"; readonly index: number; readonly header: string; readonly key: K }
  | { readonly _tag: "Extra"; readonly index: number; readonly header: string; readonly key: string; readonly value: X }

export interface CsvRow {
  /** 1 = the first record after the header. */
  readonly row: number
  /** One per slot, in slot order: trimmed, formula prefix removed, "" when empty. */
  readonly cells: ReadonlyArray<string>
}

/** The columns a file's header row gives: what reading its rows needs. */
export interface CsvHeader<K extends string, X> {
  readonly delimiter: string
  readonly slots: ReadonlyArray<Slot<K, X>>
  /** The slot of a column of the spec, when the file has it. */
  readonly slotOf: ReadonlyMap<K, number>
  /** The file's header of a column of the spec, or the column's key when the file lacks it (for errors). */
  readonly headerOf: (key: K) => string
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

/** A header reduced to what matching compares: letters and digits, lower case (NFKC first). */
export const normalizeHeader = (header: string): string =>
  header.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")

const CANDIDATES = [",", ";", "\t"] as const

/**
 * The separator of a CSV text (see above) and where its table starts (after a `sep=` line).
 */
export const detectDelimiter = (text: string): { readonly delimiter: string; readonly start: number } => {
  const hint = /^sep=(.)[ \t]*(\r\n|\n|\r|$)/i.exec(text)
  if (hint !== null) return { delimiter: hint[1]!, start: hint[0].length }
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]))
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\"") quoted = !quoted
    else if (!quoted && (c === "\n" || c === "\r")) break
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1)
  }
  let delimiter: string = ","
  for (const c of CANDIDATES) if (counts.get(c)! > counts.get(delimiter)!) delimiter = c
  return { delimiter, start: 0 }
}

const refuse = (message: string) => new InvalidRequest({ message })

const describe = (header: string, index: number) => `column ${index + 1} ("${header}")`

/** The slots a header row gives under `spec`, or the reason it is refused. */
export const matchHeader = <K extends string, X>(
  headers: ReadonlyArray<string>,
  spec: HeaderSpec<K, X>
): { readonly slots: ReadonlyArray<Slot<K, X>>; readonly unknown: ReadonlyArray<number>; readonly blank: ReadonlyArray<number> } | InvalidRequest => {
  if (headers.length > MAX_CSV_COLUMNS) {
    return refuse(`The header row has ${headers.length} columns; an import reads at most ${MAX_CSV_COLUMNS}`)
  }
  const byName = new Map<string, ImportColumn<K>>()
  for (const column of spec.columns) {
    for (const name of [column.header, column.key, ...(column.aliases ?? [])]) byName.set(normalizeHeader(name), column)
  }
  const slots: Array<Slot<K, X>> = []
  const unknown: Array<number> = []
  const blank: Array<number> = []
  const taken = new Map<string, number>()
  const take = (key: string, index: number, field: string): InvalidRequest | undefined => {
    const other = taken.get(key)
    if (other !== undefined) {
      return refuse(`${describe(headers[other]!, other)} and ${describe(headers[index]!, index)} are both ${field}: keep one of them`)
    }
    taken.set(key, index)
    return undefined
  }
  for (const [index, header] of headers.entries()) {
    if (header.includes("\u0000")) return refuse(`The header row holds the NUL character (U+0000) in column ${index + 1}: is the file UTF-16? Save it as "CSV UTF-8"`)
    if (header === "") {
      blank.push(index)
      continue
    }
    const column = byName.get(normalizeHeader(header))
    if (column !== undefined) {
      const duplicate = take(`column:${column.key}`, index, column.key)
      if (duplicate !== undefined) return duplicate
      if (column.readOnly !== true) slots.push({ _tag: "Column", index, header, key: column.key })
      continue
    }
    const extra = spec.extra?.(header)
    if (extra !== undefined) {
      const duplicate = take(`extra:${extra.key}`, index, `"${extra.key}"`)
      if (duplicate !== undefined) return duplicate
      slots.push({ _tag: "Extra", index, header, key: extra.key, value: extra.value })
      continue
    }
    unknown.push(index)
  }
  for (const key of spec.required ?? []) {
    if (!taken.has(`column:${key}`)) {
      return refuse(`The CSV has no ${key} column (its headers: ${headers.map((h) => JSON.stringify(h)).join(", ")})`)
    }
  }
  return { slots, unknown, blank }
}

/**
 * Parses `text` (from `start`, with `delimiter`) record by record; `onRecord` stops the parse by
 * returning the reason to refuse the file. A turn of the event loop after each slice of text.
 */
const parseRecords = (
  text: string,
  start: number,
  delimiter: string,
  onRecord: (record: Array<string>) => InvalidRequest | undefined
): Effect.Effect<void, InvalidRequest> =>
  Effect.async<void, InvalidRequest>((resume) => {
    const parser = new Parser({
      delimiter,
      quote: "\"",
      escape: "\"",
      ltrim: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: false
    })
    let offset = start
    let done = false
    let timer: NodeJS.Immediate | undefined
    const finish = (result: Effect.Effect<void, InvalidRequest>) => {
      if (done) return
      done = true
      if (timer !== undefined) clearImmediate(timer)
      resume(result)
    }
    parser.on("data", (record: Array<string>) => {
      if (done) return
      let refused: InvalidRequest | undefined
      try {
        refused = onRecord(record)
      } catch (defect) {
        // a bug of the sink, not a property of the file: a 500, not "could not be read"
        finish(Effect.die(defect))
        parser.destroy()
        return
      }
      if (refused !== undefined) {
        finish(Effect.fail(refused))
        parser.destroy()
      }
    })
    parser.on("error", (error: unknown) => {
      const reason = error instanceof CsvError || error instanceof Error ? error.message : String(error)
      finish(Effect.fail(refuse(`The CSV could not be read: ${reason}`)))
    })
    parser.on("end", () => finish(Effect.void))
    const step = () => {
      timer = undefined
      if (done) return
      if (offset >= text.length) {
        parser.end()
        return
      }
      let end = Math.min(text.length, offset + SLICE_CHARS)
      // never between the two halves of a surrogate pair
      if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1]!)) end--
      const slice = text.slice(offset, end)
      offset = end
      parser.write(slice, (error) => {
        if (error === null || error === undefined) timer = setImmediate(step)
      })
    }
    step()
    return Effect.sync(() => {
      done = true
      if (timer !== undefined) clearImmediate(timer)
      parser.destroy()
    })
  })

interface Header<K extends string, X> extends CsvHeader<K, X> {
  readonly headers: ReadonlyArray<string>
  readonly unknown: ReadonlyArray<number>
  readonly blank: ReadonlyArray<number>
}

const isBlank = (record: ReadonlyArray<string>) => record.every((cell) => cell.trim() === "")

const headerOfFile = <K extends string, X>(
  delimiter: string,
  headers: ReadonlyArray<string>,
  matched: Exclude<ReturnType<typeof matchHeader<K, X>>, InvalidRequest>
): Header<K, X> => {
  const slotOf = new Map<K, number>()
  matched.slots.forEach((slot, i) => {
    if (slot._tag === "Column") slotOf.set(slot.key, i)
  })
  const headerOf = (key: K) => {
    const slot = slotOf.get(key)
    return slot === undefined ? key : matched.slots[slot]!.header
  }
  return { delimiter, headers, ...matched, slotOf, headerOf }
}

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
