/**
 * A kept file's sample for the import's preview: which field each column fills (or that it is
 * ignored) and the first rows as the import will read them.
 */
import { parse } from "csv-parse/sync"
import * as Either from "effect/Either"
import { detectDelimiter, type HeaderSpec, matchHeader, type Slot } from "../../Csv/CsvImport.js"
import { restore } from "../../Csv/Formula.js"
import { InvalidRequest } from "../../Domain/Errors.js"
import { type ColumnMapping, type Sample, SAMPLE_ROWS, type SampleRow } from "./ImportKind.js"

/** Blank records allowed among the first rows before the sample stops looking. */
const BLANK_ALLOWANCE = 50

const isBlank = (record: ReadonlyArray<string>) => record.every((cell) => cell.trim() === "")

/**
 * The header mapping and the first `size` rows of a CSV text, read as the import reads them
 * (the same separator detection, header matching and cell clean-up: Csv/CsvImport.ts), from the
 * start of the file only. A header row the import would refuse answers that refusal; a file whose
 * first rows cannot be parsed answers no rows (the dry run says why).
 */
export const sampleOf = <K extends string, X>(
  text: string,
  spec: HeaderSpec<K, X>,
  fills: (slot: Slot<K, X>) => string,
  size = SAMPLE_ROWS
): Either.Either<Sample, InvalidRequest> => {
  const body = text.startsWith("\ufeff") ? text.slice(1) : text
  if (body.trim() === "") return Either.left(new InvalidRequest({ message: "The file is empty: it needs a header row and a row per record" }))
  const { delimiter, start } = detectDelimiter(body)
  let records: Array<Array<string>>
  try {
    records = parse(body.slice(start), {
      delimiter,
      quote: "\"",
      escape: "\"",
      ltrim: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: false,
      to: size + 1 + BLANK_ALLOWANCE
    })
  } catch {
    records = []
  }
  const headerAt = records.findIndex((record) => !isBlank(record))
  if (headerAt === -1) {
    return records.length === 0 && body.trim() !== ""
      ? Either.right({ columns: [], read: [], rows: [] })
      : Either.left(new InvalidRequest({ message: "The file is empty: it needs a header row and a row per record" }))
  }
  const headers = records[headerAt]!.map((cell) => cell.trim())
  const matched = matchHeader(headers, spec)
  if (matched instanceof InvalidRequest) return Either.left(matched)
  const slotAt = new Map(matched.slots.map((slot) => [slot.index, slot]))
  const unknown = new Set(matched.unknown)
  const blank = new Set(matched.blank)
  const columns = headers.map((header, index): ColumnMapping => {
    const slot = slotAt.get(index)
    if (slot !== undefined) return { index, header, status: "read", fills: fills(slot) }
    return { index, header, status: blank.has(index) ? "blank" : unknown.has(index) ? "unknown" : "skipped" }
  })
  const rows: Array<SampleRow> = []
  let row = 0
  for (const record of records.slice(headerAt + 1)) {
    row++
    if (isBlank(record)) continue
    if (rows.length === size) break
    rows.push({
      row,
      cells: matched.slots.map((slot) => {
        const cell = record[slot.index] ?? ""
        return cell.includes("\u0000") ? "" : restore(cell).trim()
      })
    })
  }
  return Either.right({ columns, read: columns.filter((c) => c.status === "read"), rows })
}
