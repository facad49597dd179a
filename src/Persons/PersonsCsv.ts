/**
 * Persons as CSV (docs/integrators.md#csv-export-and-import): the columns of the export and of the import, and the validation
 * of an imported row, through the same schemas and custom-field rules as `POST /person` and
 * `PUT /person/:id`. The machinery (parsing, quoting, streaming) is in `src/Csv/`.
 *
 * Columns: every person field of the API, `createdAt`, then one column per custom field headed
 * `custom:<field name>`. A multiselect field's values are joined with `; ` (`MULTISELECT_SEPARATOR`);
 * an import splits them on `;` again, keeping together an option whose own value holds a `;`.
 * An import reads the same columns, by forgiving header matching (CsvImport.ts), except
 * `personId`, `archived` and `createdAt`, which it knows but skips (rows match by email, and
 * imported persons are active and created now). A custom field's column may also be headed by the
 * field's name alone, when no person field has that name.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { ExportColumn } from "../Csv/CsvExport.js"
import type { CsvHeader, CsvRow, HeaderSpec, ImportColumn } from "../Csv/CsvImport.js"
import { normalizeHeader } from "../Csv/CsvImport.js"
import { RowErrors } from "../Csv/ImportReport.js"
import { atMostCharacters, blankToNull, emailKeyOf, optional } from "../Domain/Fields.js"
import { type Definitions, type FieldChange, type FieldDef, optionIdsOf, resolveChanges } from "./CustomFields.js"
import { CreatePerson, FIELD_TEXT_MAX } from "./Domain.js"
import { importedColumns } from "./PersonBatches.js"
import { type ExportRow, profileColumns } from "./PersonsRepo.js"

export const MULTISELECT_SEPARATOR = "; "

const CUSTOM_PREFIX = /^custom\s*:\s*/i

export type PersonColumn =
  | "personId"
  | "firstName"
  | "lastName"
  | "email"
  | "phone"
  | "company"
  | "position"
  | "birthday"
  | "address"
  | "apartment"
  | "city"
  | "state"
  | "country"
  | "postalCode"
  | "profilePicture"
  | "contextNote"
  | "archived"
  | "createdAt"

/** The person columns, in export order; the header of each is its key. */
export const personColumns: ReadonlyArray<ImportColumn<PersonColumn>> = [
  { key: "personId", header: "personId", readOnly: true },
  { key: "firstName", header: "firstName", aliases: ["given name", "forename"] },
  { key: "lastName", header: "lastName", aliases: ["surname", "family name"] },
  { key: "email", header: "email", aliases: ["email address", "mail"] },
  { key: "phone", header: "phone", aliases: ["phone number", "telephone", "mobile"] },
  { key: "company", header: "company" },
  { key: "position", header: "position", aliases: ["job title"] },
  { key: "birthday", header: "birthday", aliases: ["date of birth", "birth date"] },
  { key: "address", header: "address", aliases: ["street address"] },
  { key: "apartment", header: "apartment" },
  { key: "city", header: "city" },
  { key: "state", header: "state", aliases: ["province"] },
  { key: "country", header: "country" },
  { key: "postalCode", header: "postalCode", aliases: ["zip", "zip code", "postcode"] },
  { key: "profilePicture", header: "profilePicture" },
  { key: "contextNote", header: "contextNote", aliases: ["note", "notes", "contact note"] },
  { key: "archived", header: "archived", readOnly: true },
  { key: "createdAt", header: "createdAt", readOnly: true }
]

// --- export -----------------------------------------------------------------------------------

/** A person with its stored custom values (by field id), as the export reads it. */
export interface ExportRecord {
  readonly person: ExportRow
  readonly values: ReadonlyMap<number, string> | undefined
}

/** A stored value as a cell: multiselect option ids become their values, joined. */
export const displayValue = (field: FieldDef, stored: string): string => {
  if (field.type !== "multiselect") return stored
  return optionIdsOf(stored).flatMap((id) => field.options.filter((o) => o.id === id).map((o) => o.value)).join(MULTISELECT_SEPARATOR)
}

const personCells: Record<PersonColumn, (row: ExportRow) => string | null> = {
  personId: (p) => p.public_id,
  firstName: (p) => p.first_name,
  lastName: (p) => p.last_name,
  email: (p) => p.email,
  phone: (p) => p.phone,
  company: (p) => p.company,
  position: (p) => p.position,
  birthday: (p) => p.birthday,
  address: (p) => p.address,
  apartment: (p) => p.apartment,
  city: (p) => p.city,
  state: (p) => p.state,
  country: (p) => p.country,
  postalCode: (p) => p.postal_code,
  profilePicture: (p) => p.profile_picture,
  contextNote: (p) => p.context_note,
  archived: (p) => (p.archived_at === null ? "false" : "true"),
  createdAt: (p) => p.created_at
}

/** The export's columns for an organization's custom fields. */
export const exportColumns = (definitions: Definitions): ReadonlyArray<ExportColumn<ExportRecord>> => [
  ...personColumns.map((column): ExportColumn<ExportRecord> => ({
    header: column.header,
    cell: (record) => personCells[column.key](record.person)
  })),
  ...definitions.all.map((field): ExportColumn<ExportRecord> => ({
    header: `custom:${field.name}`,
    cell: (record) => {
      const stored = record.values?.get(field.id)
      return stored === undefined ? null : displayValue(field, stored)
    }
  }))
]

// --- import -----------------------------------------------------------------------------------

/** The custom field a header names: `custom:<name>`, or the name alone (case and spaces aside). */
const customFieldOf = (definitions: Definitions, header: string): FieldDef | undefined => {
  const prefixed = CUSTOM_PREFIX.exec(header)
  const name = (prefixed === null ? header : header.slice(prefixed[0].length)).trim().toLowerCase()
  const exact = definitions.byName.get(name)
  if (exact !== undefined || prefixed !== null) return exact
  const wanted = normalizeHeader(name)
  const loose = definitions.all.filter((field) => normalizeHeader(field.name) === wanted)
  return loose.length === 1 ? loose[0] : undefined
}

export const importSpec = (definitions: Definitions): HeaderSpec<PersonColumn, FieldDef> => ({
  columns: personColumns,
  required: ["email"],
  extra: (header) => {
    const field = customFieldOf(definitions, header)
    return field === undefined ? undefined : { key: `custom:${field.name}`, value: field }
  }
})

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

/** What a schema issue says, without the value (as `invalidFromIssues` does). */
const withoutValue = (message: string) => message.replace(/,\s*actual[\s\S]*$/, "").trim()

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
    // one message per field: a nullable field's schema also says "Expected null" for its other branch
    const seen = new Set<string>()
    for (const issue of ParseResult.ArrayFormatter.formatErrorSync(decoded.left)) {
      const key = String(issue.path[0] ?? "")
      if (seen.has(key)) continue
      seen.add(key)
      errors.add(row, headerOf(key), withoutValue(issue.message))
    }
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
