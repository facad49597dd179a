/**
 * The contact form between the browser and the Persons service: what the fields hold (text as
 * typed, ticked options), how they become the input of `POST /person` and `PUT /person/:id`
 * (decoded with the same schemas, so the form refuses what the API refuses, at the same paths),
 * and how a person fills the form again. Custom fields are posted as `cf.<fieldId>` (one value,
 * or one per ticked option of a multiselect field) and sent through `PUT /person/:id`'s
 * `customFields` / `customFieldMultiselect`, so their validation and storage are the API's.
 *
 * An edit sends only what the organizer changed, measured against the values the form started
 * from (a hidden copy, `_original`): a field changed meanwhile by someone else is not set back,
 * and an unchanged custom field or SMS consent is not written again.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type Conflict, fromParseError, InvalidRequest, Issue } from "../Domain/Errors.js"
import { CreatePerson, type CustomFieldDefinition, type PersonDetail, type SmsConsentValue, UpdatePerson } from "../Persons/Domain.js"
import type { Form } from "./Web.js"
import { blankToNull } from "../Domain/Fields.js"

/** The fields of `POST /person`, in the form's order (`phone` is `phoneNumber` in an update). */
export const PROFILE_FIELDS = [
  "firstName",
  "lastName",
  "email",
  "phone",
  "company",
  "position",
  "birthday",
  "address",
  "apartment",
  "city",
  "state",
  "country",
  "postalCode",
  "contextNote",
  "profilePicture"
] as const
export type ProfileField = typeof PROFILE_FIELDS[number]

export const FIELD_LABELS: Readonly<Record<ProfileField | "smsConsent", string>> = {
  firstName: "First name",
  lastName: "Last name",
  email: "Email",
  phone: "Phone",
  company: "Company",
  position: "Position",
  birthday: "Birthday",
  address: "Address",
  apartment: "Apartment, suite or floor",
  city: "City",
  state: "State or province",
  country: "Country",
  postalCode: "Postal code",
  contextNote: "Note",
  profilePicture: "Profile picture",
  smsConsent: "SMS consent"
}

export const SMS_CONSENT_LABELS: Readonly<Record<SmsConsentValue, string>> = {
  none: "No answer recorded",
  optedIn: "Opted in",
  optedOut: "Opted out"
}

const CustomValue = Schema.Union(Schema.String, Schema.Array(Schema.String))

/** The form's fields as typed; `custom` by field id (multiselect: the ticked option ids). */
export const ContactFormValues = Schema.Struct({
  firstName: Schema.String,
  lastName: Schema.String,
  email: Schema.String,
  phone: Schema.String,
  company: Schema.String,
  position: Schema.String,
  birthday: Schema.String,
  address: Schema.String,
  apartment: Schema.String,
  city: Schema.String,
  state: Schema.String,
  country: Schema.String,
  postalCode: Schema.String,
  contextNote: Schema.String,
  profilePicture: Schema.String,
  smsConsent: Schema.String,
  custom: Schema.Record({ key: Schema.String, value: CustomValue })
})
export type ContactFormValues = typeof ContactFormValues.Type

const OriginalValues = Schema.parseJson(ContactFormValues)
const decodeOriginal = Schema.decodeUnknownOption(OriginalValues)
export const encodeOriginal = Schema.encodeSync(OriginalValues)

/** A message for one field of the form (`field`: the input's name, `cf.<fieldId>` for custom fields). */
export interface FieldError {
  readonly field: string
  readonly message: string
}

/** The name of a custom field's input(s). */
export const customName = (fieldId: string) => `cf.${fieldId}`

/** Text typed into a textarea: browsers send `\r\n` line breaks; they are kept as `\n`. */
const multiline = (value: string) => value.replace(/\r\n?/g, "\n").trim()

export const blankValues = (definitions: ReadonlyArray<CustomFieldDefinition>): ContactFormValues => ({
  firstName: "",
  lastName: "",
  email: "",
  phone: "",
  company: "",
  position: "",
  birthday: "",
  address: "",
  apartment: "",
  city: "",
  state: "",
  country: "",
  postalCode: "",
  contextNote: "",
  profilePicture: "",
  smsConsent: "none",
  custom: Object.fromEntries(definitions.map((d) => [d.fieldId, d.fieldType === "multiselect" ? [] : ""]))
})

/** The values of a submitted form. */
export const readValues = (form: Form, definitions: ReadonlyArray<CustomFieldDefinition>): ContactFormValues => ({
  ...Object.fromEntries(PROFILE_FIELDS.map((f) => [f, f === "contextNote" ? multiline(form.get(f)) : form.get(f)])) as Record<ProfileField, string>,
  smsConsent: form.get("smsConsent") || "none",
  custom: Object.fromEntries(definitions.map((d) => [
    d.fieldId,
    d.fieldType === "multiselect"
      ? form.getAll(customName(d.fieldId)).filter((id) => d.options.some((o) => o.id === id))
      : form.get(customName(d.fieldId))
  ]))
})

/** A person as the edit form shows it. */
export const valuesOf = (
  person: PersonDetail,
  smsConsent: SmsConsentValue,
  definitions: ReadonlyArray<CustomFieldDefinition>
): ContactFormValues => {
  const stored = new Map(person.customFieldsDetailed.map((f) => [f.fieldId, f.value]))
  return {
    firstName: person.firstName,
    lastName: person.lastName,
    email: person.email,
    phone: person.phone ?? "",
    company: person.company ?? "",
    position: person.position ?? "",
    birthday: person.birthday ?? "",
    address: person.address ?? "",
    apartment: person.apartment ?? "",
    city: person.city ?? "",
    state: person.state ?? "",
    country: person.country ?? "",
    postalCode: person.postalCode ?? "",
    contextNote: person.contextNote ?? "",
    profilePicture: person.profilePicture ?? "",
    smsConsent,
    custom: Object.fromEntries(definitions.map((d) => {
      const value = stored.get(d.fieldId)
      if (d.fieldType !== "multiselect") return [d.fieldId, typeof value === "string" ? value : ""]
      const values = Array.isArray(value) ? value as ReadonlyArray<string> : []
      return [d.fieldId, d.options.filter((o) => values.includes(o.value)).map((o) => o.id)]
    }))
  }
}

/** The edit form's starting point when its hidden copy is missing or altered. */
export const originalValues = (form: Form, current: ContactFormValues): ContactFormValues =>
  Option.getOrElse(decodeOriginal(form.get("_original")), () => current)

/** The field an issue's path is about: a profile field, or one item of a custom-field list. */
const fieldKey = (path: string) => path.split(".").slice(0, path.startsWith("custom") ? 2 : 1).join(".")

/** Decodes a body with the API's schema; the form's own issues come first and win at their paths. */
const decode = <A, I>(schema: Schema.Schema<A, I>, body: Record<string, unknown>, early: ReadonlyArray<Issue>) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })(body).pipe(
    Effect.mapError(fromParseError),
    Effect.either,
    Effect.flatMap((decoded) => {
      const issues: Array<Issue> = []
      // one message per field: a `NullOr` member that fails also reports "Expected null"
      for (const issue of [...early, ...(decoded._tag === "Left" ? decoded.left.issues ?? [] : [])]) {
        if (!issues.some((i) => fieldKey(i.path) === fieldKey(issue.path))) issues.push(issue)
      }
      return issues.length > 0 || decoded._tag === "Left"
        ? Effect.fail(new InvalidRequest({ message: "The form has errors", issues }))
        : Effect.succeed(decoded.right)
    })
  )

/** The `POST /person` input of a new contact's form: empty fields are simply not given. */
export const toCreate = (values: ContactFormValues): Effect.Effect<CreatePerson, InvalidRequest> => {
  const given = Object.fromEntries(PROFILE_FIELDS.map((f) => [f, values[f]]).filter(([, v]) => v !== ""))
  // the names and the email are needed: an empty one is refused at its field
  for (const f of ["firstName", "lastName", "email"] as const) given[f] = values[f]
  return decode(CreatePerson, given, [])
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
    input: decode(UpdatePerson, body, early),
    paths: { customFields: customFields.map((c) => c.fieldId), customFieldMultiselect: multiselect.map((c) => c.fieldId) },
    changes
  }
}

/** The API's words where a form can say it plainer. */
const FRIENDLIER: Readonly<Record<string, string>> = {
  "must be an absolute http(s) URL": "must be a full web address, starting with https:// or http://",
  "must not be empty": "must be filled in"
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
    const message = FRIENDLIER[issue.message] ?? issue.message
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
