/**
 * Door links (CONTRACT §17): `/door/<token>` opens door mode for one event without an account (its
 * guests' names, status and attendance; check in and undo), each request looking the link up, so
 * that an expired or revoked one answers 404 at once. An event's Admins make and revoke them on the
 * event's page (`DoorLinksCard.tsx`). Also the door's service worker, `/door-sw.js` (door-sw.js in
 * the assets), allowed to control the door pages from there.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { RateLimited } from "../../Domain/Errors.js"
import { DoorLinks } from "../../Guests/DoorLinks.js"
import { fromOwnPages } from "../../Http/SameOrigin.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { eventPath, summaryOf } from "../Events/Summary.js"
import { Events } from "../../Events/Events.js"
import { Assets } from "../Kit/Assets.js"
import { Cut, fieldsOf, pathParams } from "../Kit/Form.js"
import { pageHeaders } from "../Kit/Headers.js"
import { Web } from "../Kit/Web.js"
import { doorHandlers, type DoorPlace } from "./DoorHandlers.js"

const NewLink = fieldsOf(Schema.Struct({ name: Cut(80), lastDay: Schema.String }))

export const DoorLinkRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const door = yield* doorHandlers
    const links = yield* DoorLinks
    const events = yield* Events
    const origin = yield* PublicOrigin
    const assets = yield* Assets

    const notFound = web.messagePage(undefined, 404, "Not found", "This door link is unknown, revoked or expired. Ask the event's organizers for a new one.")

    /** The door of a live link's token, for `handler`; any other token 404 (rate limited per client address, as signed-out pages are). */
    const withLink = <E, R>(handler: (place: DoorPlace) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.gen(function*() {
        const headers = yield* web.limit(yield* web.clientKey)
        const { token } = yield* pathParams("token")
        const access = yield* links.open(token)
        const place: DoorPlace = {
          caller: access.caller,
          eventId: access.eventId,
          base: `/door/${token}`,
          csrf: null,
          withEmail: false,
          canWrite: true,
          seesOtherEvents: false,
          linkName: access.name
        }
        return HttpServerResponse.setHeaders(yield* handler(place), { ...headers, "referrer-policy": "no-referrer" })
      }).pipe(
        Effect.catchTag("RateLimited", (error) => Effect.succeed(web.tooMany(error as RateLimited))),
        Effect.catchTag("NotFound", () => Effect.succeed(notFound)),
        Effect.catchAll(() => Effect.succeed(notFound)),
        web.guarded
      )

    /** A write through a link: from the service's own pages only (the token in the path is the credential). */
    const linkWrite = (target: { undo: boolean } | undefined) =>
      withLink((place) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!fromOwnPages(request.headers, origin.webOrigin)) return web.formExpired(undefined)
          const form = yield* web.readForm
          if (target === undefined) return yield* door.write(place, form, undefined)
          const { personId } = yield* pathParams("personId")
          return yield* door.write(place, form, { personId, undo: target.undo })
        }))

    yield* router.get("/door/:token", withLink(door.page))
    yield* router.get("/door/:token/guests.json", withLink(door.list))
    yield* router.post("/door/:token/ticket", linkWrite(undefined))
    yield* router.post("/door/:token/:personId", linkWrite({ undo: false }))
    yield* router.post("/door/:token/:personId/undo", linkWrite({ undo: true }))

    yield* router.get(
      "/door-sw.js",
      Effect.sync(() => {
        const asset = assets.get(assets.nameOf("door-sw.js"))!
        return HttpServerResponse.uint8Array(asset.body, {
          contentType: asset.contentType,
          headers: { ...pageHeaders, "service-worker-allowed": origin.href("/") }
        })
      })
    )

    /** An Admin makes a link: shown once, in the message on the event's page. */
    yield* router.post(
      "/app/events/:id/door-links",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const event = summaryOf(yield* events.find(viewer.caller, id))
          const { lastDay, name } = NewLink(form)
          const made = yield* links.create(viewer.caller, id, { name, ...(lastDay === "" ? {} : { lastDay }) }).pipe(
            Effect.map((m) => ({ _tag: "Made" as const, ...m })),
            Effect.catchTag("InvalidRequest", (e) => Effect.succeed({ _tag: "Refused" as const, message: e.message }))
          )
          if (made._tag === "Refused") return yield* web.flashTo(viewer, "error", `The door link was not made: ${made.message}.`, eventPath(event))
          return yield* web.flashTo(
            viewer,
            "success",
            `Door link “${made.link.name}” made: ${origin.url(`/door/${made.token}`)} — copy it now, it is shown only once.`,
            eventPath(event)
          )
        }))
    )

    yield* router.post(
      "/app/events/:id/door-links/:linkId/revoke",
      web.action("Admin", (viewer) =>
        Effect.gen(function*() {
          const { id, linkId } = yield* pathParams("id", "linkId")
          const event = summaryOf(yield* events.find(viewer.caller, id))
          yield* links.revoke(viewer.caller, id, linkId)
          return yield* web.flashTo(viewer, "success", "Door link revoked: it opens nothing any more.", eventPath(event))
        }))
    )
  })
)
