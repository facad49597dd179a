/**
 * `/docs`: Scalar's API reference of the same definition the server runs, working offline (the
 * Scalar bundle is inlined in the page). The bundle is 3.4 MB of JavaScript, so its module is
 * imported on the first visit rather than at start: a service nobody reads the docs of does not
 * carry it in memory. The API's description (src/Api.ts) links to the integrator's guide beside it,
 * `/docs/guide` (Guide.ts).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"

export const DocsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const api = yield* HttpApi.Api
    const docs = yield* Effect.cached(Effect.gen(function*() {
      const { layer } = yield* Effect.promise(() => import("@effect/platform/HttpApiScalar"))
      // the page is built once and kept for the life of the process
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        layer({ path: "/docs" }).pipe(
          Layer.provideMerge(HttpApiBuilder.Router.Live),
          Layer.provide(Layer.succeed(HttpApi.Api, api))
        ),
        scope
      )
      return yield* Effect.provide(HttpApiBuilder.Router.router, context)
    }))
    yield* router.get("/docs", Effect.flatten(docs))
  })
)

/**
 * `/openapi.json`: the OpenAPI document of the same definition, as `HttpApiBuilder.middlewareOpenApi`
 * serves it, but made on its first request instead of at start (walking every schema of the API
 * costs about a tenth of a second, which start-up need not wait for: bench/RESULTS.md, issue 18).
 */
export const OpenApiLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { api } = yield* HttpApi.Api
    const document = yield* Effect.cached(
      Effect.suspend(() => HttpServerResponse.json(OpenApi.fromApi(api))).pipe(Effect.orDie)
    )
    yield* router.get("/openapi.json", document)
  })
)
