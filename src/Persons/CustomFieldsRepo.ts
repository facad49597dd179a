/** Custom-field definitions and the values persons hold for them. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { type OrganizationRowId, PersonRowId, rowIdColumn } from "../Domain/RowIds.js"
import { activePersonByEmail } from "./BatchJoins.js"
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
  person_id: rowIdColumn.person,
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
export const StoredValue = Schema.Struct({ person_id: rowIdColumn.person, field_id: Schema.Number, value: Schema.String })
export type StoredValue = typeof StoredValue.Type

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
    const d = dialectOf(sql)
    const optionsJson = sql.literal(d.jsonObjects([["id", "o.public_id"], ["value", "o.value"], ["color", "o.color"]], "o.id"))

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

    const insertField = (row: { publicId: string; organizationId: OrganizationRowId; name: string; type: FieldType; at: string }) =>
      sql`INSERT INTO custom_fields (public_id, organization_id, name, name_key, type, created_at)
          VALUES (${row.publicId}, ${row.organizationId}, ${row.name}, ${row.name.toLowerCase()}, ${row.type}, ${row.at})
          RETURNING id`.pipe(Effect.map((rows) => Number(rows[0]!["id"])))

    const insertOption = (row: { publicId: string; fieldId: number; value: string; color: string }) =>
      sql`INSERT INTO custom_field_options (public_id, field_id, value, color)
          VALUES (${row.publicId}, ${row.fieldId}, ${row.value}, ${row.color})`

    /** A multiselect value's chosen options (`v.value` holds their ids as a JSON array). */
    const chosen = sql.literal(`AND o.public_id IN ${d.inJsonText("v.value")}`)

    /**
     * The values of several persons at once, with their fields, in field order. A multiselect value
     * carries its field's options: all of them with `allOptions` (one person's `customFieldsDetailed`
     * lists them), else only the chosen ones (a page of persons shows the chosen values alone, and
     * a field's whole list for each of a hundred persons was a hundred copies of it).
     */
    const values = (personIds: ReadonlyArray<PersonRowId>, allOptions = false) =>
      personIds.length === 0
        ? Effect.succeed<ReadonlyArray<ValueRow>>([])
        : direct.rows(
            ValueRow,
            sql`SELECT v.person_id, v.field_id, v.public_id, v.value, f.public_id AS field_public_id, f.name, f.type,
                  CASE WHEN f.type = 'multiselect' THEN
                    (SELECT ${optionsJson}
                       FROM custom_field_options o WHERE o.field_id = f.id ${allOptions ? sql.literal("") : chosen})
                  END AS options
                FROM person_field_values v JOIN custom_fields f ON f.id = v.field_id
                WHERE v.person_id IN ${d.inValues(JSON.stringify(personIds), "integer")}
                ORDER BY v.person_id, v.field_id`
          )

    /**
     * The stored values of several persons, as stored (multiselect: a JSON array of option ids). An
     * import asks for thousands at once: on PostgreSQL the ids drive, each finding its values by
     * the index (Db/Dialect.ts `lookup`).
     */
    const storedValues = (personIds: ReadonlyArray<PersonRowId>) =>
      personIds.length === 0
        ? Effect.succeed<ReadonlyArray<StoredValue>>([])
        : direct.rows(
          StoredValue,
          sql`SELECT v.person_id, v.field_id, v.value ${
            d.lookup("person_field_values", "v", "person_id", { json: JSON.stringify(personIds), type: "integer" }, undefined, {
              columns: "v.person_id, v.field_id, v.value",
              atMostOne: false
            })
          }`
        )

    /**
     * Sets values of active persons (by email key) in one statement, only where the person has none
     * for the field yet (each person found by its email's index: BatchJoins.ts).
     */
    const fillValuesMany = (organizationId: OrganizationRowId, values: RowBatch<NewValue>, at: string) =>
      values.size === 0
        ? Effect.void
        : Effect.asVoid(direct.run(
          sql`INSERT INTO person_field_values (public_id, person_id, field_id, value, updated_at)
              SELECT ${d.at(0)}, p.id, ${d.at(2, "integer")}, ${d.at(3)}, ${at} FROM ${d.rows(values.json)}
              ${activePersonByEmail(sql, d, organizationId, d.at(1))}
              WHERE true
              ON CONFLICT (person_id, field_id) DO NOTHING`
        ))

    const setValue = (row: { publicId: string; personId: PersonRowId; fieldId: number; value: string; at: string }) =>
      sql`INSERT INTO person_field_values (public_id, person_id, field_id, value, updated_at)
          VALUES (${row.publicId}, ${row.personId}, ${row.fieldId}, ${row.value}, ${row.at})
          ON CONFLICT (person_id, field_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`

    const clearValue = (personId: PersonRowId, fieldId: number) =>
      sql`DELETE FROM person_field_values WHERE person_id = ${personId} AND field_id = ${fieldId}`

    return { fields, options, insertField, insertOption, values, storedValues, fillValuesMany, setValue, clearValue } as const
  })
}) {}
