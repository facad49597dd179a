/**
 * The two forms of a custom-field update (docs/integrators.md#updating-persons): `customFields`
 * (text and number fields, by id or name) and `customFieldMultiselect` (options by id or value),
 * validated against the organization's definitions into the changes to write.
 */
import { Issue } from "../Domain/Errors.js"
import type { Definitions, FieldChange, FieldDef } from "./CustomFields.js"
import type { UpdatePerson } from "./Domain.js"

const NUMBER = /^-?\d+(\.\d+)?$/

/** Validates `customFields` and `customFieldMultiselect` against the definitions. */
export const resolveChanges = (
  definitions: Definitions,
  update: Pick<UpdatePerson, "customFields" | "customFieldMultiselect">
): { readonly changes: ReadonlyArray<FieldChange>; readonly issues: ReadonlyArray<Issue> } => {
  const issues: Array<Issue> = []
  const changes = new Map<number, FieldChange>()
  const issue = (path: string, message: string) => issues.push(new Issue({ path, message }))

  const scalar = (path: string, field: FieldDef | undefined, value: string | number | null) => {
    if (field === undefined) return issue(path, "unknown custom field")
    if (field.type === "multiselect") return issue(path, `${field.name} is a multiselect field: use customFieldMultiselect`)
    if (value === null) return changes.set(field.id, { field, value: null })
    // numbers are kept as written (a string keeps every digit; a JSON number was checked to be exact)
    const text = typeof value === "number" ? String(value) : value.trim()
    if (text === "") return changes.set(field.id, { field, value: null })
    if (field.type === "number" && !NUMBER.test(text)) return issue(`${path}.value`, `${field.name} takes a number`)
    changes.set(field.id, { field, value: text })
  }

  const entries = update.customFields
  if (Array.isArray(entries)) {
    entries.forEach((entry, i) => {
      const path = `customFields.${i}`
      if (entry.fieldId === undefined && entry.fieldName === undefined) return issue(path, "needs fieldId or fieldName")
      const field = entry.fieldId !== undefined
        ? definitions.byPublicId.get(entry.fieldId)
        : definitions.byName.get(entry.fieldName!.trim().toLowerCase())
      scalar(field === undefined ? `${path}.${entry.fieldId !== undefined ? "fieldId" : "fieldName"}` : path, field, entry.value)
    })
  } else if (entries !== undefined) {
    for (const [name, value] of Object.entries(entries)) {
      scalar(`customFields.${name}`, definitions.byName.get(name.trim().toLowerCase()), value)
    }
  }

  const selected = new Map<number, { field: FieldDef; optionIds: Array<string> }>()
  update.customFieldMultiselect?.forEach((entry, i) => {
    const field = definitions.byPublicId.get(entry.fieldId)
    if (field === undefined) return issue(`customFieldMultiselect.${i}.fieldId`, "unknown custom field")
    if (field.type !== "multiselect") {
      return issue(`customFieldMultiselect.${i}.fieldId`, `${field.name} is a ${field.type} field: use customFields`)
    }
    const current = selected.get(field.id) ?? { field, optionIds: [] }
    selected.set(field.id, current)
    if (entry.value === null) return
    const wanted = entry.value.trim()
    const option = field.options.find((o) => o.id === wanted) ??
      field.options.find((o) => o.value.toLowerCase() === wanted.toLowerCase())
    if (option === undefined) {
      return issue(`customFieldMultiselect.${i}.value`, `not an option of ${field.name}`)
    }
    if (!current.optionIds.includes(option.id)) current.optionIds.push(option.id)
  })
  for (const { field, optionIds } of selected.values()) {
    changes.set(field.id, { field, value: optionIds.length === 0 ? null : JSON.stringify(optionIds) })
  }
  return { changes: [...changes.values()], issues }
}
