/**
 * How custom-field values are shown (docs/integrators.md#custom-fields): a person's flat
 * `customFields` and its `customFieldsDetailed`, from the stored values (multiselect: the JSON
 * array of the chosen options' ids).
 */
import { arrayOf, isString, parseChecked, textFields } from "../Domain/JsonGuard.js"
import { emptyKeyed } from "../Domain/Keyed.js"
import type { ValueRow } from "./CustomFieldsRepo.js"
import { type CustomFieldDetailed, FieldOption } from "./CustomFieldDomain.js"

export interface RenderedFields {
  readonly flat: Record<string, string | ReadonlyArray<string>>
  readonly detailed: ReadonlyArray<typeof CustomFieldDetailed.Type>
}

// checked, not decoded: a page of persons renders these for every person (Domain/JsonGuard.ts)
const isOptions = arrayOf(textFields("id", "value", "color"))
const isOptionIds = arrayOf(isString)

/** A multiselect value as stored: the JSON array of the chosen options' ids. */
export const optionIdsOf = (stored: string): ReadonlyArray<string> => parseChecked(isOptionIds, stored, "multiselect value")

/** One person's stored values (rows joined with their fields) as the API shows them. */
export const render = (rows: ReadonlyArray<ValueRow>): RenderedFields => {
  const flat = emptyKeyed<string | ReadonlyArray<string>>()
  const detailed: Array<typeof CustomFieldDetailed.Type> = []
  for (const row of rows) {
    if (row.type === "multiselect") {
      const options = row.options === null ? [] : parseChecked(isOptions, row.options, "custom field options")
      const ids = optionIdsOf(row.value)
      const values = ids.flatMap((id) => options.filter((o) => o.id === id).map((o) => o.value))
      flat[row.name] = values
      detailed.push({
        fieldId: row.field_public_id,
        fieldName: row.name,
        fieldType: row.type,
        value: values,
        valueId: row.public_id,
        options: options.map((o) => new FieldOption(o))
      })
    } else {
      flat[row.name] = row.value
      detailed.push({
        fieldId: row.field_public_id,
        fieldName: row.name,
        fieldType: row.type,
        value: row.value,
        valueId: row.public_id
      })
    }
  }
  return { flat, detailed }
}
