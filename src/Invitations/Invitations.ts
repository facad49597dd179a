/**
 * Invitations by email (docs/integrators.md#email-invitations). Sending chooses the guests (named ones, or every guest with
 * given RSVP statuses), gives each an RSVP link if they have none, renders one email per guest
 * (plain text, HTML and the event's calendar file, METHOD:PUBLISH) and queues them all in one
 * transaction through the outbox, which sends them like webhook deliveries: at least once,
 * retried, surviving restarts. The dashboard's preview renders the same email for one guest. Who
 * gets what is InvitationComposer.ts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { EmailOutbox } from "../Email/EmailOutbox.js"
import { EmailQuota } from "../Email/EmailQuota.js"
import { Mailer } from "../Email/Mailer.js"
import { Events } from "../Events/Events.js"
import { GuestLists } from "../Guests/GuestLists.js"
import { GuestReads } from "../Guests/GuestReads.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { orDieOnStorage } from "../Db/SqlErrors.js"
import type { SendInvitations } from "./Domain.js"
import { type Audience, CALENDAR_ATTACHMENT, type Composition, InvitationComposer } from "./InvitationComposer.js"
import type { InvitationInput, RenderedEmail } from "./InvitationEmail.js"
import { EventInvitationsRepo } from "./InvitationsRepo.js"
import { invitationView, statusOf } from "./InvitationView.js"

export type { Audience, Composition } from "./InvitationComposer.js"

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
    const origin = yield* PublicOrigin
    const ids = yield* Ids
    const { compose, organizerOf, recentlyInvited, recipientsOf, sendable } = yield* InvitationComposer

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
                replyTo: event.reply_to,
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
    InvitationComposer.Default,
    Events.Default,
    GuestLists.Default,
    GuestReads.Default,
    EmailOutbox.Default,
    EmailQuota.Default,
    Mailer.Default,
    PublicOrigin.Default,
    Ids.Default
  ]
}) {}
