/**
 * The dashboard's doors: `/` and `/app` lead in (to the events when signed in, else to sign in),
 * its static files (Assets.ts), and the not-found page of any other `/app` path (signed-in members
 * see a page that says so, others sign in).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../../Domain/Errors.js"
import { Assets } from "./Assets.js"
import { pathParams } from "./Form.js"
import { Web } from "./Web.js"

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
        const asset = assets.get(name)
        if (asset === undefined) {
          return HttpServerResponse.text("Not found", { status: 404, headers: { "x-content-type-options": "nosniff" } })
        }
        return HttpServerResponse.uint8Array(asset.body, {
          contentType: asset.contentType,
          headers: { "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" }
        })
      })
    )

    // any other page of the dashboard: signed-in members see a page that says so, others sign in
    yield* router.get("/app/*", web.page("Viewer", () => Effect.fail(new NotFound({ message: "No such page" }))))
  })
)
