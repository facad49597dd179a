/**
 * The header row of an imported CSV: the columns a feature imports (`HeaderSpec`), and how a file's
 * headers are matched to them: whatever their case, spaces and punctuation (`First name`,
 * `first_name`, `firstName` and `FIRST-NAME` are one header), by the aliases a feature gives, or as
 * the feature's own columns (`extra`: custom fields). The file is refused when it lacks a required
 * column, has two columns for one field, holds U+0000 in the header or has more than
 * `MAX_CSV_COLUMNS` columns (CsvImport.ts reads the rows under it).
 */
import { InvalidRequest } from "../Domain/Errors.js"
import { MAX_CSV_COLUMNS } from "./CsvBody.js"

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

/** The columns a file's header row gives: what reading its rows needs. */
export interface CsvHeader<K extends string, X> {
  readonly delimiter: string
  readonly slots: ReadonlyArray<Slot<K, X>>
  /** The slot of a column of the spec, when the file has it. */
  readonly slotOf: ReadonlyMap<K, number>
  /** The file's header of a column of the spec, or the column's key when the file lacks it (for errors). */
  readonly headerOf: (key: K) => string
}

/** A header reduced to what matching compares: letters and digits, lower case (NFKC first). */
export const normalizeHeader = (header: string): string =>
  header.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")

/** A whole file refused, with the reason. */
export const refuse = (message: string) => new InvalidRequest({ message })

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

/** A header row matched: its slots, and where it has unknown and blank headers (by index). */
export interface Header<K extends string, X> extends CsvHeader<K, X> {
  readonly headers: ReadonlyArray<string>
  readonly unknown: ReadonlyArray<number>
  readonly blank: ReadonlyArray<number>
}

/** The header of a file whose header row `headers` matched as `matched`. */
export const headerOfFile = <K extends string, X>(
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
