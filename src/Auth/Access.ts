/**
 * Access middleware, declared with the API. Each endpoint names the least role it needs; the
 * middleware runs the API's checks in order (docs/integrators.md#the-order-of-checks): rate limit of the caller (429),
 * credentials (401), `organizationSlug` for access tokens (400, 403), role (403). Only then is
 * the request decoded and handled.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CurrentCaller, CurrentSession } from "../Domain/Caller.js"
import { Forbidden, InvalidRequest, RateLimited, Unauthorized } from "../Domain/Errors.js"

/**
 * `x-api-key` is the scheme the middleware is keyed on; `Authorization: Bearer` plus
 * `organizationSlug` is accepted by the same handler (x-api-key wins when both are sent) and is
 * added to the OpenAPI document beside it (see `Http/OpenApiDocument.ts`).
 */
export const apiKeySecurity = HttpApiSecurity.apiKey({ in: "header", key: "x-api-key" }).pipe(
  HttpApiSecurity.annotate(OpenApi.Description, "An organization API token (`cvn_...`), shown once at creation.")
)

const security = { apiKey: apiKeySecurity }

const failure = Schema.Union(InvalidRequest.Wire, Unauthorized.Wire, Forbidden.Wire, RateLimited.Wire)

export class ViewerAccess extends HttpApiMiddleware.Tag<ViewerAccess>()("Convene/ViewerAccess", {
  security,
  provides: CurrentCaller,
  failure
}) {}

export class TeamMemberAccess extends HttpApiMiddleware.Tag<TeamMemberAccess>()("Convene/TeamMemberAccess", {
  security,
  provides: CurrentCaller,
  failure
}) {}

export class AdminAccess extends HttpApiMiddleware.Tag<AdminAccess>()("Convene/AdminAccess", {
  security,
  provides: CurrentCaller,
  failure
}) {}

export class SuperAdminAccess extends HttpApiMiddleware.Tag<SuperAdminAccess>()("Convene/SuperAdminAccess", {
  security,
  provides: CurrentCaller,
  failure
}) {}

/** Any valid credential, no organization needed (`GET /me`). */
export class SessionAccess extends HttpApiMiddleware.Tag<SessionAccess>()("Convene/SessionAccess", {
  security,
  provides: CurrentSession,
  failure: Schema.Union(Unauthorized.Wire, RateLimited.Wire)
}) {}

/** No credentials; rate limited per client IP (`POST /login`). */
export class PublicAccess extends HttpApiMiddleware.Tag<PublicAccess>()("Convene/PublicAccess", {
  failure: RateLimited.Wire
}) {}

/**
 * Marks an endpoint as a bulk write: besides the caller's general bucket, each request draws from
 * the bulk bucket (`BULK_RATE_LIMIT_*`), both or neither. Set with
 * `.annotate(BulkRateLimited, true)`; the gate is given the marked routes (`BulkRoutes`).
 */
export class BulkRateLimited extends Context.Tag("Convene/BulkRateLimited")<BulkRateLimited, boolean>() {}

/** What `BulkRoutes` reads of an `HttpApi`: its endpoints' methods, paths and annotations. */
interface AnnotatedEndpoints {
  readonly groups: Readonly<Record<string, {
    readonly endpoints: Readonly<Record<string, {
      readonly method: string
      readonly path: string
      readonly annotations: Context.Context<never>
    }>>
  }>>
}

/**
 * The routes (`METHOD /declared/path`) of the endpoints annotated `BulkRateLimited`, which the
 * gate (AccessLive.ts) draws from the bulk bucket for: found in the whole API by the composition
 * (`BulkRoutes.inApi(Api)` in src/Server.ts), which alone knows every group.
 */
export class BulkRoutes extends Context.Tag("Convene/BulkRoutes")<BulkRoutes, ReadonlySet<string>>() {
  static readonly inApi = (api: AnnotatedEndpoints): Layer.Layer<BulkRoutes> =>
    Layer.succeed(
      BulkRoutes,
      new Set(
        Object.values(api.groups).flatMap((group) =>
          Object.values(group.endpoints)
            .filter((endpoint) => Context.getOption(endpoint.annotations, BulkRateLimited).pipe(Option.getOrElse(() => false)))
            .map((endpoint) => `${endpoint.method} ${endpoint.path}`)
        )
      )
    )
}
