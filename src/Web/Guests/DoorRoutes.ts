/**
 * A member's door (CONTRACT §11 "Check-in", §17 "Door mode"): `/app/events/<id>/checkin`, its list
 * as JSON for door.js, a tap, its undo and a ticket's code (DoorHandlers.ts). A check-in is
 * attendance `Attended` through the API's update (an `EventPerson` notification, no RSVP history).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Events } from "../../Events/Events.js"
import { summaryOf } from "../Events/Summary.js"
import { pathParams, readQuery } from "../Kit/Form.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { doorHandlers, type DoorPlace } from "./DoorHandlers.js"
import { doorPath, DoorState } from "./State.js"

const placeOf = (viewer: Viewer, id: string): DoorPlace => ({
  caller: viewer.caller,
  eventId: id,
  base: `/app/events/${encodeURIComponent(id)}/checkin`,
  csrf: viewer.member.csrf,
  withEmail: true,
  canWrite: viewer.can("Team Member"),
  seesOtherEvents: true,
  back: { href: `/app/events/${encodeURIComponent(id)}`, label: "Back to the event" }
})

export const DoorRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const events = yield* Events
    const door = yield* doorHandlers

    yield* router.get(
      "/app/events/:id/checkin",
      web.page("Viewer", (viewer) => Effect.flatMap(pathParams("id"), ({ id }) => door.page(placeOf(viewer, id))))
    )

    yield* router.get(
      "/app/events/:id/checkin/guests.json",
      web.page("Viewer", (viewer) => Effect.flatMap(pathParams("id"), ({ id }) => door.list(placeOf(viewer, id))))
    )

    /** The address a refused code's page was answered at (the form's own): reloading it leads back to the door. */
    yield* router.get(
      "/app/events/:id/checkin/ticket",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          return web.redirect(doorPath(summaryOf(yield* events.find(viewer.caller, id)), yield* readQuery(DoorState)))
        }))
    )

    yield* router.post(
      "/app/events/:id/checkin/ticket",
      web.action("Team Member", (viewer, form) => Effect.flatMap(pathParams("id"), ({ id }) => door.write(placeOf(viewer, id), form, undefined)))
    )
    yield* router.post(
      "/app/events/:id/checkin/:personId",
      web.action("Team Member", (viewer, form) =>
        Effect.flatMap(pathParams("id", "personId"), ({ id, personId }) => door.write(placeOf(viewer, id), form, { personId, undo: false })))
    )
    yield* router.post(
      "/app/events/:id/checkin/:personId/undo",
      web.action("Team Member", (viewer, form) =>
        Effect.flatMap(pathParams("id", "personId"), ({ id, personId }) => door.write(placeOf(viewer, id), form, { personId, undo: true })))
    )
  })
)
