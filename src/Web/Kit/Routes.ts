/**
 * The dashboard's doors: `/` and `/app` lead in (to the events when signed in, else to sign in),
 * its static files (Assets.ts: in the best coding the request accepts, with an entity tag for
 * each), and the not-found page of any other `/app` path (signed-in members see a page that says
 * so, others sign in).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../../Domain/Errors.js"
import { Assets } from "./Assets.js"
import { pathParams } from "./Form.js"
import { Web } from "./Web.js"

/** Whether an `If-None-Match` names `etag` (compared weakly, as RFC 9110 §13.1.2 says), or is `*`. */
const matches = (ifNoneMatch: string | undefined, etag: string): boolean =>
  ifNoneMatch !== undefined && ifNoneMatch.split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag
  })

export const KitRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const assets = yield* Assets

    yield* router.get("/", Effect.succeed(web.redirect("/app")))

    yield* router.get(
      "/app",
      Effect.map(web.currentSession, (session) => web.redirect(Option.isSome(session) ? "/app/events" : "/app/login"))
    )

    yield* router.get(
      "/app/assets/:name",
      Effect.gen(function*() {
        const { name } = yield* pathParams("name")
        const request = yield* HttpServerRequest.HttpServerRequest
        const asset = assets.get(name, request.headers["accept-encoding"])
        if (asset === undefined) {
          return HttpServerResponse.text("Not found", { status: 404, headers: { "x-content-type-options": "nosniff" } })
        }
        const headers = {
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
          etag: asset.etag,
          ...(asset.varies ? { vary: "Accept-Encoding" } : {}),
          ...(asset.coding === "identity" ? {} : { "content-encoding": asset.coding })
        }
        // a cache that revalidates anyway (a reload) gets 304 for the version it holds in this coding
        if (matches(request.headers["if-none-match"], asset.etag)) return HttpServerResponse.empty({ status: 304, headers })
        return HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType, headers })
      })
    )

    // any other page of the dashboard: signed-in members see a page that says so, others sign in
    yield* router.get("/app/*", web.page("Viewer", () => Effect.fail(new NotFound({ message: "No such page" }))))
  })
)
