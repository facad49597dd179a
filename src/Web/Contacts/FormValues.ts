/**
 * The contact form's values: what its fields hold (text as typed, ticked options), read from the
 * posted form with schemas, and how a person fills the form again. Custom fields are posted as
 * `cf.<fieldId>` (one value, or one per ticked option of a multiselect field). How the values become
 * the API's input: FormInput.ts.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { CustomFieldDefinition, PersonDetail, SmsConsentValue } from "../../Persons/Domain.js"
import { type Form, fieldsOf, Multiline } from "../Kit/Form.js"

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

/** The profile fields as the form posts them (the note is a textarea's text). */
const readProfile = fieldsOf(Schema.Struct({ ...ContactFormValues.omit("custom").fields, contextNote: Multiline }))

/** The custom fields as the form posts them: one value, or the ticked options of a multiselect field. */
const customForm = (definitions: ReadonlyArray<CustomFieldDefinition>) =>
  Schema.Struct(Object.fromEntries(definitions.map((d) => [customName(d.fieldId), d.fieldType === "multiselect" ? Schema.Array(Schema.String) : Schema.String])))

/** The values of a submitted form. */
export const readValues = (form: Form, definitions: ReadonlyArray<CustomFieldDefinition>): ContactFormValues => {
  const profile = readProfile(form)
  const custom = fieldsOf(customForm(definitions))(form) as Record<string, string | ReadonlyArray<string>>
  return {
    ...profile,
    smsConsent: profile.smsConsent || "none",
    custom: Object.fromEntries(definitions.map((d) => {
      const value = custom[customName(d.fieldId)]!
      return [d.fieldId, typeof value === "string" ? value : value.filter((id) => d.options.some((o) => o.id === id))]
    }))
  }
}

/** A person as the edit form shows it. */
export const valuesOf = (
  person: PersonDetail,
  smsConsent: SmsConsentValue,
  definitions: ReadonlyArray<CustomFieldDefinition>
): ContactFormValues => {
  const stored = new Map(person.customFieldsDetailed.map((f) => [f.fieldId, f.value]))
  return {
    ...Object.fromEntries(PROFILE_FIELDS.map((f) => [f, person[f] ?? ""])) as Record<ProfileField, string>,
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
