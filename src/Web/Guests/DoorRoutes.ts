/**
 * Door check-in (docs/integrators.md#calendar-files-and-tickets): the door page, a ticket's code
 * typed, pasted or scanned, one tap per guest, and its undo. A check-in is attendance `Attended`
 * through the API's update (an `EventPerson` notification, no RSVP history); a ticket is checked in
 * by the `Tickets` service, as the API's door endpoint does it.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Events } from "../../Events/Events.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import { formatCode, type TicketLookup, Tickets } from "../../Guests/Tickets.js"
import { summaryOf } from "../Events/Summary.js"
import { fieldsOf, pathParams, readQuery } from "../Kit/Form.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { CheckInPage, type TicketScan } from "./DoorPage.js"
import { DOOR_PAGE_SIZE, doorPath, DoorState } from "./State.js"
import { alreadyIn } from "./Words.js"

/** The most of a ticket field read: a code, or a door address carrying one. */
const MAX_TICKET_INPUT = 300

/** The door's query: its place, a ticket opened from a QR code, the guest of the last write (whose undo the banner offers). */
const DoorQuery = Schema.Struct({ ...DoorState.fields, ticket: Schema.String, last: Schema.String })
const readState = fieldsOf(DoorState)
const readTicket = fieldsOf(Schema.Struct({ ticket: Schema.String }))

/** What a code opened from a QR code says before anyone is checked in. */
const ticketPreview = (found: TicketLookup, opened: string, zone: string): TicketScan => {
  switch (found._tag) {
    case "Invalid":
      return { value: opened, error: "This is not a ticket code: codes have 10 letters and digits, like K7QXM-3M9PD." }
    case "Unknown":
      return { value: formatCode(found.code), error: `Unknown ticket ${formatCode(found.code)}.` }
    case "OtherEvent":
      return { value: formatCode(found.code), error: `This ticket is for ${found.eventName}, not this event.` }
    case "Removed":
      return { value: formatCode(found.code), error: `The guest of ticket ${formatCode(found.code)} is no longer on this event's guest list.` }
    case "Found":
      return found.guest.attendanceStatus === "Attended"
        ? { value: formatCode(found.code), preview: { tone: "error", message: alreadyIn(found.guest.name, found.since, zone) } }
        : {
          value: formatCode(found.code),
          preview: {
            tone: "success",
            message: `Ticket of ${found.guest.name} (RSVP ${found.guest.rsvpStatus}), not checked in yet. Press Check in to let them in.`
          }
        }
  }
}

export const DoorRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const guestLists = yield* GuestLists
    const events = yield* Events
    const tickets = yield* Tickets
    const { site } = web

    /** The door page; `scan`: what the ticket field shows (a code opened from a QR code, or a refused one). */
    const doorPage = (viewer: Viewer, id: string, state: DoorState, last: string, scan: TicketScan) =>
      Effect.gen(function*() {
        const counts = yield* guestLists.counts(viewer.caller, id)
        const page = yield* guestLists.page(viewer.caller, id, { term: state.q, order: "name", limit: DOOR_PAGE_SIZE, skip: state.skip })
        const lastGuest = viewer.flash !== null && last !== ""
          ? yield* guestLists.guest(viewer.caller, id, last).pipe(
            Effect.map((found) => found.guest),
            Effect.catchTag("NotFound", () => Effect.succeed(undefined))
          )
          : undefined
        return CheckInPage({
          site,
          member: viewer.member,
          event: summaryOf(page.event),
          state,
          guests: page.guests,
          total: page.total,
          counts: { checkedIn: counts.attended, expected: counts.byStatus.Accepted, expectedIn: counts.attendedByStatus.Accepted },
          banner: viewer.flash === null
            ? null
            : {
              flash: viewer.flash,
              undo: lastGuest?.attendanceStatus === "Attended" ? { personId: lastGuest.personId, name: lastGuest.name } : undefined
            },
          canWrite: viewer.can("Team Member"),
          scan
        })
      })

    yield* router.get(
      "/app/events/:id/checkin",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const { last, q, skip, ticket } = yield* readQuery(DoorQuery)
          // a ticket's QR code opened with a phone's camera app: whose ticket it is, ready to check in
          const opened = ticket.slice(0, MAX_TICKET_INPUT)
          const scan: TicketScan = opened === "" || !viewer.can("Team Member")
            ? { value: "" }
            : ticketPreview(yield* tickets.lookup(viewer.caller, id, opened), opened, (yield* events.find(viewer.caller, id)).timezone)
          return web.render(yield* doorPage(viewer, id, { q, skip }, last, scan))
        }))
    )

    /**
     * The address a refused code's page was answered at (the form's own): reloading it, and the
     * live counts refreshing from it, lead back to the door.
     */
    yield* router.get(
      "/app/events/:id/checkin/ticket",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const event = summaryOf(yield* events.find(viewer.caller, id))
          return web.redirect(doorPath(event, yield* readQuery(DoorState)))
        }))
    )

    /**
     * A ticket code typed, pasted or scanned at the door: the guest checked in as by one tap, or,
     * when the code is not one of this event's guests', the page again with why next to the field.
     */
    yield* router.post(
      "/app/events/:id/checkin/ticket",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const state = readState(form)
          const typed = readTicket(form).ticket.slice(0, MAX_TICKET_INPUT)
          const refuse = (status: number, error: string, value = typed) =>
            Effect.map(doorPage(viewer, id, state, "", { value, error }), (page) => web.render(page, status))
          if (typed === "") return yield* refuse(400, "Type the ticket code, or scan the ticket's QR code.")
          const event = yield* events.find(viewer.caller, id)
          const outcome = yield* tickets.checkIn(viewer.caller, id, typed)
          switch (outcome._tag) {
            case "Invalid":
              return yield* refuse(400, `“${typed}” is not a ticket code: codes have 10 letters and digits, like K7QXM-3M9PD. Nothing was changed.`)
            case "Unknown":
              return yield* refuse(404, `Unknown ticket ${formatCode(outcome.code)}. Check the code, or find the guest by name below. Nothing was changed.`, formatCode(outcome.code))
            case "OtherEvent":
              return yield* refuse(409, `This ticket is for ${outcome.eventName}, not this event. Nothing was changed.`, formatCode(outcome.code))
            case "Removed":
              return yield* refuse(409, `The guest of ticket ${formatCode(outcome.code)} is no longer on this event's guest list. Nothing was changed.`, formatCode(outcome.code))
            case "AlreadyIn":
              return yield* web.flashTo(viewer, "error", alreadyIn(outcome.guest.name, outcome.since, event.timezone), doorPath(summaryOf(event), state, { last: outcome.guest.personId }))
            case "CheckedIn": {
              const answer = outcome.guest.rsvpStatus === "Accepted" ? "" : ` Their RSVP is ${outcome.guest.rsvpStatus}.`
              return yield* web.flashTo(viewer, "success", `${outcome.guest.name} checked in.${answer}`, doorPath(summaryOf(event), state, { last: outcome.guest.personId }))
            }
          }
        }))
    )

    /** One tap at the door (`undo`: its undo): attendance `Attended` (or none) through the API's update. */
    const tap = (undo: boolean) =>
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams("id", "personId")
          const state = readState(form)
          const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
          const back = doorPath(summaryOf(row), state, undo ? {} : { last: personId })
          if ((guest.attendanceStatus === "Attended") !== undo) {
            return yield* web.flashTo(viewer, "error", undo ? `${guest.name} was not checked in. Nothing was changed.` : `${guest.name} was checked in already.`, back)
          }
          return yield* web.perform(viewer, guestLists.update(viewer.caller, id, [{ personId, attendanceStatus: undo ? null : "Attended" }]), {
            to: back,
            done: () => (undo ? `Check-in of ${guest.name} undone.` : `${guest.name} checked in.`),
            failed: () => `${guest.name} is no longer on the list.`
          })
        }))

    yield* router.post("/app/events/:id/checkin/:personId", tap(false))
    yield* router.post("/app/events/:id/checkin/:personId/undo", tap(true))
  })
)
