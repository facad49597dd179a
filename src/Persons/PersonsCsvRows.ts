/**
 * An imported contacts row validated (PersonsCsv.ts): through the same schema as `POST /person`
 * (each field optional here) and the same custom-field rules as `PUT /person/:id`, into the values
 * an import plans with (ImportPlan.ts).
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { CsvHeader } from "../Csv/CsvHeader.js"
import type { CsvRow } from "../Csv/CsvImport.js"
import { fieldIssues } from "../Csv/FieldIssues.js"
import type { RowErrors } from "../Csv/ImportReport.js"
import { atMostCharacters, blankToNull, emailKeyOf, optional } from "../Domain/Fields.js"
import { resolveChanges } from "./CustomFieldChanges.js"
import { FIELD_TEXT_MAX } from "./CustomFieldDomain.js"
import type { Definitions, FieldChange, FieldDef } from "./CustomFields.js"
import { CreatePerson } from "./Domain.js"
import { importedColumns } from "./PersonBatches.js"
import type { PersonColumn } from "./PersonsCsv.js"
import { profileColumns } from "./PersonsRepo.js"

/**
 * A multiselect cell's option values: split on `;`, except that an option whose value holds a `;`
 * is recognized whole (longest first). What matches no option is passed on as written, for the
 * custom-field rules to refuse (or to take as an option id).
 */
export const splitOptions = (field: FieldDef, cell: string): Array<string> => {
  const options = [...field.options].sort((a, b) => b.value.length - a.value.length)
  const tokens: Array<string> = []
  let rest = cell.trim()
  while (rest !== "") {
    const lower = rest.toLowerCase()
    const whole = options.find((o) =>
      lower.startsWith(o.value.toLowerCase()) && /^\s*(;|$)/.test(rest.slice(o.value.length))
    )
    const end = whole === undefined ? rest.indexOf(";") : whole.value.length
    const token = (end === -1 ? rest : rest.slice(0, end)).trim()
    if (token !== "") tokens.push(token)
    rest = end === -1 ? "" : rest.slice(end).replace(/^\s*;?/, "").trim()
  }
  return tokens
}

/** A valid imported row: values in `importedColumns` order (null: no value), ready to plan. */
export interface RowInput {
  readonly row: number
  readonly email: string
  readonly emailKey: string
  readonly values: ReadonlyArray<string | null>
  readonly phone: string | null
  readonly custom: ReadonlyArray<FieldChange>
}

/**
 * The fields of `POST /person`, each optional here: a row matching a person needs no names, and a
 * missing email is reported in its own words.
 */
const ImportedRow = Schema.Struct({
  ...CreatePerson.fields,
  firstName: optional(CreatePerson.fields.firstName),
  lastName: optional(CreatePerson.fields.lastName),
  email: optional(CreatePerson.fields.email)
})
type ImportedRow = typeof ImportedRow.Type
const decodeRow = Schema.decodeUnknownEither(ImportedRow, { errors: "all", onExcessProperty: "ignore" })

/** Where each person field's value goes in `importedColumns`. */
const valueIndex = new Map<string, number>(
  Object.entries(profileColumns).map(([field, column]) => [field, importedColumns.indexOf(column)])
)

/**
 * Validates one row; its errors go to `errors` (column: the file's header for the field, or the
 * field's name). Answers the row's input when it has no error.
 */
export const validateRow = (
  table: CsvHeader<PersonColumn, FieldDef>,
  definitions: Definitions,
  { cells, row }: CsvRow,
  errors: RowErrors
): RowInput | undefined => {
  const headerOf = (key: string) => table.headerOf(key as PersonColumn)
  const input: Record<string, string> = {}
  const customFields: Array<{ readonly fieldId: string; readonly value: string }> = []
  const customColumns: Array<string> = []
  const multiselect: Array<{ readonly fieldId: string; readonly value: string }> = []
  const multiselectColumns: Array<string> = []
  const tooLong: Array<string> = []
  table.slots.forEach((slot, i) => {
    const cell = cells[i]!
    if (cell === "") return
    if (slot._tag === "Column") input[slot.key] = cell
    else if (slot.value.type === "multiselect") {
      for (const value of splitOptions(slot.value, cell)) {
        multiselect.push({ fieldId: slot.value.publicId, value })
        multiselectColumns.push(slot.header)
      }
    } else if (cell.length > FIELD_TEXT_MAX) {
      tooLong.push(slot.header)
    } else {
      customFields.push({ fieldId: slot.value.publicId, value: cell })
      customColumns.push(slot.header)
    }
  })
  const before = errors.size
  for (const header of tooLong) errors.add(row, header, atMostCharacters(FIELD_TEXT_MAX))
  if (input["email"] === undefined) errors.add(row, headerOf("email"), "is empty: each row needs the contact's email")
  const decoded = decodeRow(input)
  if (Either.isLeft(decoded)) {
    for (const issue of fieldIssues(decoded.left)) errors.add(row, headerOf(issue.field), issue.message)
  }
  const { changes, issues } = resolveChanges(definitions, { customFields, customFieldMultiselect: multiselect })
  for (const issue of issues) {
    const [list, index] = issue.path.split(".")
    const columns = list === "customFieldMultiselect" ? multiselectColumns : customColumns
    errors.add(row, columns[Number(index)] ?? null, issue.message)
  }
  // a row with any error (those found while reading it included) goes no further
  if (errors.size > before || errors.has(row) || Either.isLeft(decoded)) return undefined
  const person: ImportedRow = decoded.right
  if (person.email === undefined) return undefined
  const values: Array<string | null> = importedColumns.map(() => null)
  for (const [field, index] of valueIndex) {
    const value = person[field as keyof ImportedRow]
    if (typeof value === "string" && value !== "") values[index] = value
  }
  return {
    row,
    email: person.email,
    emailKey: emailKeyOf(person.email),
    values,
    phone: blankToNull(person.phone),
    custom: changes
  }
}
