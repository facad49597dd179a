/** Events as the API shows and takes them (docs/integrators.md#events). */
import * as Schema from "effect/Schema"
import { Email, HttpUrl, isRealDate, optional, OptionalText, RequiredText, Text } from "../Domain/Fields.js"
import { Role } from "../Domain/Role.js"
import { Reminders } from "./Reminders.js"

export const VirtualLocation = Schema.Struct({
  url: Schema.NullOr(Schema.String),
  password: Schema.NullOr(Schema.String),
  phoneNumber: Schema.NullOr(Schema.String),
  sourceType: Schema.NullOr(Schema.String)
}).annotations({ identifier: "VirtualLocation" })
export type VirtualLocation = typeof VirtualLocation.Type

export const EventImage = Schema.Struct({ type: Schema.String, url: Schema.String }).annotations({ identifier: "EventImage" })

export const RsvpQuestion = Schema.Struct({
  title: Schema.String,
  description: Schema.NullOr(Schema.String)
}).annotations({ identifier: "RsvpQuestion" })
export type RsvpQuestion = typeof RsvpQuestion.Type

const nullableString = Schema.NullOr(Schema.String)

export const Event = Schema.Struct({
  eventId: Schema.String,
  name: Schema.String,
  primarySlug: nullableString,
  primaryDate: Schema.String,
  timezone: Schema.String,
  userRole: Role,
  isPublic: Schema.Boolean,
  locationName: nullableString,
  locationAddress: nullableString,
  locationPhoneNumber: nullableString,
  locationWebsite: nullableString,
  virtualLocations: Schema.Array(VirtualLocation),
  eventTags: Schema.Array(Schema.String),
  images: Schema.Array(EventImage),
  rsvpDescription: nullableString,
  description: nullableString,
  capacity: Schema.NullOr(Schema.Int),
  featuredImage: nullableString,
  locationApartment: nullableString,
  locationCity: nullableString,
  locationState: nullableString,
  locationPostalCode: nullableString,
  locationCountry: nullableString,
  linkPreviewDescription: nullableString,
  capacityEnabled: Schema.Boolean,
  ticketingEnabled: Schema.Boolean,
  rsvpQuestions: Schema.Array(RsvpQuestion),
  customColumns: Schema.Array(Schema.String),
  hostUserIds: Schema.Array(Schema.String),
  registrationOpen: Schema.Boolean,
  registrationClosesAt: nullableString,
  registrationApproval: Schema.Boolean,
  reminders: Schema.Array(Schema.String),
  replyTo: nullableString,
  endDate: nullableString
}).annotations({
  identifier: "Event",
  examples: [{
    eventId: "f8b1969a-ac50-4831-8044-6139cce28f31",
    name: "Summer Gala",
    primarySlug: "summer-gala",
    primaryDate: "2030-06-01T20:00:00+02:00",
    timezone: "Europe/Paris",
    userRole: "Admin",
    isPublic: true,
    locationName: "Grand Hall",
    locationAddress: "1 Example Street",
    locationPhoneNumber: null,
    locationWebsite: "https://grandhall.example.org",
    virtualLocations: [{ url: "https://meet.example.org/gala", password: null, phoneNumber: null, sourceType: "custom" }],
    eventTags: ["gala", "fundraiser"],
    images: [{ type: "headerImg", url: "https://cdn.example.org/gala-header.jpg" }],
    rsvpDescription: "Dress code: black tie.\nDoors at 19:30.",
    description: "Dress code: black tie. Doors at 19:30.",
    capacity: 200,
    featuredImage: null,
    locationApartment: null,
    locationCity: "Paris",
    locationState: null,
    locationPostalCode: "75001",
    locationCountry: "FR",
    linkPreviewDescription: null,
    capacityEnabled: true,
    ticketingEnabled: true,
    rsvpQuestions: [{ title: "Song request?", description: null }],
    customColumns: ["Table"],
    hostUserIds: ["0b0e8a52-61a4-4b5e-9a3c-2f1d4e5c6b7a"],
    registrationOpen: true,
    registrationClosesAt: "2030-05-25T23:59:00+02:00",
    registrationApproval: false,
    reminders: ["P1D", "PT2H"],
    replyTo: "gala@example.org",
    endDate: "2030-06-02T01:00:00+02:00"
  }]
})
export type Event = typeof Event.Type

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/

/**
 * ISO 8601 date and time with an offset (`Z` or `±hh:mm`), naming a real moment (no 30 February,
 * no 24:00); kept as given and compared by its instant.
 */
export const DateTimeWithOffset = Schema.Trim.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/, {
    message: () => "must be an ISO 8601 date and time with an offset, such as 2027-05-01T18:00:00+02:00"
  }),
  Schema.filter((s) => {
    const match = DATE_TIME.exec(s)
    return match !== null && isRealDate(match[1]!) && !Number.isNaN(Date.parse(s))
  }, { message: () => "must be a real date and time" })
).annotations({ identifier: "DateTimeWithOffset" })

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export const TimeZone = Schema.Trim.pipe(
  Schema.filter(isTimeZone, { message: () => "must be an IANA time zone such as Europe/Paris" })
).annotations({ identifier: "TimeZone" })

export const Slug = Schema.Trim.pipe(
  Schema.pattern(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, { message: () => "must be lowercase letters and digits, joined by single hyphens" }),
  Schema.maxLength(100, { message: () => "must be at most 100 characters" })
).annotations({ identifier: "Slug" })

const VirtualLocationInput = Schema.Struct({
  url: optional(Schema.NullOr(HttpUrl)),
  password: optional(Schema.NullOr(Text(200))),
  phoneNumber: optional(Schema.NullOr(Text(50))),
  sourceType: optional(Schema.NullOr(Text(100)))
})

const RsvpQuestionInput = Schema.Struct({
  title: RequiredText(300),
  description: optional(Schema.NullOr(Text(2000)))
})

const eventFields = {
  timezone: optional(TimeZone),
  primarySlug: optional(Schema.NullOr(Slug)),
  isPublic: optional(Schema.Boolean),
  locationName: OptionalText(),
  locationAddress: OptionalText(),
  locationApartment: OptionalText(),
  locationCity: OptionalText(),
  locationState: OptionalText(),
  locationPostalCode: OptionalText(50),
  locationCountry: OptionalText(),
  locationPhoneNumber: OptionalText(50),
  locationWebsite: optional(Schema.NullOr(HttpUrl)),
  virtualLocations: optional(Schema.Array(VirtualLocationInput).pipe(Schema.maxItems(20))),
  eventTags: optional(Schema.Array(RequiredText(100)).pipe(Schema.maxItems(100))),
  images: optional(Schema.Array(Schema.Struct({ type: RequiredText(50), url: HttpUrl })).pipe(Schema.maxItems(50))),
  rsvpDescription: optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(20_000)))),
  linkPreviewDescription: optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2_000)))),
  featuredImage: optional(Schema.NullOr(HttpUrl)),
  capacityEnabled: optional(Schema.Boolean),
  capacity: optional(Schema.NullOr(Schema.Int.pipe(Schema.between(0, 10_000_000)))),
  ticketingEnabled: optional(Schema.Boolean),
  rsvpQuestions: optional(Schema.Array(RsvpQuestionInput).pipe(Schema.maxItems(50))),
  customColumns: optional(Schema.Array(RequiredText(100)).pipe(Schema.maxItems(50))),
  hostUserIds: optional(Schema.Array(Schema.String).pipe(Schema.maxItems(100))),
  registrationOpen: optional(Schema.Boolean),
  registrationClosesAt: optional(Schema.NullOr(DateTimeWithOffset)),
  registrationApproval: optional(Schema.Boolean),
  reminders: optional(Reminders),
  replyTo: optional(Schema.NullOr(Email)),
  /** after `primaryDate` (Events.ts checks the order, also against the stored date on a patch) */
  endDate: optional(Schema.NullOr(DateTimeWithOffset))
}

export const CreateEvent = Schema.Struct({
  name: RequiredText(300),
  primaryDate: DateTimeWithOffset,
  ...eventFields
}).annotations({
  identifier: "CreateEvent",
  examples: [
    { name: "Summer Gala", primaryDate: "2030-06-01T20:00:00+02:00" },
    {
      name: "Summer Gala",
      primaryDate: "2030-06-01T20:00:00+02:00",
      timezone: "Europe/Paris",
      primarySlug: "summer-gala",
      isPublic: true,
      locationName: "Grand Hall",
      locationAddress: "1 Example Street",
      locationCity: "Paris",
      rsvpDescription: "Dress code: black tie.\nDoors at 19:30.",
      capacityEnabled: true,
      capacity: 200,
      ticketingEnabled: true,
      rsvpQuestions: [{ title: "Song request?" }],
      customColumns: ["Table"],
      registrationApproval: true,
      reminders: ["P1D", "PT2H"],
      replyTo: "gala@example.org",
      endDate: "2030-06-02T01:00:00+02:00"
    }
  ]
})
export type CreateEvent = typeof CreateEvent.Type

export const UpdateEvent = Schema.Struct({
  name: optional(RequiredText(300)),
  primaryDate: optional(DateTimeWithOffset),
  ...eventFields
}).annotations({
  identifier: "UpdateEvent",
  examples: [
    { primaryDate: "2030-06-08T20:00:00+02:00", locationName: "Riverside Pavilion" },
    { linkPreviewDescription: "An evening of music for a good cause", capacity: 250 }
  ]
})
export type UpdateEvent = typeof UpdateEvent.Type
