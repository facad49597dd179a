/**
 * Custom fields (docs/integrators.md#custom-fields): per-organization definitions, created here and
 * read as the service holds them (`Definitions`). The validation of the two update forms is
 * CustomFieldChanges.ts, how values are shown CustomFieldValues.ts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { Ids } from "../Domain/Ids.js"
import type { OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest } from "../Domain/Errors.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { CustomFieldsRepo, type NewValue } from "./CustomFieldsRepo.js"
import type { RowBatch } from "./PersonBatches.js"
import { type CreateCustomField, CustomFieldDefinition, FieldOption, type FieldType, MAX_CUSTOM_FIELDS } from "./CustomFieldDomain.js"

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

const toDefinition = (field: FieldDef) =>
  new CustomFieldDefinition({
    fieldId: field.publicId,
    fieldName: field.name,
    fieldType: field.type,
    options: field.options
  })

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
