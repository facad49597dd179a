/**
 * Events in the dashboard (docs/integrators.md#events, docs/integrators.md#the-dashboard): the list (upcoming and past, search, pages), an
 * event's page with its guest counts, and the form that creates and edits every field of
 * `POST` / `PATCH /event`. Every role reads; Admin and above create and edit, as the API's
 * `AdminAccess` says. Pages call the same `Events` service as the API, so history, webhook
 * notifications (`Event` with its `updatedFields`) and refusals are the API's.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Event } from "../Events/Domain.js"
import { Events } from "../Events/Events.js"
import { GuestLists } from "../Guests/GuestLists.js"
import { EventInvitations } from "../Invitations/Invitations.js"
import type { Conflict, InvalidRequest } from "../Domain/Errors.js"
import { Members } from "../Organizations/Members.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import {
  blankValues,
  describeChanges,
  encodeOriginal,
  type EventFormValues,
  fieldErrors,
  generatedSlugFor,
  isEmptyUpdate,
  originalValues,
  readValues,
  toCreate,
  toUpdate,
  valuesOf,
  wantsGeneratedSlug
} from "./EventForm.js"
import { EventPage, EventsListPage, type When } from "./Pages/Events.js"
import { EventFormPage } from "./Pages/EventsForm.js"
import { type Viewer, Web } from "./Web.js"

/** Events on one page of the list. */
const PAGE_SIZE = 20

/** Every IANA zone the runtime knows, UTC first. */
const ALL_TIME_ZONES: ReadonlyArray<string> = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")]

/** The zones to offer: an event's own zone stays selectable even when it is an alias the list lacks. */
const timeZonesWith = (zone: string) => (ALL_TIME_ZONES.includes(zone) ? ALL_TIME_ZONES : [zone, ...ALL_TIME_ZONES])

const first = (value: string | ReadonlyArray<string> | undefined) => (typeof value === "string" ? value : value?.[0] ?? "")

type FormMode = { readonly kind: "create" } | { readonly kind: "edit"; readonly event: Event; readonly original: EventFormValues }

export const EventsRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const events = yield* Events
    const guestLists = yield* GuestLists
    const invitations = yield* EventInvitations
    const members = yield* Members
    const publicOrigin = yield* PublicOrigin
    const { site } = web

    const eventPath = (eventId: string) => `/app/events/${encodeURIComponent(eventId)}`

    /** Members who may be named hosts; the creator of a new event hosts it anyway. */
    const hostOptions = (viewer: Viewer, creating: boolean) =>
      Effect.map(members.active(viewer.organization.id), (all) =>
        all
          .filter((m) => !(creating && m.userId === viewer.caller.actor.id))
          .map((m) => ({
            userId: m.userId,
            name: [m.firstName, m.lastName].filter((s) => s !== null && s !== "").join(" ") || m.email,
            role: m.role
          })))

    const formPage = (
      viewer: Viewer,
      mode: FormMode,
      values: EventFormValues,
      errors: ReturnType<typeof fieldErrors> = [],
      status = 200
    ) =>
      Effect.map(hostOptions(viewer, mode.kind === "create"), (hosts) =>
        web.render(
          EventFormPage({
            site,
            member: viewer.member,
            flash: status === 200 ? viewer.flash : null,
            mode: mode.kind === "create"
              ? mode
              : { kind: "edit", eventId: mode.event.eventId, name: mode.event.name, original: encodeOriginal(mode.original) },
            values,
            errors,
            timeZones: timeZonesWith(values.timezone),
            hosts,
            rsvpBase: publicOrigin.url("/rsvp/")
          }),
          status
        ))

    /** A refused form again, with what was typed and each message at its field. */
    const refused = (viewer: Viewer, mode: FormMode, values: EventFormValues) => (error: InvalidRequest | Conflict) =>
      formPage(viewer, mode, values, fieldErrors(error, values), error._tag === "Conflict" ? 409 : 400)

    yield* router.get(
      "/app/events",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const params = yield* HttpServerRequest.ParsedSearchParams
          const when: When = first(params["when"]) === "past" ? "past" : "upcoming"
          const query = first(params["q"]).trim().slice(0, 200)
          const skipText = first(params["skip"])
          const skip = /^\d{1,9}$/.test(skipText) ? Number(skipText) : 0
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
      "/app/events/new",
      web.page("Admin", (viewer) =>
        Effect.flatMap(events.usualTimezone(viewer.caller), (zone) =>
          formPage(viewer, { kind: "create" }, blankValues(Option.getOrElse(zone, () => "UTC"), []))))
    )

    yield* router.post(
      "/app/events",
      web.action("Admin", (viewer, form) => {
        const values = readValues(form)
        return toCreate(values).pipe(
          Effect.flatMap((input) => events.create(viewer.caller, input)),
          Effect.tap((event) => web.flash(viewer, "success", `Event “${event.name}” created. Next, add guests from its guest list.`)),
          Effect.map((event) => web.redirect(eventPath(event.eventId))),
          Effect.catchTags({
            InvalidRequest: refused(viewer, { kind: "create" }, values),
            Conflict: refused(viewer, { kind: "create" }, values)
          })
        )
      })
    )

    yield* router.get(
      "/app/events/:id",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id = "" } = yield* HttpRouter.params
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
            rsvpPage: event.primarySlug === null ? null : publicOrigin.url(`/rsvp/${encodeURIComponent(event.primarySlug)}`)
          }))
        }))
    )

    yield* router.get(
      "/app/events/:id/edit",
      web.page("Admin", (viewer) =>
        Effect.gen(function*() {
          const { id = "" } = yield* HttpRouter.params
          const event = yield* events.get(viewer.caller, id)
          const values = valuesOf(event)
          return yield* formPage(viewer, { kind: "edit", event, original: values }, values)
        }))
    )

    yield* router.post(
      "/app/events/:id/edit",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const { id = "" } = yield* HttpRouter.params
          const event = yield* events.get(viewer.caller, id)
          const values = readValues(form)
          const original = originalValues(form, event)
          const mode: FormMode = { kind: "edit", event, original }
          const slugAsked = wantsGeneratedSlug(values) &&
            (values.noPublicPage !== original.noPublicPage || values.primarySlug !== original.primarySlug)
          const slug = slugAsked
            ? yield* Option.match(generatedSlugFor(values, event), {
              onSome: Effect.succeed,
              onNone: () => events.freeSlug(values.name === "" ? event.name : values.name)
            })
            : undefined
          return yield* toUpdate(values, original, event, slug).pipe(
            Effect.flatMap((input) =>
              isEmptyUpdate(input)
                ? Effect.succeed({ name: event.name, updatedFields: [] as ReadonlyArray<string> })
                : Effect.map(events.update(viewer.caller, id, input), (r) => ({ name: r.event.name, updatedFields: r.updatedFields }))
            ),
            Effect.tap(({ name, updatedFields }) =>
              web.flash(
                viewer,
                "success",
                updatedFields.length === 0 ? `Nothing to save: “${name}” is unchanged.` : `Saved “${name}”: ${describeChanges(updatedFields)}.`
              )
            ),
            Effect.map(() => web.redirect(eventPath(event.eventId))),
            Effect.catchTags({ InvalidRequest: refused(viewer, mode, values), Conflict: refused(viewer, mode, values) })
          )
        }))
    )
  })
)
