/**
 * The contact form's values as the input of `POST /person` and `PUT /person/:id`, decoded with the
 * same schemas (Kit/Body.ts), so the form refuses what the API refuses, at the same paths; custom
 * fields go through `PUT /person/:id`'s `customFields` / `customFieldMultiselect`, so their
 * validation and storage are the API's. And a refusal's messages, each at its field.
 *
 * An edit sends only what the organizer changed, measured against the values the form started
 * from (a hidden copy, `_original`): a field changed meanwhile by someone else is not set back,
 * and an unchanged custom field or SMS consent is not written again.
 */
import type * as Effect from "effect/Effect"
import { type Conflict, type InvalidRequest, Issue } from "../../Domain/Errors.js"
import { blankToNull } from "../../Domain/Fields.js"
import { CreatePerson, type CustomFieldDefinition, UpdatePerson } from "../../Persons/Domain.js"
import { decodeBody, plainer } from "../Kit/Body.js"
import { type ContactFormValues, customName, FIELD_LABELS, type FieldError, PROFILE_FIELDS, type ProfileField } from "./FormValues.js"

/** The field an issue's path is about: a profile field, or one item of a custom-field list. */
const fieldKey = (path: string) => path.split(".").slice(0, path.startsWith("custom") ? 2 : 1).join(".")

/** The `POST /person` input of a new contact's form: empty fields are simply not given. */
export const toCreate = (values: ContactFormValues): Effect.Effect<CreatePerson, InvalidRequest> => {
  const given = Object.fromEntries(PROFILE_FIELDS.map((f) => [f, values[f]]).filter(([, v]) => v !== ""))
  // the names and the email are needed: an empty one is refused at its field
  for (const f of ["firstName", "lastName", "email"] as const) given[f] = values[f]
  return decodeBody(CreatePerson, given, [], fieldKey)
}

/** Which custom field each item of an update's custom-field lists is, to put its errors at its input. */
export interface CustomPaths {
  readonly customFields: ReadonlyArray<string>
  readonly customFieldMultiselect: ReadonlyArray<string>
}

const sameList = (a: string | ReadonlyArray<string> | undefined, b: string | ReadonlyArray<string> | undefined) =>
  JSON.stringify(Array.isArray(a) ? [...a].sort() : a ?? "") === JSON.stringify(Array.isArray(b) ? [...b].sort() : b ?? "")

/**
 * The `PUT /person/:id` input of an edit form: only the fields changed since `original`. A
 * cleared optional field is sent as "" (which clears it); a phone number or birthday can be
 * replaced but not removed through the API, so clearing one is refused at its field.
 */
export const toUpdate = (
  personId: string,
  values: ContactFormValues,
  original: ContactFormValues,
  definitions: ReadonlyArray<CustomFieldDefinition>
): {
  readonly input: Effect.Effect<UpdatePerson, InvalidRequest>
  readonly paths: CustomPaths
  /** What the organizer changed, in words (empty: nothing to save). */
  readonly changes: ReadonlyArray<string>
} => {
  const body: Record<string, unknown> = { personId }
  const early: Array<Issue> = []
  const changes: Array<string> = []
  for (const field of PROFILE_FIELDS) {
    if (values[field] === original[field]) continue
    changes.push(FIELD_LABELS[field].toLowerCase())
    if (field === "phone") {
      if (values.phone === "") early.push(new Issue({ path: "phoneNumber", message: "can be replaced with another number, but not removed" }))
      else body["phoneNumber"] = values.phone
    } else if (field === "birthday" && values.birthday === "") {
      early.push(new Issue({ path: "birthday", message: "can be changed, but not removed" }))
    } else {
      body[field] = values[field]
    }
  }
  if (values.smsConsent !== original.smsConsent) {
    body["smsConsent"] = values.smsConsent
    changes.push("SMS consent")
  }
  const customFields: Array<{ fieldId: string; value: string | null }> = []
  const multiselect: Array<{ fieldId: string; value: string | null }> = []
  for (const definition of definitions) {
    const now = values.custom[definition.fieldId]
    if (sameList(now, original.custom[definition.fieldId])) continue
    changes.push(definition.fieldName)
    if (definition.fieldType === "multiselect") {
      const ids = Array.isArray(now) ? now as ReadonlyArray<string> : []
      if (ids.length === 0) multiselect.push({ fieldId: definition.fieldId, value: null })
      for (const id of ids) multiselect.push({ fieldId: definition.fieldId, value: id })
    } else {
      const text = typeof now === "string" ? now : ""
      customFields.push({ fieldId: definition.fieldId, value: blankToNull(text) })
    }
  }
  if (customFields.length > 0) body["customFields"] = customFields
  if (multiselect.length > 0) body["customFieldMultiselect"] = multiselect
  return {
    input: decodeBody(UpdatePerson, body, early, fieldKey),
    paths: { customFields: customFields.map((c) => c.fieldId), customFieldMultiselect: multiselect.map((c) => c.fieldId) },
    changes
  }
}

const NO_PATHS: CustomPaths = { customFields: [], customFieldMultiselect: [] }

/** The messages of a refused form, each at its field, in the order of the form. */
export const fieldErrors = (
  error: InvalidRequest | Conflict,
  definitions: ReadonlyArray<CustomFieldDefinition>,
  paths: CustomPaths = NO_PATHS
): ReadonlyArray<FieldError> => {
  if (error._tag === "Conflict") {
    return [{ field: "email", message: "Email belongs to another active contact: each active contact has an email of their own" }]
  }
  const issues = error.issues ?? []
  if (issues.length === 0) return [{ field: "firstName", message: error.message }]
  const order = [...PROFILE_FIELDS, "smsConsent", ...definitions.map((d) => customName(d.fieldId))]
  const found = issues.map((issue): FieldError => {
    const [head = "", index] = issue.path.split(".")
    const message = plainer(issue.message)
    if (head === "customFields" || head === "customFieldMultiselect") {
      const fieldId = paths[head][Number(index)]
      const definition = definitions.find((d) => d.fieldId === fieldId)
      if (definition !== undefined) {
        // the service's own messages name the field already ("Size takes a number")
        const text = message.startsWith(definition.fieldName) ? message : `${definition.fieldName}: ${message}`
        return { field: customName(definition.fieldId), message: text }
      }
      return { field: "firstName", message: `${issue.path}: ${message}` }
    }
    const field = head === "phoneNumber" ? "phone" : head
    const label = FIELD_LABELS[field as ProfileField] ?? field
    return { field: order.includes(field) ? field : "firstName", message: `${label} ${message}` }
  })
  const rank = (e: FieldError) => {
    const at = order.indexOf(e.field)
    return at === -1 ? order.length : at
  }
  return [...found].sort((a, b) => rank(a) - rank(b))
}
