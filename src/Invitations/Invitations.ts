/**
 * Invitations by email (docs/integrators.md#email-invitations). Sending chooses the guests (named ones, or every guest with
 * given RSVP statuses), gives each an RSVP link if they have none, renders one email per guest
 * (plain text, HTML and the event's calendar file, METHOD:PUBLISH) and queues them all in one
 * transaction through the outbox, which sends them like webhook deliveries: at least once,
 * retried, surviving restarts. The dashboard's preview renders the same email for one guest.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Calendars } from "../Calendar/Calendars.js"
import { eventCalendar } from "../Calendar/Ics.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { EmailNotConfigured } from "../Email/EmailNotConfigured.js"
import { EmailOutbox } from "../Email/EmailOutbox.js"
import { EmailQuota } from "../Email/EmailQuota.js"
import { type InvitationInput, type RenderedEmail, renderInvitation } from "./InvitationEmail.js"
import { Mailer } from "../Email/Mailer.js"
import { Events } from "../Events/Events.js"
import type { EventRow } from "../Events/EventRow.js"
import { GuestLists } from "../Guests/GuestLists.js"
import { GuestReads } from "../Guests/GuestReads.js"
import { Conflict, InvalidRequest } from "../Domain/Errors.js"
import { Organizations } from "../Organizations/Organizations.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { type Invitation, MAX_RECIPIENTS, REINVITE_WINDOW_MINUTES, type SendInvitations } from "./Domain.js"
import { type InvitationRow, EventInvitationsRepo, type RecipientRow } from "./InvitationsRepo.js"
import { orDieOnStorage } from "../Db/SqlErrors.js"

/** Who gets invitations: named guests, or every guest with one of some RSVP statuses. */
export type Audience =
  | { readonly personIds: ReadonlyArray<string>; readonly statuses?: undefined }
  | { readonly statuses: ReadonlyArray<string>; readonly personIds?: undefined }

export interface Composition {
  readonly subject?: string | undefined
  readonly message?: string | undefined
}

export const CALENDAR_ATTACHMENT = { filename: "invitation.ics", contentType: "text/calendar; charset=utf-8; method=PUBLISH" } as const

const REINVITE_WINDOW_MILLIS = REINVITE_WINDOW_MINUTES * 60_000

const statusOf = (delivery: string): Invitation["status"] =>
  delivery === "delivered" ? "sent" : delivery === "pending" ? "queued" : "failed"

const invitationView = (row: InvitationRow): Invitation => ({
  invitationId: row.public_id,
  personId: row.person_public_id,
  name: `${row.first_name} ${row.last_name}`.trim(),
  email: row.recipient,
  subject: row.subject,
  status: statusOf(row.status),
  attempts: row.attempts,
  lastError: row.last_error,
  sentAt: row.delivered_at,
  createdAt: row.created_at,
  nextAttemptAt: row.status === "pending" && row.next_attempt_at !== null ? new Date(row.next_attempt_at).toISOString() : null
})

export class EventInvitations extends Effect.Service<EventInvitations>()("Convene/EventInvitations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* EventInvitationsRepo
    const events = yield* Events
    const guestLists = yield* GuestLists
    const guests = yield* GuestReads
    const emails = yield* EmailOutbox
    const emailQuota = yield* EmailQuota
    const mailer = yield* Mailer
    const organizations = yield* Organizations
    const calendars = yield* Calendars
    const origin = yield* PublicOrigin
    const ids = yield* Ids

    const organizerOf = (caller: Caller) =>
      Effect.map(organizations.find(caller.organizationSlug), Option.match({ onNone: () => caller.organizationSlug, onSome: (o) => o.name }))

    /** The targeted guests, each once, in list order; a named person not on the list is a 400 at its item. */
    const recipientsOf = (caller: Caller, event: EventRow, audience: Audience) =>
      Effect.gen(function*() {
        if (audience.personIds !== undefined) {
          const rows = yield* repo.guestsByPersonIds(event.id, caller.organizationId, audience.personIds)
          const found = new Set(rows.map((r) => r.public_id))
          const missing = audience.personIds.findIndex((id) => !found.has(id))
          if (missing !== -1) return yield* InvalidRequest.at(`personIds.${missing}`, "is not on the guest list of this event")
          return rows
        }
        const rows = yield* repo.guestsByStatuses(event.id, audience.statuses, MAX_RECIPIENTS + 1)
        if (rows.length > MAX_RECIPIENTS) {
          return yield* InvalidRequest.at(
            "statuses",
            `match more than ${MAX_RECIPIENTS.toLocaleString("en-US")} guests: send in parts, by personIds or fewer statuses`
          )
        }
        return rows
      })

    /** One guest's email: the text and HTML parts, and the calendar file linking to their RSVP page. */
    const compose = (event: EventRow, organizer: string, guest: RecipientRow, rsvpLink: string, composition: Composition) => {
      const input: InvitationInput = {
        event,
        organizer,
        guest: { firstName: guest.first_name, lastName: guest.last_name },
        rsvpLink,
        subject: composition.subject,
        message: composition.message
      }
      const rendered = renderInvitation(input)
      const calendar = eventCalendar({
        event,
        uidHost: calendars.uidHost,
        url: rsvpLink,
        method: "PUBLISH",
        organizerName: organizer,
        organizerEmail: Option.getOrUndefined(Option.map(mailer.settings, (s) => s.fromAddress))
      })
      return { input, rendered, calendar }
    }

    /** Refusals that hold whatever the guests: no email set up, no public page to link to. */
    const sendable = (event: EventRow) =>
      !mailer.configured
        ? Effect.fail(EmailNotConfigured.standard())
        : event.slug === null
        ? Effect.fail(
          new Conflict({
            message: "The event has no public page (primarySlug is null), so invitations would have no RSVP link: give it a primarySlug first"
          })
        )
        : Effect.succeed(event.slug)

    /** The guests (person row ids) invited to the event within the last ten minutes: they get no email now. */
    const recentlyInvited = (event: EventRow) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        repo.invitedSince(event.id, new Date(now - REINVITE_WINDOW_MILLIS).toISOString()))

    const send = Effect.fn("Invitations.send")(function*(caller: Caller, eventId: string, input: SendInvitations) {
      const event = yield* events.find(caller, eventId)
      const organizer = yield* organizerOf(caller)
      const audience: Audience = input.personIds !== undefined ? { personIds: input.personIds } : { statuses: input.statuses! }
      return yield* Effect.gen(function*() {
        const recipients = yield* recipientsOf(caller, event, audience)
        const slug = yield* sendable(event)
        // read in the write transaction, as the quota is: two requests at once cannot both invite a guest
        const recent = yield* recentlyInvited(event)
        const due = recipients.filter((guest) => !recent.has(guest.person_id))
        const at = yield* nowIso
        // the quota first (429, nothing written), then the guests' links and their emails
        yield* emails.batch(caller.organizationId, due.length, (enqueue) =>
          Effect.gen(function*() {
            const tokens = yield* guestLists.ensureInviteTokens(caller.organizationId, event, due)
            for (const guest of due) {
              const rsvpLink = origin.rsvpLink(slug, tokens.get(guest.gid)!)!
              const { calendar, rendered } = compose(event, organizer, guest, rsvpLink, input)
              const deliveryId = yield* enqueue({
                to: guest.email,
                ...rendered,
                attachments: [{ ...CALENDAR_ATTACHMENT, content: calendar }]
              })
              yield* repo.insert({
                publicId: yield* ids.uuid,
                organizationId: caller.organizationId,
                eventId: event.id,
                personId: guest.person_id,
                deliveryId,
                at
              })
            }
          }))
        return { queued: due.length, skipped: recipients.length - due.length }
      }).pipe(sql.withTransaction, orDieOnStorage)
    })

    /**
     * What sending would do, without writing anything: how many guests it reaches (and how many of
     * them would be skipped, invited in the last ten minutes), and the email the first of them not
     * skipped would get (their RSVP link as it is, or as it will look once created).
     */
    const preview = Effect.fn("Invitations.preview")(function*(caller: Caller, eventId: string, audience: Audience, composition: Composition) {
      const event = yield* events.find(caller, eventId)
      const organizer = yield* organizerOf(caller)
      const recipients = yield* recipientsOf(caller, event, audience).pipe(orDieOnStorage)
      const recent = yield* recentlyInvited(event).pipe(Effect.orDie)
      const skipped = recipients.filter((guest) => recent.has(guest.person_id)).length
      // the email of the first guest who would get one (of the first guest, when all would be skipped)
      const first = recipients.find((guest) => !recent.has(guest.person_id)) ?? recipients[0]
      if (first === undefined || event.slug === null) return { recipients, skipped, sample: undefined }
      const token = (yield* guests.inviteTokens([first.gid]).pipe(Effect.orDie)).get(first.gid)
      const rsvpLink = origin.rsvpLink(event.slug, token ?? "(their personal link, made when sent)")!
      const { calendar, input, rendered } = compose(event, organizer, first, rsvpLink, composition)
      const sample: RenderedEmail & { readonly to: string; readonly calendar: string; readonly input: InvitationInput } = {
        ...rendered,
        to: first.email,
        calendar,
        input
      }
      return { recipients, skipped, sample }
    })

    const list = Effect.fn("Invitations.list")(function*(caller: Caller, eventId: string, params: {
      readonly limit?: number | undefined
      readonly skip?: number | undefined
    }) {
      const event = yield* events.find(caller, eventId)
      const limit = params.limit ?? 50
      const skip = params.skip ?? 0
      const [rows, states] = yield* Effect.all([repo.list(event.id, limit, skip), repo.countByState(event.id)]).pipe(Effect.orDie)
      const total = states.reduce((sum, s) => sum + s.n, 0)
      return { invitations: rows.map(invitationView), total, limit, skip }
    })

    /** An event's invitations by state, and its guests by RSVP status (the dashboard's choices). */
    const overview = Effect.fn("Invitations.overview")(function*(caller: Caller, eventId: string) {
      const event = yield* events.find(caller, eventId)
      const [states, statuses] = yield* Effect.all([repo.countByState(event.id), repo.countByStatus(event.id)]).pipe(Effect.orDie)
      const byState = { queued: 0, sent: 0, failed: 0 }
      for (const s of states) byState[statusOf(s.status)] += s.n
      return { event, byState, guestsByStatus: new Map(statuses.map((s) => [s.rsvp_status, s.n])) }
    })

    return {
      /** Whether SMTP_URL and MAIL_FROM are set: without them, sending answers 409 `email_not_configured`. */
      configured: mailer.configured,
      /** `MAIL_FROM` as configured: who the emails come from. */
      sender: Option.map(mailer.settings, (s) => s.from),
      send,
      preview,
      /** The organization's daily email quota as it stands (the dashboard shows what is left). */
      quota: (caller: Caller) => emailQuota.state(caller.organizationId).pipe(Effect.orDie),
      list,
      overview
    } as const
  }),
  dependencies: [
    EventInvitationsRepo.Default,
    Events.Default,
    GuestLists.Default,
    GuestReads.Default,
    EmailOutbox.Default,
    EmailQuota.Default,
    Mailer.Default,
    Organizations.Default,
    Calendars.Default,
    PublicOrigin.Default,
    Ids.Default
  ]
}) {}
