/** Invitations by email as the API takes and shows them (docs/integrators.md#email-invitations). */
import * as Schema from "effect/Schema"
import { optional, Text } from "../Domain/Fields.js"
import { RsvpStatus } from "../Guests/Domain.js"

/** The most guests one request names, and the most emails one request queues. */
export const MAX_PERSON_IDS = 500
export const MAX_RECIPIENTS = 5_000
/** A guest invited to an event is not invited to it again within this many minutes (CONTRACT §18). */
export const REINVITE_WINDOW_MINUTES = 10

const OneLine = Text(200).pipe(
  Schema.filter((s) => !/[\r\n]/.test(s), { message: () => "must be one line" }),
  Schema.minLength(1, { message: () => "must not be empty" })
)

export const SendInvitations = Schema.Struct({
  personIds: optional(
    Schema.Array(Schema.String).pipe(
      Schema.minItems(1, { message: () => `must hold 1 to ${MAX_PERSON_IDS} person ids` }),
      Schema.maxItems(MAX_PERSON_IDS, { message: () => `must hold 1 to ${MAX_PERSON_IDS} person ids` })
    ).annotations({ description: "The guests to invite (1 to 500 person ids, each on the guest list)" })
  ),
  statuses: optional(
    Schema.Array(RsvpStatus).pipe(Schema.minItems(1, { message: () => "must hold at least one RSVP status" })).annotations({
      description: `Every guest whose rsvpStatus is one of these (at most ${MAX_RECIPIENTS} guests)`
    })
  ),
  subject: optional(OneLine.annotations({ description: "The subject; by default \"Invitation: <event name>\"" })),
  message: optional(Text(5000).annotations({ description: "The organizer's own words, shown first (plain text; blank lines make paragraphs)" }))
}).pipe(
  Schema.filter((body) =>
    (body.personIds === undefined) === (body.statuses === undefined)
      ? { path: [body.personIds === undefined ? "personIds" : "statuses"], message: "give exactly one of personIds or statuses" }
      : undefined
  )
).annotations({
  identifier: "SendInvitations",
  examples: [
    { personIds: ["5b1f2a4e-3c2d-4e5f-8a9b-0c1d2e3f4a5b"], subject: "Join us for the Summer Gala", message: "We would love to see you there." },
    { statuses: ["Invited", "Maybe"] }
  ]
})
export type SendInvitations = typeof SendInvitations.Type

export const InvitationsQueued = Schema.Struct({
  queued: Schema.Int.annotations({ description: "Emails queued: one per targeted guest, but for those skipped" }),
  skipped: Schema.Int.annotations({
    description: `Targeted guests who got no email: each already got an invitation to this event in the last ${REINVITE_WINDOW_MINUTES} minutes`
  })
}).annotations({ identifier: "InvitationsQueued", examples: [{ queued: 42, skipped: 0 }, { queued: 40, skipped: 2 }] })

export const InvitationStatus = Schema.Literal("queued", "sent", "failed")

export const Invitation = Schema.Struct({
  invitationId: Schema.String,
  personId: Schema.String,
  name: Schema.String.annotations({ description: "The guest's name" }),
  email: Schema.String.annotations({ description: "Where the email went: the guest's email when it was queued" }),
  subject: Schema.String,
  status: InvitationStatus.annotations({
    description: "queued: not sent yet (waiting, or retried after a temporary failure); sent: the SMTP server accepted it; " +
      "failed: refused for good (a 5xx) or every attempt failed"
  }),
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String).annotations({ description: "What the last failed attempt met (the SMTP server's reply, a timeout)" }),
  sentAt: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  nextAttemptAt: Schema.NullOr(Schema.String).annotations({ description: "When a queued email is tried next" })
}).annotations({ identifier: "Invitation" })
export type Invitation = typeof Invitation.Type

export const InvitationList = Schema.Struct({
  invitations: Schema.Array(Invitation),
  total: Schema.Int,
  limit: Schema.Int,
  skip: Schema.Int
}).annotations({
  identifier: "InvitationList",
  examples: [{
    invitations: [{
      invitationId: "0e5c9a1f-2b3d-4c5e-8f6a-7b8c9d0e1f2a",
      personId: "5b1f2a4e-3c2d-4e5f-8a9b-0c1d2e3f4a5b",
      name: "Ada Lovelace",
      email: "ada@example.com",
      subject: "Invitation: Summer Gala",
      status: "sent",
      attempts: 1,
      lastError: null,
      sentAt: "2030-05-02T09:00:01.000Z",
      createdAt: "2030-05-02T09:00:00.000Z",
      nextAttemptAt: null
    }],
    total: 1,
    limit: 50,
    skip: 0
  }]
})
