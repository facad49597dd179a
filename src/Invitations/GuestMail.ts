/**
 * Queueing the emails that tell guests about their place (status emails, reminders): each guest's
 * email rendered (GuestEmail.tsx) with the event's calendar file and, when they have a place, their
 * ticket's QR code as an inline image; the event's `replyTo` as the Reply-To; queued through the
 * outbox in the caller's transaction and counted in the organization's daily quota (CONTRACT §18).
 * These are system emails: past the quota they are not sent and nothing fails (`queue` answers
 * false, and a warning is logged).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "@effect/sql/SqlClient"
import * as QRCode from "qrcode"
import { Calendars } from "../Calendar/Calendars.js"
import { eventCalendar } from "../Calendar/Ics.js"
import { DirectSql } from "../Db/DirectSql.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { EmailOutbox } from "../Email/EmailOutbox.js"
import type { EmailAttachment, OutgoingEmail } from "../Email/Mailer.js"
import { Mailer } from "../Email/Mailer.js"
import type { EventRow } from "../Events/EventRow.js"
import { doorAddress, formatCode } from "../Guests/Tickets.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { type GuestEmailInput, renderGuestEmail, TICKET_CID } from "./GuestEmail.js"

export const EVENT_ATTACHMENT = { filename: "event.ics", contentType: "text/calendar; charset=utf-8; method=PUBLISH" } as const

/** One guest's email before rendering: the template's input, with the ticket's raw code. */
export type GuestEmailOf = Omit<GuestEmailInput, "organizer" | "ticket"> & { readonly to: string; readonly ticketCode: string | null }

const OrganizerRow = Schema.Struct({ name: Schema.String })

export class GuestMail extends Effect.Service<GuestMail>()("Convene/GuestMail", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const outbox = yield* EmailOutbox
    const mailer = yield* Mailer
    const calendars = yield* Calendars
    const origin = yield* PublicOrigin
    const organizerEmail = Option.getOrUndefined(Option.map(mailer.settings, (s) => s.fromAddress))

    /** The organization's name, as the emails sign. */
    const organizerOf = (organizationId: OrganizationRowId) =>
      Effect.map(direct.first(OrganizerRow, sql`SELECT name FROM organizations WHERE id = ${organizationId}`), (row) => row?.name ?? "")

    /** The QR code of a ticket (its door address, as the RSVP page draws it) as a PNG attachment shown inline. */
    const ticketImage = (event: EventRow, code: string) =>
      Effect.map(
        Effect.promise(() => QRCode.toBuffer(doorAddress(origin.url, event.public_id, code), { type: "png", errorCorrectionLevel: "M", width: 360, margin: 4 })),
        (png): EmailAttachment => ({ filename: "ticket.png", contentType: "image/png", content: png.toString("base64"), encoding: "base64", cid: TICKET_CID })
      )

    /** One guest's email as the outbox keeps it. */
    const compose = (event: EventRow, organizer: string, email: GuestEmailOf) =>
      Effect.gen(function*() {
        const ticket = email.ticketCode === null ? null : formatCode(email.ticketCode)
        const rendered = renderGuestEmail({ ...email, organizer, ticket })
        const calendar = eventCalendar({
          event,
          uidHost: calendars.uidHost,
          url: email.rsvpLink ?? undefined,
          method: "PUBLISH",
          organizerName: organizer,
          organizerEmail
        })
        const attachments: Array<EmailAttachment> = [{ ...EVENT_ATTACHMENT, content: calendar }]
        if (email.ticketCode !== null) attachments.push(yield* ticketImage(event, email.ticketCode))
        return { to: email.to, replyTo: event.reply_to, ...rendered, attachments } satisfies Omit<OutgoingEmail, "messageId">
      })

    /**
     * Queues the emails of one event's guests in the caller's transaction. Past the quota nothing
     * is queued: answers false.
     */
    const queue = (event: EventRow, emails: ReadonlyArray<GuestEmailOf>) =>
      Effect.gen(function*() {
        if (!mailer.configured || emails.length === 0) return true
        const organizer = yield* organizerOf(event.organization_id)
        return yield* outbox.batch(event.organization_id, emails.length, (enqueue) =>
          Effect.forEach(emails, (email) => Effect.flatMap(compose(event, organizer, email), enqueue), { discard: true })).pipe(
            Effect.as(true),
            Effect.catchTag("RateLimited", () =>
              Effect.as(Effect.logWarning(`emails to ${emails.length} guests of event ${event.public_id} not sent: the organization's daily email quota is reached`), false))
          )
      })

    return { configured: mailer.configured, compose, queue, ticketImage } as const
  }),
  dependencies: [EmailOutbox.Default, Mailer.Default, Calendars.Default, PublicOrigin.Default]
}) {}
