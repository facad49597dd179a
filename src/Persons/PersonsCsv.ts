/**
 * Persons as CSV (docs/integrators.md#csv-export-and-import): the columns of the export and of the
 * import. The export's cells are PersonsCsvExport.ts; the validation of an imported row, through
 * the same schemas and custom-field rules as `POST /person` and `PUT /person/:id`,
 * PersonsCsvRows.ts. The machinery (parsing, quoting, streaming) is in `src/Csv/`.
 *
 * Columns: every person field of the API, `createdAt`, then one column per custom field headed
 * `custom:<field name>`. A multiselect field's values are joined with `; ` (`MULTISELECT_SEPARATOR`);
 * an import splits them on `;` again, keeping together an option whose own value holds a `;`.
 * An import reads the same columns, by forgiving header matching (CsvImport.ts), except
 * `personId`, `archived` and `createdAt`, which it knows but skips (rows match by email, and
 * imported persons are active and created now). A custom field's column may also be headed by the
 * field's name alone, when no person field has that name.
 */
import type { HeaderSpec, ImportColumn } from "../Csv/CsvHeader.js"
import { normalizeHeader } from "../Csv/CsvHeader.js"
import type { Definitions, FieldDef } from "./CustomFields.js"

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
