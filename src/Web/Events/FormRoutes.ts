/**
 * Creating and editing an event (Admin and above, as the API's `AdminAccess` says): the form of every
 * field of `POST` / `PATCH /event`, through the same services as the API (`Events`, and for an
 * edit `Guests/EventUpdates.ts`, which promotes waitlisted guests when the capacity grows), so
 * history, webhook notifications (`Event` with its `updatedFields`) and refusals are the API's.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Conflict, InvalidRequest } from "../../Domain/Errors.js"
import type { Event } from "../../Events/Domain.js"
import { Events } from "../../Events/Events.js"
import { EventUpdates } from "../../Guests/EventUpdates.js"
import { Members } from "../../Organizations/Members.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { refusedBy } from "../Kit/Action.js"
import { pathParams } from "../Kit/Form.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { describeChanges, fieldErrors } from "./FormErrors.js"
import { generatedSlugFor, isEmptyUpdate, toCreate, toUpdate, wantsGeneratedSlug } from "./FormInput.js"
import { EventFormPage } from "./FormPage.js"
import { blankValues, encodeOriginal, type EventFormValues, originalValues, readValues, valuesOf } from "./FormValues.js"

/** Every IANA zone the runtime knows, UTC first. */
const ALL_TIME_ZONES: ReadonlyArray<string> = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")]

/** The zones to offer: an event's own zone stays selectable even when it is an alias the list lacks. */
const timeZonesWith = (zone: string) => (ALL_TIME_ZONES.includes(zone) ? ALL_TIME_ZONES : [zone, ...ALL_TIME_ZONES])

type FormMode = { readonly kind: "create" } | { readonly kind: "edit"; readonly event: Event; readonly original: EventFormValues }

const eventPath = (eventId: string) => `/app/events/${encodeURIComponent(eventId)}`

export const FormRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const events = yield* Events
    // an edit goes through the update that also moves the waitlist when the capacity changes (as PATCH /event/:id)
    const updates = yield* EventUpdates
    const members = yield* Members
    const publicOrigin = yield* PublicOrigin
    const { site } = web

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

    const formPage = (viewer: Viewer, mode: FormMode, values: EventFormValues, errors: ReturnType<typeof fieldErrors> = [], status = 200) =>
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
            rsvpBase: publicOrigin.url("/rsvp/"),
            pageBase: publicOrigin.url("/e/")
          }),
          status
        ))

    /** A refused form again, with what was typed and each message at its field. */
    const refused = (viewer: Viewer, mode: FormMode, values: EventFormValues) => (error: InvalidRequest | Conflict) =>
      formPage(viewer, mode, values, fieldErrors(error, values), error._tag === "Conflict" ? 409 : 400)

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
        return web.perform(viewer, Effect.flatMap(toCreate(values), (input) => events.create(viewer.caller, input)), {
          to: (event) => eventPath(event.eventId),
          done: (event) => `Event “${event.name}” created. Next, add guests from its guest list.`,
          failed: refusedBy(refused(viewer, { kind: "create" }, values))
        })
      })
    )

    yield* router.get(
      "/app/events/:id/edit",
      web.page("Admin", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const event = yield* events.get(viewer.caller, id)
          const values = valuesOf(event)
          return yield* formPage(viewer, { kind: "edit", event, original: values }, values)
        }))
    )

    yield* router.post(
      "/app/events/:id/edit",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const event = yield* events.get(viewer.caller, id)
          const values = readValues(form)
          const original = originalValues(form, event)
          const slugAsked = wantsGeneratedSlug(values) &&
            (values.noPublicPage !== original.noPublicPage || values.primarySlug !== original.primarySlug)
          const slug = slugAsked
            ? yield* Option.match(generatedSlugFor(values, event), {
              onSome: Effect.succeed,
              onNone: () => events.freeSlug(values.name === "" ? event.name : values.name)
            })
            : undefined
          const saved = Effect.flatMap(toUpdate(values, original, event, slug), (input) =>
            isEmptyUpdate(input)
              ? Effect.succeed({ name: event.name, updatedFields: [] as ReadonlyArray<string> })
              : Effect.map(updates.update(viewer.caller, id, input), (r) => ({ name: r.event.name, updatedFields: r.updatedFields })))
          return yield* web.perform(viewer, saved, {
            to: eventPath(event.eventId),
            done: ({ name, updatedFields }) =>
              updatedFields.length === 0 ? `Nothing to save: “${name}” is unchanged.` : `Saved “${name}”: ${describeChanges(updatedFields)}.`,
            failed: refusedBy(refused(viewer, { kind: "edit", event, original }, values))
          })
        }))
    )
  })
)
