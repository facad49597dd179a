/**
 * What a contacts import will write, decided before its transaction (docs/integrators.md#csv-export-and-import,
 * the same matching rule as guest-list adds): a row whose email (case-insensitive) belongs to an active person fills only
 * that person's blank fields (profile fields, a first phone, custom fields without a value) and
 * never overwrites one; another row creates a person, which needs its first and last name.
 * Rows apply in file order as if one at a time: a later row with the same email fills blanks of
 * the person an earlier row matched or created. A row counts as `created`, `updated` (it filled
 * something) or `unchanged`.
 */
import { RowErrors } from "../Csv/ImportReport.js"
import type { PersonRowId } from "../Domain/RowIds.js"
import type { FieldChange } from "./CustomFields.js"
import type { RowInput } from "./PersonsCsvRows.js"
import { importedColumns, type MatchRow } from "./PersonBatches.js"

/** A person to create; `values` in `importedColumns` order. */
export interface PlannedCreate {
  readonly email: string
  values: ReadonlyArray<string | null>
  phone: string | null
  custom: ReadonlyArray<FieldChange>
}

/** Blank fields to fill on an existing person: `values` null where nothing is filled. */
export interface PlannedFill {
  readonly id: PersonRowId
  readonly match: MatchRow
  values: ReadonlyArray<string | null>
  phone: string | null
  custom: ReadonlyArray<FieldChange>
}

export interface Plan {
  readonly creates: ReadonlyArray<PlannedCreate>
  /** Only the persons that get something. */
  readonly fills: ReadonlyArray<PlannedFill>
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly errors: RowErrors
}

const FIRST_NAME = importedColumns.indexOf("first_name")
const LAST_NAME = importedColumns.indexOf("last_name")
const NOTHING: ReadonlyArray<string | null> = importedColumns.map(() => null)

/**
 * A later row's values into a planned person, where it has none yet and `blank(i)` (the stored
 * person has none either). Arrays are shared with the rows until a later row changes them (an
 * import of 50,000 rows keeps one copy of its values, not two). Answers whether anything was taken.
 */
const fillFrom = (
  target: PlannedCreate | PlannedFill,
  input: RowInput,
  blank: (i: number) => boolean,
  hasPhone: boolean,
  hasValue: (fieldId: number) => boolean
): boolean => {
  let changed = false
  let values: Array<string | null> | undefined
  input.values.forEach((value, i) => {
    if (value !== null && target.values[i] === null && blank(i)) {
      values ??= [...target.values]
      values[i] = value
      changed = true
    }
  })
  if (values !== undefined) target.values = values
  if (input.phone !== null && target.phone === null && !hasPhone) {
    target.phone = input.phone
    changed = true
  }
  const added = input.custom.filter((change) =>
    !hasValue(change.field.id) && !target.custom.some((c) => c.field.id === change.field.id)
  )
  if (added.length > 0) {
    target.custom = [...target.custom, ...added]
    changed = true
  }
  return changed
}

/**
 * The plan for valid rows, given the active persons their emails matched (by email key) and, by
 * custom field id, which of those persons hold a value for it. `nameColumns` name the columns for
 * the errors of rows that cannot create a person.
 */
export const planImport = (
  inputs: ReadonlyArray<RowInput>,
  matches: ReadonlyMap<string, MatchRow>,
  holders: ReadonlyMap<number, ReadonlySet<PersonRowId>>,
  nameColumns: { readonly firstName: string; readonly lastName: string }
): Plan => {
  const errors = new RowErrors()
  const creates: Array<PlannedCreate> = []
  const fills = new Set<PlannedFill>()
  const byEmail = new Map<string, PlannedCreate | PlannedFill>()
  let created = 0
  let updated = 0
  let unchanged = 0

  for (const input of inputs) {
    const planned = byEmail.get(input.emailKey)
    const match = planned === undefined ? matches.get(input.emailKey) : undefined
    if (planned === undefined && match === undefined) {
      const missing = [
        ...(input.values[FIRST_NAME] === null ? [nameColumns.firstName] : []),
        ...(input.values[LAST_NAME] === null ? [nameColumns.lastName] : [])
      ]
      for (const column of missing) {
        errors.add(input.row, column, "is needed to create a contact (no active contact has this email)")
      }
      if (missing.length > 0) continue
      const create: PlannedCreate = { email: input.email, values: input.values, phone: input.phone, custom: input.custom }
      creates.push(create)
      byEmail.set(input.emailKey, create)
      created++
      continue
    }
    const target = planned ?? { id: match!.id, match: match!, values: NOTHING, phone: null, custom: [] }
    if (planned === undefined) byEmail.set(input.emailKey, target)
    const stored = "match" in target ? target.match : undefined
    const changed = fillFrom(
      target,
      input,
      (i) => stored === undefined || (stored.blanks & (1 << i)) !== 0,
      stored !== undefined && stored.has_phone === 1,
      (fieldId) => stored !== undefined && holders.get(fieldId)?.has(stored.id) === true
    )
    if (!changed) {
      unchanged++
      continue
    }
    updated++
    if ("match" in target) fills.add(target)
  }
  return { creates, fills: [...fills], created, updated, unchanged, errors }
}
