/**
 * The guest lists' side of status emails (StatusMail.ts): from a write's status changes, the
 * guests to tell, each with their RSVP link (made if missing, as invitations make it) and, when
 * `Accepted`, their ticket; handed to the `StatusMailer` port in the write's transaction, so the
 * emails are queued if and only if the change commits. Guests without an email are not told.
 */
import * as Effect from "effect/Effect"
import type { GuestRowId } from "../Domain/RowIds.js"
import type { EventRow } from "../Events/EventRow.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { GuestInvites } from "./GuestInvites.js"
import { GuestsRepo } from "./GuestsRepo.js"
import { type StatusMailGuest, StatusMailer, type StatusNews } from "./StatusMail.js"
import { TicketCodes } from "./TicketCodes.js"

export class GuestStatusEmails extends Effect.Service<GuestStatusEmails>()("Convene/GuestStatusEmails", {
  effect: Effect.gen(function*() {
    const mailer = yield* StatusMailer
    const repo = yield* GuestsRepo
    const invites = yield* GuestInvites
    const tickets = yield* TicketCodes
    const origin = yield* PublicOrigin

    /** Tells each given guest their news (run in the transaction of the write that made it). */
    const tell = (event: EventRow, news: ReadonlyArray<{ readonly guestId: GuestRowId; readonly news: StatusNews }>) =>
      Effect.gen(function*() {
        if (!mailer.configured || news.length === 0) return
        const rows = (yield* repo.byIds(news.map((n) => n.guestId))).filter((row) => row.email.trim() !== "" && row.removed_at === null)
        if (rows.length === 0) return
        const tokens = event.slug === null ? new Map<GuestRowId, string>() : yield* invites.ensureInviteTokens(event.organization_id, event, rows)
        const newsOf = new Map(news.map((n) => [n.guestId, n.news]))
        const guests: Array<StatusMailGuest> = []
        for (const row of rows) {
          const told = newsOf.get(row.gid)!
          guests.push({
            news: told,
            email: row.email,
            firstName: row.first_name,
            lastName: row.last_name,
            rsvpLink: origin.rsvpLink(event.slug, tokens.get(row.gid) ?? null),
            ticketCode: told.rsvpStatus === "Accepted" ? yield* tickets.issue(row.gid) : null
          })
        }
        yield* mailer.send(event, guests)
      })

    return { tell } as const
  }),
  dependencies: [GuestsRepo.Default, GuestInvites.Default, TicketCodes.Default, PublicOrigin.Default]
}) {}
