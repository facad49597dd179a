/**
 * Custom fields (docs/integrators.md#custom-fields): per-organization definitions, the validation of
 * the two update forms (`customFields` and `customFieldMultiselect`,
 * docs/integrators.md#updating-persons), and how values are shown (flat `customFields`,
 * `customFieldsDetailed`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { Ids } from "../Domain/Ids.js"
import { arrayOf, isString, parseChecked, textFields } from "../Domain/JsonGuard.js"
import { emptyKeyed } from "../Domain/Keyed.js"
import type { OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest, Issue } from "../Domain/Errors.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { CustomFieldsRepo, type NewValue, type ValueRow } from "./CustomFieldsRepo.js"
import type { RowBatch } from "./PersonBatches.js"
import {
  CustomFieldDefinition,
  type CreateCustomField,
  type CustomFieldDetailed,
  FieldOption,
  MAX_CUSTOM_FIELDS,
  type FieldType,
  type UpdatePerson
} from "./Domain.js"

export interface FieldDef {
  readonly id: number
  readonly publicId: string
  readonly name: string
  readonly type: FieldType
  readonly options: ReadonlyArray<FieldOption>
}

export interface Definitions {
  readonly all: ReadonlyArray<FieldDef>
  readonly byPublicId: ReadonlyMap<string, FieldDef>
  readonly byName: ReadonlyMap<string, FieldDef>
  readonly byId: ReadonlyMap<number, FieldDef>
}

/** A validated change to one field of one person: a new value, or null to clear it. */
export interface FieldChange {
  readonly field: FieldDef
  readonly value: string | null
}

export interface RenderedFields {
  readonly flat: Record<string, string | ReadonlyArray<string>>
  readonly detailed: ReadonlyArray<typeof CustomFieldDetailed.Type>
}

const NUMBER = /^-?\d+(\.\d+)?$/

const toDefinition = (field: FieldDef) =>
  new CustomFieldDefinition({
    fieldId: field.publicId,
    fieldName: field.name,
    fieldType: field.type,
    options: field.options
  })

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

export class CustomFields extends Effect.Service<CustomFields>()("Convene/CustomFields", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* CustomFieldsRepo
    const ids = yield* Ids

    const definitions = (organizationId: OrganizationRowId): Effect.Effect<Definitions> =>
      Effect.gen(function*() {
        const [fields, options] = yield* Effect.all([repo.fields(organizationId), repo.options(organizationId)])
        const all = fields.map((field): FieldDef => ({
          id: field.id,
          publicId: field.public_id,
          name: field.name,
          type: field.type,
          options: options
            .filter((o) => o.field_id === field.id)
            .map((o) => new FieldOption({ id: o.public_id, value: o.value, color: o.color }))
        }))
        return {
          all,
          byPublicId: new Map(all.map((f) => [f.publicId, f])),
          byName: new Map(all.map((f) => [f.name.toLowerCase(), f])),
          byId: new Map(all.map((f) => [f.id, f]))
        }
      }).pipe(Effect.orDie)

    const list = (organizationId: OrganizationRowId) =>
      Effect.map(definitions(organizationId), (d) => d.all.map(toDefinition))

    const create = Effect.fn("CustomFields.create")(function*(organizationId: OrganizationRowId, input: CreateCustomField) {
      const options = input.options ?? []
      if (input.fieldType !== "multiselect" && options.length > 0) {
        return yield* InvalidRequest.at("options", "only multiselect fields have options")
      }
      if (input.fieldType === "multiselect" && options.length === 0) {
        return yield* InvalidRequest.at("options", "a multiselect field needs at least one option")
      }
      const seen = new Set<string>()
      for (const [i, option] of options.entries()) {
        if (seen.has(option.value.toLowerCase())) return yield* InvalidRequest.at(`options.${i}.value`, "is a duplicate")
        seen.add(option.value.toLowerCase())
      }
      if ((yield* repo.fields(organizationId).pipe(Effect.orDie)).length >= MAX_CUSTOM_FIELDS) {
        return yield* new Conflict({ message: `An organization has at most ${MAX_CUSTOM_FIELDS} custom fields` })
      }
      const at = yield* nowIso
      const publicId = yield* ids.uuid
      const optionIds = yield* Effect.forEach(options, () => ids.uuid)
      yield* Effect.gen(function*() {
        const fieldId = yield* repo.insertField({ publicId, organizationId, name: input.fieldName, type: input.fieldType, at })
        yield* Effect.forEach(options, (option, i) =>
          repo.insertOption({ publicId: optionIds[i]!, fieldId, value: option.value, color: option.color }))
      }).pipe(
        sql.withTransaction,
        onUniqueViolation(() => new Conflict({ message: `A custom field named ${input.fieldName} exists` }))
      )
      return new CustomFieldDefinition({
        fieldId: publicId,
        fieldName: input.fieldName,
        fieldType: input.fieldType,
        options: options.map((o, i) => new FieldOption({ id: optionIds[i]!, value: o.value, color: o.color }))
      })
    })

    /** Writes validated changes for one person (inside the caller's transaction). */
    const apply = (personId: PersonRowId, changes: ReadonlyArray<FieldChange>, at: string) =>
      Effect.forEach(changes, (change) =>
        change.value === null
          ? repo.clearValue(personId, change.field.id)
          : Effect.flatMap(ids.uuid, (publicId) =>
            repo.setValue({ publicId, personId, fieldId: change.field.id, value: change.value!, at })), { discard: true })

    /** Several persons' values for their pages (multiselect: the chosen options), or with every option (`allOptions`). */
    const valuesOf = (personIds: ReadonlyArray<PersonRowId>, allOptions = false) => repo.values(personIds, allOptions).pipe(Effect.orDie)

    /** Stored values of several persons by person, then field id (multiselect: a JSON array of option ids). */
    const storedValuesOf = (personIds: ReadonlyArray<PersonRowId>) =>
      Effect.map(repo.storedValues(personIds), (rows) => {
        const byPerson = new Map<PersonRowId, Map<number, string>>()
        for (const row of rows) {
          const values = byPerson.get(row.person_id)
          if (values === undefined) byPerson.set(row.person_id, new Map([[row.field_id, row.value]]))
          else values.set(row.field_id, row.value)
        }
        return byPerson as ReadonlyMap<PersonRowId, ReadonlyMap<number, string>>
      })

    /** Writes validated values (inside the caller's transaction) where persons have none yet. */
    const fillMany = (organizationId: OrganizationRowId, values: RowBatch<NewValue>, at: string) => repo.fillValuesMany(organizationId, values, at)

    return { definitions, list, create, apply, valuesOf, storedValuesOf, fillMany } as const
  }),
  dependencies: [CustomFieldsRepo.Default, Ids.Default]
}) {}
