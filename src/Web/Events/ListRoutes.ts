/**
 * Events in the dashboard (docs/integrators.md#events, docs/integrators.md#the-dashboard): the list
 * (upcoming and past, search, pages) and an event's page with its guest counts; every role reads
 * them. Creating and editing: FormRoutes.ts.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Events } from "../../Events/Events.js"
import { DoorLinks } from "../../Guests/DoorLinks.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import { EventInvitations } from "../../Invitations/Invitations.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { Cut, pathParams, readQuery, Skip } from "../Kit/Form.js"
import { Web } from "../Kit/Web.js"
import { EventPage } from "./EventPage.js"
import type { When } from "./EventTime.js"
import { EventsListPage } from "./ListPage.js"
import { publicFaceOf } from "./PublicFace.js"

/** Events on one page of the list. */
const PAGE_SIZE = 20

/** The list's query: upcoming or past, a name searched, where the page starts. */
const ListQuery = Schema.Struct({
  when: Schema.transform(Schema.String, Schema.Literal("upcoming", "past"), {
    strict: true,
    decode: (value): When => (value === "past" ? "past" : "upcoming"),
    encode: (when) => when
  }),
  q: Cut(200),
  skip: Skip
})

export const ListRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const events = yield* Events
    const guestLists = yield* GuestLists
    const doorLinks = yield* DoorLinks
    const invitations = yield* EventInvitations
    const publicOrigin = yield* PublicOrigin
    const { site } = web

    yield* router.get(
      "/app/events",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { q: query, skip, when } = yield* readQuery(ListQuery)
          const page = yield* events.browse(viewer.caller, { when, name: query, limit: PAGE_SIZE, skip })
          if (page.events.length === 0 && skip > 0 && page.total > 0) {
            return web.redirect(`/app/events${when === "past" ? "?when=past" : ""}`)
          }
          const counts = new Map(
            yield* Effect.forEach(page.events, (event) => Effect.map(guestLists.counts(viewer.caller, event.eventId), (c) => [event.eventId, c] as const))
          )
          const anyEvents = page.total > 0 ||
            (yield* events.browse(viewer.caller, { when: when === "past" ? "upcoming" : "past", name: "", limit: 1, skip: 0 })).total > 0
          return web.render(EventsListPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            canCreate: viewer.can("Admin"),
            when,
            query,
            events: page.events,
            counts,
            total: page.total,
            skip,
            limit: PAGE_SIZE,
            anyEvents
          }))
        }))
    )

    yield* router.get(
      "/app/events/:id",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const event = yield* events.get(viewer.caller, id)
          const counts = yield* guestLists.counts(viewer.caller, id)
          const now = yield* Clock.currentTimeMillis
          // said here when the daily email limit is reached: the guests' emails about it stop
          const emailQuota = invitations.configured ? yield* invitations.quota(viewer.caller) : null
          return web.render(EventPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            event,
            counts,
            past: Date.parse(event.primaryDate) < now,
            canEdit: viewer.can("Admin"),
            emailQuota,
            rsvpPage: event.primarySlug === null ? null : publicOrigin.url(`/rsvp/${encodeURIComponent(event.primarySlug)}`),
            publicFace: publicFaceOf(publicOrigin, viewer, event, invitations.configured, now),
            doorLinks: viewer.can("Admin") ? yield* doorLinks.list(viewer.caller, id) : null
          }))
        }))
    )
  })
)
