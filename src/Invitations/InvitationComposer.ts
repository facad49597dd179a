/**
 * What an invitation is, before it is sent or previewed (Invitations.ts): who gets one (the
 * targeted guests, less those invited in the last ten minutes), what refuses sending whatever the
 * guests, and each guest's email: plain text, HTML and the event's calendar file (METHOD:PUBLISH)
 * linking to their RSVP page.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Calendars } from "../Calendar/Calendars.js"
import { eventCalendar } from "../Calendar/Ics.js"
import type { Caller } from "../Domain/Caller.js"
import { Conflict, InvalidRequest } from "../Domain/Errors.js"
import { EmailNotConfigured } from "../Email/EmailNotConfigured.js"
import { Mailer } from "../Email/Mailer.js"
import type { EventRow } from "../Events/EventRow.js"
import { Organizations } from "../Organizations/Organizations.js"
import { MAX_RECIPIENTS, REINVITE_WINDOW_MINUTES } from "./Domain.js"
import { type InvitationInput, renderInvitation } from "./InvitationEmail.js"
import { EventInvitationsRepo, type RecipientRow } from "./InvitationsRepo.js"

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

export class InvitationComposer extends Effect.Service<InvitationComposer>()("Convene/InvitationComposer", {
  effect: Effect.gen(function*() {
    const repo = yield* EventInvitationsRepo
    const mailer = yield* Mailer
    const organizations = yield* Organizations
    const calendars = yield* Calendars

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

    /** Refusals that hold whatever the guests: no email set up, no page address to link to. */
    const sendable = (event: EventRow) =>
      !mailer.configured
        ? Effect.fail(EmailNotConfigured.standard())
        : event.slug === null
        ? Effect.fail(
          new Conflict({
            message: "The event has no page address (primarySlug is null), so invitations would have no RSVP link: give it a primarySlug first"
          })
        )
        : Effect.succeed(event.slug)

    /** The guests (person row ids) invited to the event within the last ten minutes: they get no email now. */
    const recentlyInvited = (event: EventRow) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        repo.invitedSince(event.id, new Date(now - REINVITE_WINDOW_MILLIS).toISOString()))

    return { organizerOf, recipientsOf, compose, sendable, recentlyInvited } as const
  }),
  dependencies: [EventInvitationsRepo.Default, Mailer.Default, Organizations.Default, Calendars.Default]
}) {}
