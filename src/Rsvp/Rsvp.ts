/**
 * The guest's side of an invite (the page behind every `rsvpLink`). The invite token is the only
 * credential and opens exactly one guest's answer: the guest sees the event and their own answer,
 * and answering updates the guest as the REST API shows it, with a history entry by the guest
 * (`eventPerson`) and the `EventPerson` notification, in one transaction. A guest who answered yes
 * holds a ticket for the door (docs/integrators.md#calendar-files-and-tickets), made with the answer (or, for a guest set to
 * `Accepted` by the organizers, when the page is first shown) and the same ever after. A guest who
 * gives up their place ("No, I can't make it") hands it to the waitlist in the same transaction
 * (Guests/WaitlistPromotion.ts). A registration awaiting approval (`Pending`) stays so whatever the
 * guest answers but "no": only the host's approval gives it a place.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Changes } from "../Changes/Changes.js"
import { guestChange } from "../Changes/Domain.js"
import type { Conflict } from "../Domain/Errors.js"
import { nowIso } from "../Domain/Time.js"
import { rsvpQuestionsOf } from "../Events/EventJson.js"
import type { EventRow } from "../Events/EventRow.js"
import { Events } from "../Events/Events.js"
import type { Guest, QuestionResponse, RsvpStatus } from "../Guests/Domain.js"
import { type GuestListChange, statusChange } from "../Guests/Changes.js"
import { GuestLists } from "../Guests/GuestLists.js"
import { GuestNotifications } from "../Guests/GuestNotifications.js"
import { type GuestRow, GuestReads } from "../Guests/GuestReads.js"
import { renderGuests } from "../Guests/GuestView.js"
import { Tickets } from "../Guests/Tickets.js"
import { freesPlace } from "../Guests/Waitlist.js"
import { WaitlistPromotion } from "../Guests/WaitlistPromotion.js"
import { PersonWrites } from "../Persons/PersonWrites.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"

export interface Invitation {
  readonly event: EventRow
  readonly guest: Guest
  readonly row: GuestRow
  /** Accepting now would go past the capacity (the guest does not hold a place yet). */
  readonly full: boolean
  /** The guest's ticket code, while they are `Accepted` (they answered yes). */
  readonly ticket: string | undefined
}

export interface Answer {
  readonly rsvpStatus: "Accepted" | "Declined" | "Maybe"
  /** One answer per RSVP question of the event, by position; empty when not answered. */
  readonly answers: ReadonlyArray<string>
  readonly dietaryRestrictions: ReadonlyArray<string>
  readonly note: string
  /** The guest's choice about texts to their phone; undefined when the form had no such field. */
  readonly smsConsent: boolean | undefined
}

export interface Answered {
  readonly rsvpStatus: RsvpStatus
  /** The guest asked to come but the event was full: they are on the waitlist. */
  readonly waitlisted: boolean
}

export class Rsvp extends Effect.Service<Rsvp>()("Convene/Rsvp", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const guests = yield* GuestReads
    const guestLists = yield* GuestLists
    const events = yield* Events
    const personWrites = yield* PersonWrites
    const origin = yield* PublicOrigin
    const notifications = yield* GuestNotifications
    const tickets = yield* Tickets
    const changeFeed = yield* Changes
    const waitlist = yield* WaitlistPromotion

    const load = (slug: string, token: string) =>
      Effect.gen(function*() {
        const found = yield* guests.byInvite(slug, token)
        if (found === undefined) return Option.none()
        const event = Option.getOrThrow(yield* events.byRowId(found.eventId))
        const rows = yield* guests.byIds([found.guestId])
        const [guest] = renderGuests(rows, { event, role: "Viewer", rsvpLink: origin.rsvpLink, payments: undefined })
        const row = rows[0]!
        const others = yield* guests.acceptedOthers(event.id, row.gid)
        const full = event.capacity_enabled === 1 && event.capacity !== null && row.rsvp_status !== "Accepted" &&
          others >= event.capacity
        const ticket = row.rsvp_status === "Accepted" ? yield* tickets.issue(row.gid) : undefined
        return Option.some<Invitation & { readonly rows: typeof rows }>({ event, guest: guest!, row, full, ticket, rows })
      })

    const view = (slug: string, token: string): Effect.Effect<Option.Option<Invitation>> =>
      load(slug, token).pipe(Effect.orDie)

    /** Fails with `Conflict` when the guest's RSVP history is full (Guests/Domain.ts `MAX_HISTORY_ENTRIES`): nothing is saved. */
    const answer = (slug: string, token: string, input: Answer): Effect.Effect<Option.Option<Answered>, Conflict> =>
      Effect.gen(function*() {
        const at = yield* nowIso
        return yield* Effect.gen(function*() {
          const current = yield* load(slug, token)
          if (Option.isNone(current)) return Option.none()
          const { event, full, guest, row } = current.value
          // a registration awaiting approval stays so: only the host's approval gives a place (the guest may still withdraw)
          const awaiting = row.rsvp_status === "Pending" && input.rsvpStatus !== "Declined"
          const waitlisted = !awaiting && input.rsvpStatus === "Accepted" && full
          const rsvpStatus: RsvpStatus = awaiting ? "Pending" : waitlisted ? "Waitlisted" : input.rsvpStatus
          const questions = rsvpQuestionsOf(event)
          const responses: Array<QuestionResponse> = questions.flatMap((q, i) => {
            const text = (input.answers[i] ?? "").trim()
            return text === "" ? [] : [{ title: q.title, description: q.description, answers: [text] }]
          })
          yield* guestLists.recordAnswer(row.gid, guest.personId, guest.rsvpStatusHistory.length, {
            rsvpStatus,
            responses,
            dietaryRestrictions: input.dietaryRestrictions,
            note: input.note
          }, at)
          if (row.phone !== null && input.smsConsent !== undefined) {
            const consent = input.smsConsent ? "optedIn" : row.consent === "optedIn" ? "optedOut" : (row.consent ?? "none")
            if (consent !== (row.consent ?? "none")) {
              yield* personWrites.setSmsConsent({ organizationId: event.organization_id, number: row.phone, consent, source: "rsvpPage", at })
            }
          }
          const after = Option.getOrThrow(yield* load(slug, token))
          const change: GuestListChange = {
            event,
            guests: [after.guest],
            rows: after.rows,
            at,
            affected: [row.gid],
            added: 0,
            updated: 1,
            removed: 0,
            statusChanges: statusChange(row.gid, row, { rsvp_status: rsvpStatus, attendance_status: row.attendance_status })
          }
          yield* notifications.statusesChanged(event.organization_id, change)
          yield* changeFeed.record(event.organization_id, [guestChange("updated", guest.personId, event.public_id)])
          yield* waitlist.afterWrite(event, freesPlace(row.rsvp_status, rsvpStatus), at)
          return Option.some({ rsvpStatus, waitlisted })
        }).pipe(sql.withTransaction)
      }).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))

    return { view, answer } as const
  }),
  dependencies: [
    GuestReads.Default,
    GuestLists.Default,
    Events.Default,
    PersonWrites.Default,
    PublicOrigin.Default,
    GuestNotifications.Default,
    Tickets.Default,
    Changes.Default,
    WaitlistPromotion.Default
  ]
}) {}
