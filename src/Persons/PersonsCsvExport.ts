/** The contacts export's columns (PersonsCsv.ts): every person field, then one column per custom field. */
import type { ExportColumn } from "../Csv/CsvExport.js"
import { optionIdsOf } from "./CustomFieldValues.js"
import type { Definitions, FieldDef } from "./CustomFields.js"
import { MULTISELECT_SEPARATOR, type PersonColumn, personColumns } from "./PersonsCsv.js"
import type { ExportRow } from "./PersonsRepo.js"

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
