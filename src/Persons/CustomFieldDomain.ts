/** Custom fields as the API shows and takes them: definitions, values, and the two update forms. */
import * as Schema from "effect/Schema"
import { BoundedString, ExactNumber, optional, RequiredText } from "../Domain/Fields.js"
import { KeyedRecord } from "../Domain/Keyed.js"

export const FieldType = Schema.Literal("text", "number", "multiselect")
export type FieldType = typeof FieldType.Type

export class FieldOption extends Schema.Class<FieldOption>("FieldOption")({
  id: Schema.String,
  value: Schema.String,
  color: Schema.String
}) {}

export class CustomFieldDefinition extends Schema.Class<CustomFieldDefinition>("CustomFieldDefinition")({
  fieldId: Schema.String,
  fieldName: Schema.String,
  fieldType: FieldType,
  options: Schema.Array(FieldOption)
}) {}

export const CustomFieldValue = Schema.Union(Schema.String, Schema.Array(Schema.String))

export const CustomFieldDetailed = Schema.Struct({
  fieldId: Schema.String,
  fieldName: Schema.String,
  fieldType: FieldType,
  value: CustomFieldValue,
  valueId: Schema.String,
  options: Schema.optionalWith(Schema.Array(FieldOption), { exact: true })
}).annotations({ identifier: "CustomFieldDetailed" })

/**
 * The longest text a custom field takes from a request or a file (a value is read back with the
 * person in every list and export, so it stays small).
 */
export const FIELD_TEXT_MAX = 2_000

const ScalarValue = Schema.NullOr(Schema.Union(
  BoundedString(FIELD_TEXT_MAX),
  ExactNumber
))

export const CustomFieldEntry = Schema.Struct({
  fieldId: optional(Schema.String),
  fieldName: optional(Schema.String),
  value: ScalarValue
})

export const CustomFieldsUpdate = Schema.Union(
  Schema.Array(CustomFieldEntry),
  KeyedRecord(ScalarValue)
).annotations({
  description: "Text and number fields: an array of { fieldId or fieldName, value } (preferred), or a legacy object of name-to-value pairs."
})

export const MultiselectEntry = Schema.Struct({
  fieldId: Schema.String,
  value: Schema.NullOr(Schema.String)
})

/** Options of one multiselect field (a list of the world's countries fits), and fields of one organization. */
export const MAX_FIELD_OPTIONS = 250
export const MAX_CUSTOM_FIELDS = 200

export const CreateCustomField = Schema.Struct({
  fieldName: RequiredText(100),
  fieldType: FieldType,
  options: optional(Schema.Array(Schema.Struct({
    value: RequiredText(100),
    color: Schema.Trim.pipe(Schema.pattern(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, {
      message: () => "must be a hex colour such as #1e90ff"
    }))
  })).pipe(Schema.maxItems(MAX_FIELD_OPTIONS, { message: () => `must have at most ${MAX_FIELD_OPTIONS} options` })))
}).annotations({
  identifier: "CreateCustomField",
  examples: [
    { fieldName: "Tier", fieldType: "text" },
    { fieldName: "Interests", fieldType: "multiselect", options: [{ value: "Music", color: "#1e90ff" }, { value: "Chess", color: "#aa3344" }] }
  ]
})
export type CreateCustomField = typeof CreateCustomField.Type
