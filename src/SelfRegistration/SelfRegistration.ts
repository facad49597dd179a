/**
 * An event's public page and self-registration (CONTRACT §16; docs/integrators.md#public-event-pages).
 *
 * `page` reads what the public page shows in a fixed number of statements whatever the guest list's
 * size: the event by its slug (public ones only), its organization's name, and, with capacity, the
 * `Accepted` guests counted up to the capacity on the guests' status index (Guests/WaitlistRepo.ts
 * `acceptedUpTo`).
 *
 * `register` signs a person up, in one write transaction: the event read again and its registration
 * checked open; the guest added through the guest lists' own `add` (the same as
 * `POST /event/:id/guestlist`: the person matched by email in the event's organization or created,
 * never changed; the `GuestList` notification; the change feed), given the registration
 * (Guests/Registration.ts: the guest's own history entry, `Pending`, `Accepted` while places remain,
 * else `Waitlisted`, counted in that transaction, so capacity holds under concurrent registrations
 * on both engines, whose writes are serialized); a person already on the list is left as they are.
 * With email configured, the registrant's email is queued through the outbox in the same
 * transaction, within the organization's daily quota (past it, no email: the registration stands).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Calendars } from "../Calendar/Calendars.js"
import { eventCalendar } from "../Calendar/Ics.js"
import type { Caller } from "../Domain/Caller.js"
import { Conflict } from "../Domain/Errors.js"
import { nowIso } from "../Domain/Time.js"
import { EmailOutbox } from "../Email/EmailOutbox.js"
import { type EmailAttachment, Mailer } from "../Email/Mailer.js"
import { rsvpQuestionsOf } from "../Events/EventJson.js"
import type { EventRow } from "../Events/EventRow.js"
import { Events } from "../Events/Events.js"
import type { QuestionResponse, RsvpStatus } from "../Guests/Domain.js"
import { GuestLists } from "../Guests/GuestLists.js"
import { GuestReads } from "../Guests/GuestReads.js"
import { formatCode, Tickets } from "../Guests/Tickets.js"
import { GuestMail } from "../Invitations/GuestMail.js"
import { CALENDAR_ATTACHMENT } from "../Invitations/InvitationComposer.js"
import { Organizations } from "../Organizations/Organizations.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { renderConfirmation } from "./ConfirmationEmail.js"
import { LINK_RESEND_WINDOW_MINUTES, placesLeft, type RegistrationInput, registrationOpen } from "./Domain.js"

/** An event as its public page shows it. */
export interface PublicEvent {
  readonly event: EventRow
  /** The organization's name. */
  readonly organizer: string
  /** Places left with capacity enabled; undefined without. */
  readonly placesLeft: number | undefined
  /** Whether the page takes registrations now. */
  readonly open: boolean
}

/** What a registration did, as the answer page may tell it (never whether the address was known, with email on). */
export type Registered =
  | { readonly _tag: "Added"; readonly status: RsvpStatus; readonly rsvpLink: string; readonly emailed: boolean }
  | { readonly _tag: "AlreadyOnList"; readonly emailed: boolean }

export const registrationClosed = () => new Conflict({ message: "Registration for this event is closed." })

export class SelfRegistration extends Effect.Service<SelfRegistration>()("Convene/SelfRegistration", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* Events
    const organizations = yield* Organizations
    const guests = yield* GuestReads
    const guestLists = yield* GuestLists
    const tickets = yield* Tickets
    const guestMail = yield* GuestMail
    const emails = yield* EmailOutbox
    const mailer = yield* Mailer
    const calendars = yield* Calendars
    const origin = yield* PublicOrigin

    const page = Effect.fn("SelfRegistration.page")(function*(slug: string) {
      const found = yield* events.publicBySlug(slug)
      if (Option.isNone(found)) return Option.none<PublicEvent>()
      const event = found.value
      const organization = yield* organizations.byId(event.organization_id)
      const capacity = event.capacity_enabled === 1 ? event.capacity : null
      const accepted = capacity === null ? 0 : yield* guests.acceptedUpTo(event.id, capacity).pipe(Effect.orDie)
      return Option.some<PublicEvent>({
        event,
        organizer: Option.match(organization, { onNone: () => "", onSome: (o) => o.name }),
        placesLeft: placesLeft(event, accepted),
        open: registrationOpen(event, yield* Clock.currentTimeMillis)
      })
    })

    /** The registrant's email, queued in the registration's transaction; `RateLimited` when the daily quota is spent. */
    const email = (event: EventRow, organizer: string, organizationId: Caller["organizationId"], content: {
      readonly to: string
      readonly guest: { readonly firstName: string; readonly lastName: string }
      readonly status: RsvpStatus
      readonly rsvpLink: string
      readonly ticketCode: string | undefined
      readonly again: boolean
    }) =>
      emails.batch(organizationId, 1, (enqueue) => Effect.gen(function*() {
        const ticket = content.ticketCode === undefined ? undefined : formatCode(content.ticketCode)
        const rendered = renderConfirmation({ event, organizer, ...content, ticket })
        const calendar = eventCalendar({
          event,
          uidHost: calendars.uidHost,
          url: content.rsvpLink,
          method: "PUBLISH",
          organizerName: organizer,
          organizerEmail: Option.getOrUndefined(Option.map(mailer.settings, (s) => s.fromAddress))
        })
        const attachments: Array<EmailAttachment> = [{ ...CALENDAR_ATTACHMENT, content: calendar }]
        // the ticket's QR code, shown inline, as in the status emails and reminders
        if (content.ticketCode !== undefined) attachments.push(yield* guestMail.ticketImage(event, content.ticketCode))
        return yield* enqueue({ to: content.to, replyTo: event.reply_to, ...rendered, attachments })
      }))

    /**
     * Registers a person on the public event `slug`: none when there is no such page, `Conflict`
     * when registration is closed.
     */
    const register = Effect.fn("SelfRegistration.register")(function*(slug: string, input: RegistrationInput) {
      return yield* Effect.gen(function*() {
        const found = yield* page(slug)
        if (Option.isNone(found)) return Option.none<Registered>()
        const { event, open, organizer } = found.value
        if (!open) return yield* registrationClosed()
        const organization = Option.getOrThrow(yield* organizations.byId(event.organization_id))
        // the guest list's own caller for the event's organization: its history entries are the guest's own (Guests/Registration.ts)
        const caller: Caller = {
          organizationId: event.organization_id,
          organizationSlug: organization.slug,
          role: "Admin",
          actor: { type: "apiKey", id: "public-page" },
          userId: Option.none(),
          callerKey: "public-page"
        }
        const questions = rsvpQuestionsOf(event)
        const responses: Array<QuestionResponse> = questions.flatMap((q, i) => {
          const text = (input.answers[i] ?? "").trim()
          return text === "" ? [] : [{ title: q.title, description: q.description, answers: [text] }]
        })
        const change = yield* guestLists.add(caller, event.public_id, [
          { firstName: input.firstName, lastName: input.lastName, email: input.email }
        ], { asks: event.registration_approval === 1 ? "Pending" : "Accepted", responses, dietaryRestrictions: input.dietaryRestrictions })
        const row = change.rows[0]!
        const guest = change.guests[0]!
        const added = change.affected.length > 0
        const tokens = yield* guestLists.ensureInviteTokens(event.organization_id, event, [{ gid: row.gid, public_id: guest.personId }])
        const rsvpLink = origin.rsvpLink(event.slug, tokens.get(row.gid)!)!
        const status = guest.rsvpStatus as RsvpStatus
        // a new guest always; an address already on the list at most once an hour; past the daily
        // quota, no email, and the claim of this hour's email is undone with it (the inner transaction)
        const emailed = !mailer.configured ? false : yield* Effect.gen(function*() {
          const at = yield* nowIso
          const since = new Date(Date.parse(at) - LINK_RESEND_WINDOW_MINUTES * 60_000).toISOString()
          if (!(yield* guestLists.claimLinkEmail(row.gid, at, since)) && !added) return false
          const ticketCode = status === "Accepted" ? yield* tickets.issue(row.gid) : undefined
          yield* email(event, organizer, event.organization_id, {
            to: guest.email ?? input.email,
            guest: { firstName: guest.firstName, lastName: guest.lastName },
            status,
            rsvpLink,
            ticketCode,
            again: !added
          })
          return true
        }).pipe(sql.withTransaction, Effect.catchTag("RateLimited", () => Effect.succeed(false)))
        return Option.some<Registered>(added ? { _tag: "Added", status, rsvpLink, emailed } : { _tag: "AlreadyOnList", emailed })
      }).pipe(
        sql.withTransaction,
        Effect.catchTags({ SqlError: Effect.die, InvalidRequest: Effect.die, NotFound: Effect.die })
      )
    })

    return {
      page,
      register,
      /** Whether email is configured: the answer page then says "check your email" to everyone. */
      emailConfigured: mailer.configured
    } as const
  }),
  dependencies: [
    Events.Default,
    Organizations.Default,
    GuestReads.Default,
    GuestLists.Default,
    Tickets.Default,
    EmailOutbox.Default,
    GuestMail.Default,
    Mailer.Default,
    Calendars.Default,
    PublicOrigin.Default
  ]
}) {}
