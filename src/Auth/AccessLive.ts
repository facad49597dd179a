/** The access middleware's implementation: one gate, instantiated per required role. */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Caller, Session } from "../Domain/Caller.js"
import { AppConfig } from "../Config/AppConfig.js"
import { atLeast, type Role } from "../Domain/Role.js"
import { Forbidden, InvalidRequest, RateLimited, Unauthorized } from "../Domain/Errors.js"
import { currentClient, RequestMeta } from "../Http/RequestMeta.js"
import { rateLimitHeaders } from "../RateLimit/Headers.js"
import { RateLimiter } from "../RateLimit/RateLimiter.js"
import { Api } from "../Api.js"
import {
  AdminAccess,
  BulkRateLimited,
  PublicAccess,
  SessionAccess,
  SuperAdminAccess,
  TeamMemberAccess,
  ViewerAccess
} from "./Access.js"
import { Auth, type Credential, credentialKey } from "./Auth.js"

/** The routes (`METHOD /declared/path`) of the endpoints annotated `BulkRateLimited`. */
const bulkRoutes = new Set(
  Object.values(Api.groups).flatMap((group) =>
    Object.values(group.endpoints)
      .filter((endpoint) => Context.getOption(endpoint.annotations, BulkRateLimited).pipe(Option.getOrElse(() => false)))
      .map((endpoint) => `${endpoint.method} ${endpoint.path}`)
  )
)

const noCredentials = new Unauthorized({
  message: "Authentication required: send x-api-key, or Authorization: Bearer with organizationSlug"
})
const badCredentials = new Unauthorized({ message: "Invalid, revoked or expired credentials" })

export class Gate extends Effect.Service<Gate>()("Convene/Gate", {
  effect: Effect.gen(function*() {
    const auth = yield* Auth
    const limiter = yield* RateLimiter
    const config = yield* AppConfig

    /** Draws from the caller's buckets; every limited response carries the headers. */
    const limit = (callerKey: string) =>
      Effect.gen(function*() {
        const route = yield* Effect.serviceOption(HttpRouter.RouteContext)
        const routeKey = Option.map(route, (r) => `${r.route.method} ${r.route.path}`)
        const bulk = Option.isSome(routeKey) && bulkRoutes.has(routeKey.value)
        const decision = yield* limiter.take(callerKey, bulk ? [limiter.general, limiter.bulk] : [limiter.general])
        const headers = rateLimitHeaders(decision)
        yield* HttpApp.appendPreResponseHandler((_, response) =>
          Effect.succeed(HttpServerResponse.setHeaders(response, headers))
        )
        const meta = yield* Effect.serviceOption(RequestMeta)
        if (Option.isSome(meta)) {
          meta.value.callerId = callerKey
          if (Option.isSome(routeKey)) meta.value.route = routeKey.value
        }
        if (!decision.allowed) return yield* RateLimited.after(decision.retryAfter)
      })

    const authenticate = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const credential = yield* auth.identify(request.headers)
      const callerKey = credentialKey(credential) ?? `ip:${(yield* currentClient(config, request)).ip}`
      yield* limit(callerKey)
      return { request, credential, callerKey }
    })

    const toCaller = (
      request: HttpServerRequest.HttpServerRequest,
      credential: Credential,
      callerKey: string
    ): Effect.Effect<Caller, Unauthorized | InvalidRequest | Forbidden> => {
      switch (credential._tag) {
        case "Missing":
          return Effect.fail(noCredentials)
        case "Invalid":
          return Effect.fail(badCredentials)
        case "ApiToken":
          return Effect.succeed({
            organizationId: credential.organizationId,
            organizationSlug: credential.organizationSlug,
            role: "Admin",
            actor: { type: "apiKey", id: credential.tokenId },
            userId: Option.none(),
            callerKey
          })
        case "AccessToken": {
          const slug = request.headers["organizationslug"]?.trim()
          if (slug === undefined || slug === "") {
            return Effect.fail(InvalidRequest.at("organizationSlug", "header is required with a Bearer access token"))
          }
          return Effect.flatMap(auth.membership(credential.userId, slug), Option.match({
            onNone: () => Effect.fail(new Forbidden({ message: `Not a member of organization ${slug}` })),
            onSome: (membership) =>
              Effect.succeed<Caller>({
                organizationId: membership.organization_id,
                organizationSlug: membership.slug,
                role: membership.role,
                actor: { type: "user", id: credential.userPublicId },
                userId: Option.some(credential.userId),
                callerKey
              })
          }))
        }
      }
    }

    const caller = (
      required: Role
    ): Effect.Effect<Caller, Unauthorized | InvalidRequest | Forbidden | RateLimited, HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function*() {
        const { callerKey, credential, request } = yield* authenticate
        const caller = yield* toCaller(request, credential, callerKey)
        if (!atLeast(caller.role, required)) {
          return yield* new Forbidden({ message: `This needs the ${required} role or above; the caller is ${caller.role}` })
        }
        return caller
      })

    const session: Effect.Effect<Session, Unauthorized | RateLimited, HttpServerRequest.HttpServerRequest> = Effect.gen(function*() {
      const { callerKey, credential } = yield* authenticate
      switch (credential._tag) {
        case "Missing":
          return yield* noCredentials
        case "Invalid":
          return yield* badCredentials
        case "ApiToken":
          return {
            kind: "apiKey",
            userId: Option.none(),
            apiToken: Option.some({ organizationSlug: credential.organizationSlug }),
            callerKey
          } as const
        case "AccessToken":
          return { kind: "user", userId: Option.some(credential.userId), apiToken: Option.none(), callerKey } as const
      }
    })

    /** Requests without credentials are limited per client IP. */
    const anonymous: Effect.Effect<void, RateLimited, HttpServerRequest.HttpServerRequest> = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      yield* limit(`ip:${(yield* currentClient(config, request)).ip}`)
    })

    return { caller, session, anonymous } as const
  }),
  dependencies: [Auth.Default, RateLimiter.Default]
}) {}

export const AccessLive = Layer.mergeAll(
  Layer.effect(ViewerAccess, Effect.map(Gate, (gate) => ({ apiKey: () => gate.caller("Viewer") }))),
  Layer.effect(TeamMemberAccess, Effect.map(Gate, (gate) => ({ apiKey: () => gate.caller("Team Member") }))),
  Layer.effect(AdminAccess, Effect.map(Gate, (gate) => ({ apiKey: () => gate.caller("Admin") }))),
  Layer.effect(SuperAdminAccess, Effect.map(Gate, (gate) => ({ apiKey: () => gate.caller("Super Admin") }))),
  Layer.effect(SessionAccess, Effect.map(Gate, (gate) => ({ apiKey: () => gate.session }))),
  Layer.effect(PublicAccess, Effect.map(Gate, (gate) => gate.anonymous))
).pipe(Layer.provide(Gate.Default))
