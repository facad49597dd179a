/** Persons (contacts) as the API shows and takes them. */
import * as Schema from "effect/Schema"
import { DateOnly, Email, HttpUrl, optional, OptionalText, RequiredText, Text } from "../Domain/Fields.js"
import { KeyedRecord } from "../Domain/Keyed.js"
import { CustomFieldDetailed, CustomFieldsUpdate, CustomFieldValue, FieldOption, MultiselectEntry } from "./CustomFieldDomain.js"

export {
  CreateCustomField,
  CustomFieldDefinition,
  CustomFieldDetailed,
  CustomFieldEntry,
  CustomFieldsUpdate,
  CustomFieldValue,
  FIELD_TEXT_MAX,
  FieldOption,
  FieldType,
  MAX_CUSTOM_FIELDS,
  MAX_FIELD_OPTIONS,
  MultiselectEntry
} from "./CustomFieldDomain.js"

export const RsvpHistoryEntry = Schema.Struct({
  status: Schema.String,
  actorId: Schema.String,
  actorType: Schema.String,
  createdAt: Schema.String
}).annotations({ identifier: "RsvpHistoryEntry" })

export const EventHistoryEntry = Schema.Struct({
  eventId: Schema.String,
  name: Schema.String,
  slug: Schema.NullOr(Schema.String),
  date: Schema.String,
  rsvpStatus: Schema.String,
  rsvpStatusHistory: Schema.Array(RsvpHistoryEntry),
  attendance: Schema.NullOr(Schema.String)
}).annotations({ identifier: "EventHistoryEntry" })

const optionalString = Schema.optionalWith(Schema.String, { exact: true })

/** The example person of the API's documentation, as lists show it. */
const ada = {
  personId: "f8a64a54-f28c-4234-8ab3-1335fdf45bad",
  firstName: "Ada",
  lastName: "Lovelace",
  email: "ada@example.com",
  company: "Analytical Engines",
  birthday: "1815-12-10",
  phone: "+44 20 7946 0000",
  archived: false,
  customFields: { Interests: ["Music"], Tier: "Gold" }
}

/** A person in lists and search results. Unset profile fields are left out. */
export const Person = Schema.Struct({
  personId: Schema.String,
  firstName: Schema.String,
  lastName: Schema.String,
  email: Schema.String,
  profilePicture: optionalString,
  company: optionalString,
  position: optionalString,
  birthday: optionalString,
  address: optionalString,
  apartment: optionalString,
  city: optionalString,
  state: optionalString,
  country: optionalString,
  postalCode: optionalString,
  phone: Schema.NullOr(Schema.String),
  archived: Schema.Boolean,
  customFields: KeyedRecord(CustomFieldValue)
}).annotations({
  identifier: "Person",
  examples: [ada]
})
export type Person = typeof Person.Type

/** One person with everything: `GET /person/:id`. */
export const PersonDetail = Schema.Struct({
  ...Person.fields,
  contextNote: optionalString,
  customFieldsDetailed: Schema.Array(CustomFieldDetailed),
  eventHistory: Schema.Array(EventHistoryEntry)
}).annotations({
  identifier: "PersonDetail",
  examples: [{
    ...ada,
    customFieldsDetailed: [
      {
        fieldId: "123c2500-ae0c-4fe9-ad88-ca6d35e11461",
        fieldName: "Interests",
        fieldType: "multiselect",
        value: ["Music"],
        valueId: "eab96c90-4d24-44a0-aece-1248e049283f",
        options: [new FieldOption({ id: "a0d57100-e421-4874-af48-bbc887af700a", value: "Music", color: "#1e90ff" })]
      },
      {
        fieldId: "86a52bf8-6ffb-4c37-9998-1413f2d50191",
        fieldName: "Tier",
        fieldType: "text",
        value: "Gold",
        valueId: "94d8b43f-2511-4d9a-a660-192f0c82315a"
      }
    ],
    eventHistory: [{
      eventId: "f8b1969a-ac50-4831-8044-6139cce28f31",
      name: "Summer Gala",
      slug: "summer-gala",
      date: "2030-06-01T20:00:00+02:00",
      rsvpStatus: "Accepted",
      rsvpStatusHistory: [
        { status: "Invited", actorId: "18b77992-12bb-4f7a-9c3b-818d9674e403", actorType: "apiKey", createdAt: "2030-05-01T09:00:00.000Z" },
        { status: "Accepted", actorId: "18b77992-12bb-4f7a-9c3b-818d9674e403", actorType: "apiKey", createdAt: "2030-05-02T10:30:00.000Z" }
      ],
      attendance: null
    }]
  }]
})
export type PersonDetail = typeof PersonDetail.Type

export const SmsConsentValue = Schema.Literal("optedIn", "optedOut", "none")
export type SmsConsentValue = typeof SmsConsentValue.Type

export const CreatePerson = Schema.Struct({
  firstName: RequiredText(200),
  lastName: RequiredText(200),
  email: Email,
  company: OptionalText(),
  position: OptionalText(),
  phone: OptionalText(50),
  // a real YYYY-MM-DD date or absent; null and "" are refused like any other value
  birthday: optional(DateOnly),
  address: OptionalText(),
  apartment: OptionalText(),
  city: OptionalText(),
  state: OptionalText(),
  country: OptionalText(),
  postalCode: OptionalText(50),
  contextNote: OptionalText(5000),
  profilePicture: optional(Schema.NullOr(HttpUrl))
}).annotations({
  identifier: "CreatePerson",
  examples: [
    { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com" },
    {
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada@example.com",
      company: "Analytical Engines",
      position: "Mathematician",
      phone: "+44 20 7946 0000",
      birthday: "1815-12-10",
      city: "London",
      country: "GB"
    }
  ]
})
export type CreatePerson = typeof CreatePerson.Type

export const UpdatePerson = Schema.Struct({
  personId: Schema.String,
  firstName: optional(RequiredText(200)),
  lastName: optional(RequiredText(200)),
  email: optional(Email),
  phoneNumber: optional(Schema.NullOr(Text(50))),
  smsConsent: optional(SmsConsentValue),
  company: OptionalText(),
  position: OptionalText(),
  birthday: optional(DateOnly),
  address: OptionalText(),
  apartment: OptionalText(),
  city: OptionalText(),
  state: OptionalText(),
  country: OptionalText(),
  postalCode: OptionalText(50),
  contextNote: OptionalText(5000),
  profilePicture: optional(Schema.NullOr(Schema.Union(HttpUrl, Schema.Literal("")))),
  customFields: optional(CustomFieldsUpdate),
  customFieldMultiselect: optional(Schema.Array(MultiselectEntry))
}).annotations({
  identifier: "UpdatePerson",
  examples: [
    { personId: "f8a64a54-f28c-4234-8ab3-1335fdf45bad", company: "Analytical Engines Ltd", phoneNumber: "+44 20 7946 0001", smsConsent: "optedIn" },
    {
      personId: "f8a64a54-f28c-4234-8ab3-1335fdf45bad",
      customFields: [{ fieldName: "Tier", value: "Gold" }],
      customFieldMultiselect: [
        { fieldId: "123c2500-ae0c-4fe9-ad88-ca6d35e11461", value: "Music" },
        { fieldId: "123c2500-ae0c-4fe9-ad88-ca6d35e11461", value: "Chess" }
      ]
    }
  ]
})
export type UpdatePerson = typeof UpdatePerson.Type


/** Persons `GET /person?ids=` answers at most (a change feed page's worth, fetched in one request). */
export const MAX_IDS = 100
