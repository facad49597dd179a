/**
 * An event's guest list (docs/integrators.md#the-dashboard), over the API's own services: reading
 * needs Viewer, every write Team Member (as `POST/PUT/DELETE /event/:id/guestlist`). Writes go
 * through `GuestLists.add/update/remove`, so history entries (actor `user`) and notifications are
 * the ones the API makes. Every write leaves a flash message and returns to the filter, search and
 * page it came from. Here: the list, and what its selection's actions do.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Events } from "../../Events/Events.js"
import { RsvpStatus } from "../../Guests/Domain.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import { type EventSummary, eventPath, summaryOf } from "../Events/Summary.js"
import { confirmed, type Form, fieldsOf, pathParams, readQuery, Selection } from "../Kit/Form.js"
import { plural } from "../Kit/Format.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { GuestListPage } from "./ListPage.js"
import { Attendance, GUESTS_PER_PAGE, listFields, listPath, ListState } from "./State.js"
import { attendanceValue, decidedMessage, historyFull, MAX_BATCH, NOTHING_PENDING, someNames } from "./Words.js"

/** What the selection's form posts: the ticked guests, and what to do with them. */
const BulkForm = Schema.Struct({ personIds: Schema.propertySignature(Selection).pipe(Schema.fromKey("personId")), action: Schema.String })
const readSelection = fieldsOf(BulkForm)
const readState = fieldsOf(ListState)
const isRsvp = Schema.is(RsvpStatus)
const isAttendance = Schema.is(Attendance)

const NOT_ON_LIST = "Some of the selected guests are no longer on the list (a colleague may have removed them). Nothing was changed."

export const ListRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const guestLists = yield* GuestLists
    const events = yield* Events
    const { site } = web

    yield* router.get(
      "/app/events/:id/guests",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const state = yield* readQuery(ListState)
          const counts = yield* guestLists.counts(viewer.caller, id)
          const query = (skip: number) => ({
            rsvpStatus: state.status,
            attendance: state.attendance,
            term: state.q,
            order: "added" as const,
            limit: GUESTS_PER_PAGE,
            skip
          })
          let page = yield* guestLists.page(viewer.caller, id, query(state.skip))
          let shown = state
          if (page.guests.length === 0 && page.total > 0 && state.skip > 0) {
            // past the end (guests were removed meanwhile): the last page instead
            const last = Math.floor((page.total - 1) / GUESTS_PER_PAGE) * GUESTS_PER_PAGE
            page = yield* guestLists.page(viewer.caller, id, query(last))
            shown = { ...state, skip: last }
          }
          return web.render(GuestListPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            event: summaryOf(page.event),
            counts,
            state: shown,
            guests: page.guests,
            total: page.total,
            canWrite: viewer.can("Team Member")
          }))
        }))
    )

    /** Taking the selection off the list: a confirmation page first (naming up to 50 of them), then the removal. */
    const remove = (viewer: Viewer, form: Form, id: string, event: EventSummary, personIds: ReadonlyArray<string>, state: ListState) =>
      Effect.gen(function*() {
        const back = listPath(event, state)
        if (confirmed(form)) {
          return yield* web.perform(viewer, guestLists.remove(viewer.caller, id, personIds.map((personId) => ({ personId }))), {
            to: back,
            done: ({ guests }) =>
              guests.length === 0
                ? web.flashTo(viewer, "error", "None of the selected guests was on the list. Nothing was changed.", back)
                : `Removed ${plural(guests.length, "guest")} from the list: ${someNames(guests.map((g) => g.name))}.`,
            failed: () => "Some of the selected guests are not known contacts. Nothing was changed."
          })
        }
        const named = personIds.length <= 50
          ? yield* guestLists.search(viewer.caller, id, { personIds: personIds.join(","), limit: 50 }).pipe(
            Effect.map((r) => r.guests.map((g) => g.name)),
            Effect.catchTag("InvalidRequest", "Forbidden", () => Effect.succeed<ReadonlyArray<string>>([]))
          )
          : []
        return web.confirm(viewer, {
          section: "events",
          title: `Remove ${plural(personIds.length, "guest")}?`,
          message: `${named.length > 0 ? `${someNames(named)}: ` : ""}taken off the guest list of ${event.name}. Their contacts stay; added again later, they start as Invited.`,
          action: eventPath(event, "/guests/bulk"),
          confirmLabel: `Remove ${plural(personIds.length, "guest")}`,
          cancel: back,
          fields: [["action", "remove"], ...personIds.map((p) => ["personId", p] as const), ...listFields(state)]
        })
      })

    /** A selection's RSVP status or attendance, its approval or decline (registrations), or its removal (confirmed first). */
    yield* router.post(
      "/app/events/:id/guests/bulk",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const state = readState(form)
          const { action, personIds } = readSelection(form)
          const event = summaryOf(yield* events.find(viewer.caller, id))
          const back = listPath(event, state)
          const refuse = (message: string) => web.flashTo(viewer, "error", message, back)
          if (personIds.length === 0) return yield* refuse("Select at least one guest first, then choose what to do.")
          if (personIds.length > MAX_BATCH) return yield* refuse(`Select at most ${MAX_BATCH} guests at a time.`)
          if (action === "remove") return yield* remove(viewer, form, id, event, personIds, state)

          if (action === "approve" || action === "decline") {
            return yield* web.perform(viewer, guestLists.decide(viewer.caller, id, personIds, action), {
              to: back,
              done: (decided) => decidedMessage(action, decided) ?? refuse(NOTHING_PENDING),
              failed: (error) => (error._tag === "Conflict" ? historyFull("One of the selected guests") : NOT_ON_LIST)
            })
          }
          const [kind, value = ""] = action.split(/:(.*)/s)
          if (kind === "rsvp" && isRsvp(value)) {
            return yield* web.perform(viewer, guestLists.update(viewer.caller, id, personIds.map((personId) => ({ personId, rsvpStatus: value }))), {
              to: back,
              done: ({ guests }) => `RSVP status set to ${value} for ${plural(guests.length, "guest")}: ${someNames(guests.map((g) => g.name))}.`,
              failed: (error) => (error._tag === "Conflict" ? historyFull("One of the selected guests") : NOT_ON_LIST)
            })
          }
          if (kind === "attendance" && isAttendance(value)) {
            const what = value === "Attended" ? "Checked in" : value === "No Show" ? "Marked as no-show" : "Attendance cleared for"
            const items = personIds.map((personId) => ({ personId, attendanceStatus: attendanceValue(value) }))
            return yield* web.perform(viewer, guestLists.update(viewer.caller, id, items), {
              to: back,
              done: ({ guests }) => `${what} ${plural(guests.length, "guest")}: ${someNames(guests.map((g) => g.name))}.`,
              failed: () => NOT_ON_LIST
            })
          }
          return yield* refuse("Choose what to do with the selected guests, then press Apply.")
        }))
    )
  })
)
