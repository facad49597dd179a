/**
 * One guest of an event (docs/integrators.md#the-dashboard): their page with their RSVP history, and
 * the forms that set their RSVP status and attendance, take them off the list, and make their
 * personal RSVP link (as `guestlist/search?generateRsvpLinks=true` makes it). Writes need Team
 * Member and go through `GuestLists`, as the API's; each returns to the list's place it came from.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { RsvpStatus } from "../../Guests/Domain.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import { summaryOf } from "../Events/Summary.js"
import { confirmed, type Form, fieldsOf, orNone, pathParams, readQuery } from "../Kit/Form.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { GuestPage } from "./GuestPage.js"
import { guestHistory } from "./History.js"
import { Attendance, guestPath, listFields, listPath, listQuery, ListState } from "./State.js"
import { attendanceValue, historyFull } from "./Words.js"

const readState = fieldsOf(ListState)
const readRsvp = fieldsOf(Schema.Struct({ rsvpStatus: orNone(RsvpStatus) }))
// not `attendance`: that is the list's filter, kept for the redirect; `from`: the guest's page, or the list
const readAttendance = fieldsOf(Schema.Struct({ attendanceStatus: orNone(Attendance), from: Schema.String }))

export const GuestRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const guestLists = yield* GuestLists
    const history = yield* guestHistory
    const { site } = web

    /** The guest of the path, as the API shows them, and the list's place the form came from. */
    const guestOf = (viewer: Viewer, form: Form) =>
      Effect.gen(function*() {
        const { id, personId } = yield* pathParams("id", "personId")
        const state = readState(form)
        const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
        return { id, personId, state, row, guest, event: summaryOf(row) }
      })

    yield* router.get(
      "/app/events/:id/guests/:personId",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams("id", "personId")
          const state = yield* readQuery(ListState)
          const { event, guest, row } = yield* guestLists.guest(viewer.caller, id, personId)
          const lines = yield* history(viewer, {
            you: "You",
            member: (name) => (name === undefined ? "A team member" : `${name} (team member)`),
            apiKey: (name) => (name === undefined ? "An API key" : `API key “${name}”`),
            guest: "The guest, on the RSVP page"
          })
          return web.render(GuestPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            event: summaryOf(event),
            guest,
            history: lines(row, event.timezone),
            state,
            canWrite: viewer.can("Team Member")
          }))
        }))
    )

    yield* router.post(
      "/app/events/:id/guests/:personId/rsvp",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { event, guest, id, personId, state } = yield* guestOf(viewer, form)
          const back = guestPath(event, personId, listQuery(state))
          const { rsvpStatus } = readRsvp(form)
          if (rsvpStatus === undefined) return yield* web.flashTo(viewer, "error", "Choose an RSVP status.", back)
          return yield* web.perform(viewer, guestLists.update(viewer.caller, id, [{ personId, rsvpStatus }]), {
            to: back,
            done: () => `RSVP status of ${guest.name} set to ${rsvpStatus}.`,
            failed: (error) => (error._tag === "Conflict" ? historyFull(guest.name) : `${guest.name} is no longer on the list. Nothing was changed.`)
          })
        }))
    )

    yield* router.post(
      "/app/events/:id/guests/:personId/attendance",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { event, guest, id, personId, state } = yield* guestOf(viewer, form)
          const { attendanceStatus: choice, from } = readAttendance(form)
          const back = from === "guest" ? guestPath(event, personId, listQuery(state)) : listPath(event, state)
          if (choice === undefined) return yield* web.flashTo(viewer, "error", "Choose an attendance.", back)
          if ((guest.attendanceStatus ?? "none") === choice) {
            const already = choice === "Attended" ? "checked in" : choice === "No Show" ? "marked as no-show" : "not checked in"
            return yield* web.flashTo(viewer, "error", `${guest.name} is ${already} already. Nothing was changed.`, back)
          }
          return yield* web.perform(viewer, guestLists.update(viewer.caller, id, [{ personId, attendanceStatus: attendanceValue(choice) }]), {
            to: back,
            done: () =>
              choice === "Attended"
                ? `${guest.name} checked in.`
                : choice === "No Show"
                ? `${guest.name} marked as no-show.`
                : `Attendance of ${guest.name} cleared: not checked in.`,
            failed: () => `${guest.name} is no longer on the list. Nothing was changed.`
          })
        }))
    )

    yield* router.post(
      "/app/events/:id/guests/:personId/remove",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { event, guest, id, personId, state } = yield* guestOf(viewer, form)
          if (!confirmed(form)) {
            return web.confirm(viewer, {
              section: "events",
              title: `Remove ${guest.name}?`,
              message: `${guest.name} is taken off the guest list of ${event.name}. The contact stays; added again later, they start as Invited.`,
              action: guestPath(event, personId, "/remove"),
              confirmLabel: `Remove ${guest.name}`,
              cancel: guestPath(event, personId, listQuery(state)),
              fields: listFields(state)
            })
          }
          return yield* web.perform(viewer, guestLists.remove(viewer.caller, id, [{ personId }]), {
            to: listPath(event, state),
            done: () => `${guest.name} was removed from the guest list.`,
            failed: () => `${guest.name} could not be removed. Nothing was changed.`
          })
        }))
    )

    /** The guest's personal RSVP link, made as `guestlist/search?generateRsvpLinks=true` makes it. */
    yield* router.post(
      "/app/events/:id/guests/:personId/invite-link",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { event, guest, id, personId, row, state } = yield* guestOf(viewer, form)
          const back = guestPath(event, personId, listQuery(state))
          if (row.slug === null) return yield* web.flashTo(viewer, "error", "This event has no page address, so there are no invite links. An Admin can give it one on the event's form.", back)
          if (guest.rsvpLink !== null) return yield* web.flashTo(viewer, "success", `${guest.name} has an invite link already: it is below.`, back)
          yield* guestLists.search(viewer.caller, id, { personIds: personId, generateRsvpLinks: true, limit: 1 }).pipe(
            Effect.catchTag("InvalidRequest", () => Effect.void)
          )
          return yield* web.flashTo(viewer, "success", `Invite link of ${guest.name} created. Copy it below.`, back)
        }))
    )
  })
)
