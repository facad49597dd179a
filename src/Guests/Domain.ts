/** Guests, the event-person links (docs/integrators.md#the-guest-object). */
import * as Schema from "effect/Schema"
import { Conflict } from "../Domain/Errors.js"
import { BoundedString, Email, ExactNumber, optional, OptionalText, RequiredText, Text } from "../Domain/Fields.js"
import { isScalar, keyedOf } from "../Domain/JsonGuard.js"
import { KeyedRecord } from "../Domain/Keyed.js"
import { atLeast, type Role } from "../Domain/Role.js"
import { Payment, PaymentStatus } from "../Payments/Domain.js"

export const RsvpStatus = Schema.Literal("Invited", "Accepted", "Declined", "Maybe", "Waitlisted", "Pending")
export type RsvpStatus = typeof RsvpStatus.Type
/** Whether a stored status is one of the API's (the column has no CHECK constraint). */
export const isRsvpStatus = Schema.is(RsvpStatus)
/** A count for each RSVP status, every one at zero. */
export const zeroByStatus = (): Record<RsvpStatus, number> =>
  Object.fromEntries(RsvpStatus.literals.map((status) => [status, 0])) as Record<RsvpStatus, number>

/**
 * Who made an RSVP history entry (`actorType`): a member signed in, an API key, the guest, or the
 * service itself (a waitlist promotion, whose `actorId` is the event's id).
 */
export const ActorType = Schema.Literal("user", "apiKey", "eventPerson", "system")
export type ActorType = typeof ActorType.Type

export const AttendanceStatus = Schema.Literal("Attended", "No Show")
export type AttendanceStatus = typeof AttendanceStatus.Type

export const SmsConsent = Schema.Struct({
  consent: Schema.Literal("optedIn", "optedOut", "none"),
  source: Schema.String
}).annotations({ identifier: "SmsConsent" })

export const HistoryEntry = Schema.Struct({
  status: Schema.String,
  actorId: Schema.String,
  actorType: Schema.String.annotations({
    description: "user, apiKey, eventPerson, or system (a waitlist promotion: actorId is then the event's id)"
  }),
  createdAt: Schema.String
}).annotations({ identifier: "RsvpHistoryEntry" })

export const QuestionResponse = Schema.Struct({
  title: Schema.String,
  description: Schema.NullOr(Schema.String),
  answers: Schema.Array(Schema.String)
}).annotations({ identifier: "RsvpQuestionResponse" })
export type QuestionResponse = typeof QuestionResponse.Type

export const ColumnValue = Schema.Union(Schema.String, ExactNumber, Schema.Boolean)
export type ColumnValue = typeof ColumnValue.Type

/**
 * The longest text a custom column takes from a request or a file (a value is read back with
 * every guest, in lists, exports and notifications, so it stays small).
 */
export const COLUMN_TEXT_MAX = 2_000

/**
 * The most RSVP history entries one guest keeps. Every status given appends one, and every read,
 * export and notification of the guest carries all of them: without a bound, one caller could grow
 * a guest's history (500 entries a request) until reading it took the server's memory. A real
 * guest changes their answer a handful of times; a write that would pass the bound is refused.
 */
export const MAX_HISTORY_ENTRIES = 1_000

/** Why a write that would add to a full history is refused. */
export const HISTORY_FULL = `holds ${MAX_HISTORY_ENTRIES.toLocaleString("en-US")} RSVP history entries already, the most a guest keeps`

/** The 409 of a write that would add to a full history: of item `at` of a batch (`guests.3`), or of the one guest. */
export const historyFull = (at?: string) =>
  new Conflict({ message: at === undefined ? `This guest ${HISTORY_FULL}` : `${at}: this guest ${HISTORY_FULL}` })

/** A custom column's value as a request sets it. */
const ColumnValueInput = Schema.Union(
  BoundedString(COLUMN_TEXT_MAX),
  ExactNumber,
  Schema.Boolean
)
/** A guest's custom columns as stored (`custom_columns`): titles to values. */
export const isColumnValues = keyedOf(isScalar)

export const Guest = Schema.Struct({
  personId: Schema.String,
  firstName: Schema.String,
  lastName: Schema.String,
  name: Schema.String,
  email: Schema.String,
  phone: Schema.NullOr(Schema.String),
  smsConsent: Schema.NullOr(SmsConsent),
  rsvpStatus: Schema.String,
  rsvpStatusHistory: Schema.Array(HistoryEntry),
  dietaryRestrictions: Schema.NullOr(Schema.Array(Schema.String)),
  attendanceStatus: Schema.NullOr(AttendanceStatus),
  rsvpQuestionResponses: Schema.Array(QuestionResponse),
  rsvpNote: Schema.NullOr(Schema.String),
  customColumns: Schema.NullOr(KeyedRecord(ColumnValue)),
  rsvpLink: Schema.NullOr(Schema.String),
  paymentStatus: Schema.optionalWith(Schema.NullOr(PaymentStatus), { exact: true }),
  paymentAmount: Schema.optionalWith(Schema.NullOr(Schema.Int), { exact: true }),
  donationAmount: Schema.optionalWith(Schema.NullOr(Schema.Int), { exact: true }),
  payments: Schema.optionalWith(Schema.NullOr(Schema.Array(Payment)), { exact: true })
}).annotations({
  identifier: "Guest",
  description: "Payment fields are present only for callers with the Team Member role or above."
})
export type Guest = typeof Guest.Type

export const NewGuest = Schema.Struct({
  personId: optional(RequiredText(100)),
  firstName: optional(RequiredText(200)),
  lastName: optional(RequiredText(200)),
  email: optional(Email),
  phoneNumber: OptionalText(50),
  company: OptionalText(),
  position: OptionalText(),
  notes: optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(5000))))
}).pipe(
  Schema.filter((guest) => {
    if (guest.personId !== undefined) return true
    const missing = (["firstName", "lastName", "email"] as const).find((key) => guest[key] === undefined)
    return missing === undefined || { path: [missing], message: "is required without personId" }
  })
).annotations({ identifier: "NewGuest", description: "An existing person by personId, or firstName, lastName and email." })
export type NewGuest = typeof NewGuest.Type

export const GuestUpdate = Schema.Struct({
  personId: RequiredText(100),
  rsvpStatus: optional(RsvpStatus),
  attendanceStatus: optional(Schema.NullOr(AttendanceStatus)),
  dietaryRestrictions: optional(Schema.NullOr(Schema.Array(RequiredText(100)).pipe(Schema.maxItems(50)))),
  rsvpNote: optional(Schema.NullOr(Text(5000))),
  customColumns: optional(KeyedRecord(Schema.NullOr(ColumnValueInput)))
}).annotations({ identifier: "GuestUpdate" })
export type GuestUpdate = typeof GuestUpdate.Type

export const GuestRef = Schema.Struct({ personId: RequiredText(100) }).annotations({ identifier: "GuestRef" })

/** A batch of 1 to 500 items; a batch applies whole or not at all. */
export const Batch = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Struct({
    guests: Schema.Array(item).pipe(
      Schema.minItems(1, { message: () => "must hold 1 to 500 guests" }),
      Schema.maxItems(500, { message: () => "must hold 1 to 500 guests" })
    )
  })

/** Whether the caller sees payment fields at all (below Team Member the payment keys are absent, not null). */
export const seesPayments = (role: Role) => atLeast(role, "Team Member")
