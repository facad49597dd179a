/** Custom-field definitions and the values persons hold for them. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/Sqlite.js"
import type { RowBatch } from "./PersonBatches.js"
import { FieldType } from "./Domain.js"

export const FieldRow = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  name: Schema.String,
  type: FieldType
})
export type FieldRow = typeof FieldRow.Type

export const OptionRow = Schema.Struct({
  field_id: Schema.Number,
  public_id: Schema.String,
  value: Schema.String,
  color: Schema.String
})
export type OptionRow = typeof OptionRow.Type

/** A stored value with its field: what showing it needs, in one row. */
export const ValueRow = Schema.Struct({
  person_id: Schema.Number,
  field_id: Schema.Number,
  public_id: Schema.String,
  value: Schema.String,
  field_public_id: Schema.String,
  name: Schema.String,
  type: FieldType,
  /** Multiselect fields: their options as a JSON array of { id, value, color }. */
  options: Schema.NullOr(Schema.String)
})
export type ValueRow = typeof ValueRow.Type

/** A value as stored: text or number as given, multiselect as a JSON array of option ids. */
export interface StoredValue {
  readonly person_id: number
  readonly field_id: number
  readonly value: string
}

/** A value for the active person with this email key (an import's persons are known by email). */
export interface NewValue {
  readonly publicId: string
  readonly emailKey: string
  readonly fieldId: number
  readonly value: string
}

/** Values, as `fillValuesMany` takes them. */
export const newValuesBatch = (values: ReadonlyArray<NewValue>): RowBatch<NewValue> => ({
  size: values.length,
  json: JSON.stringify(values.map((v) => [v.publicId, v.emailKey, v.fieldId, v.value]))
})

export class CustomFieldsRepo extends Effect.Service<CustomFieldsRepo>()("Convene/CustomFieldsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    const fields = SqlSchema.findAll({
      Request: Schema.Number,
      Result: FieldRow,
      execute: (organizationId) =>
        sql`SELECT id, public_id, name, type FROM custom_fields WHERE organization_id = ${organizationId} ORDER BY id`
    })

    const options = SqlSchema.findAll({
      Request: Schema.Number,
      Result: OptionRow,
      execute: (organizationId) =>
        sql`SELECT o.field_id, o.public_id, o.value, o.color FROM custom_field_options o
            JOIN custom_fields f ON f.id = o.field_id WHERE f.organization_id = ${organizationId} ORDER BY o.id`
    })

    const insertField = (row: { publicId: string; organizationId: number; name: string; type: FieldType; at: string }) =>
      sql`INSERT INTO custom_fields (public_id, organization_id, name, name_key, type, created_at)
          VALUES (${row.publicId}, ${row.organizationId}, ${row.name}, ${row.name.toLowerCase()}, ${row.type}, ${row.at})
          RETURNING id`.pipe(Effect.map((rows) => Number(rows[0]!["id"])))

    const insertOption = (row: { publicId: string; fieldId: number; value: string; color: string }) =>
      sql`INSERT INTO custom_field_options (public_id, field_id, value, color)
          VALUES (${row.publicId}, ${row.fieldId}, ${row.value}, ${row.color})`

    /** The values of several persons at once, with their fields, in field order. */
    const values = (personIds: ReadonlyArray<number>) =>
      personIds.length === 0
        ? Effect.succeed<ReadonlyArray<ValueRow>>([])
        : direct.rows<ValueRow>(
            sql`SELECT v.person_id, v.field_id, v.public_id, v.value, f.public_id AS field_public_id, f.name, f.type,
                  CASE WHEN f.type = 'multiselect' THEN
                    (SELECT json_group_array(json_object('id', o.public_id, 'value', o.value, 'color', o.color) ORDER BY o.id)
                       FROM custom_field_options o WHERE o.field_id = f.id)
                  END AS options
                FROM person_field_values v JOIN custom_fields f ON f.id = v.field_id
                WHERE v.person_id IN (SELECT value FROM json_each(${JSON.stringify(personIds)}))
                ORDER BY v.person_id, v.field_id`
          )

    /** The stored values of several persons, as stored (multiselect: a JSON array of option ids). */
    const storedValues = (personIds: ReadonlyArray<number>) =>
      personIds.length === 0
        ? Effect.succeed<ReadonlyArray<StoredValue>>([])
        : direct.rows<StoredValue>(
          sql`SELECT person_id, field_id, value FROM person_field_values
              WHERE person_id IN (SELECT value FROM json_each(${JSON.stringify(personIds)}))`
        )

    /**
     * Sets values of active persons (by email key) in one statement, only where the person has none
     * for the field yet (`CROSS JOIN`: see `PersonsRepo.addFirstPhones`).
     */
    const fillValuesMany = (organizationId: number, values: RowBatch<NewValue>, at: string) =>
      values.size === 0
        ? Effect.void
        : Effect.asVoid(direct.run(
          sql`INSERT INTO person_field_values (public_id, person_id, field_id, value, updated_at)
              SELECT j.value ->> 0, p.id, j.value ->> 2, j.value ->> 3, ${at} FROM json_each(${values.json}) j
              CROSS JOIN persons p ON p.organization_id = ${organizationId} AND p.email_key = j.value ->> 1 AND p.archived_at IS NULL
              WHERE true
              ON CONFLICT (person_id, field_id) DO NOTHING`
        ))

    const setValue = (row: { publicId: string; personId: number; fieldId: number; value: string; at: string }) =>
      sql`INSERT INTO person_field_values (public_id, person_id, field_id, value, updated_at)
          VALUES (${row.publicId}, ${row.personId}, ${row.fieldId}, ${row.value}, ${row.at})
          ON CONFLICT (person_id, field_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`

    const clearValue = (personId: number, fieldId: number) =>
      sql`DELETE FROM person_field_values WHERE person_id = ${personId} AND field_id = ${fieldId}`

    return { fields, options, insertField, insertOption, values, storedValues, fillValuesMany, setValue, clearValue } as const
  })
}) {}
