/**
 * Status emails (CONTRACT §17): a guest is told by email when approval (`Pending` to `Accepted`
 * or `Waitlisted`), a declined approval (`Pending` to `Declined`) or a waitlist promotion
 * (`Waitlisted` to `Accepted` by `system`, §16) changes their status, by whatever path (the
 * dashboard, `PUT /event/:id/guestlist`, a place freed). The guest lists decide who is told and
 * gather what the email shows (their RSVP link, made if missing, and their ticket when
 * `Accepted`); composing and queueing the email is a higher feature's: this port, answered by
 * `Invitations/StatusEmails.ts` and provided by src/Server.ts (ARCHITECTURE.md, "ports").
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { EventRow } from "../Events/EventRow.js"

/** What a status email tells: approved (to `Accepted` or `Waitlisted`), declined, or promoted from the waitlist. */
export type StatusNews =
  | { readonly kind: "approved"; readonly rsvpStatus: "Accepted" | "Waitlisted" }
  | { readonly kind: "declined"; readonly rsvpStatus: "Declined" }
  | { readonly kind: "promoted"; readonly rsvpStatus: "Accepted" }

/** The news a status change by a member or a token is, if the guest is told of it: only a decision on a `Pending` guest. */
export const newsOf = (previousStatus: string, rsvpStatus: string): StatusNews | undefined => {
  if (previousStatus !== "Pending") return undefined
  if (rsvpStatus === "Accepted" || rsvpStatus === "Waitlisted") return { kind: "approved", rsvpStatus }
  if (rsvpStatus === "Declined") return { kind: "declined", rsvpStatus }
  return undefined
}

/** One guest's status email, as the guest lists gather it. */
export interface StatusMailGuest {
  readonly news: StatusNews
  readonly email: string
  readonly firstName: string
  readonly lastName: string
  /** Their personal RSVP link (none when the event has no RSVP page: `primarySlug` null). */
  readonly rsvpLink: string | null
  /** Their ticket's code, when `Accepted`. */
  readonly ticketCode: string | null
}

export class StatusMailer extends Context.Tag("Convene/StatusMailer")<StatusMailer, {
  /** Whether email is configured: without it nothing is gathered or sent. */
  readonly configured: boolean
  /** Queues the guests' emails in the caller's transaction (past the organization's daily quota: none, nothing fails). */
  readonly send: (event: EventRow, guests: ReadonlyArray<StatusMailGuest>) => Effect.Effect<void, SqlError>
}>() {}
