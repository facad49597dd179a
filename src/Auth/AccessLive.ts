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
import { currentClient, requestMetaIn } from "../Http/RequestMeta.js"
import { rateKeyOf } from "../Http/ClientAddress.js"
import { rateLimitHeaders } from "../RateLimit/Headers.js"
import { RateLimiter } from "../RateLimit/RateLimiter.js"
import {
  AdminAccess,
  BulkRoutes,
  PublicAccess,
  SessionAccess,
  SuperAdminAccess,
  TeamMemberAccess,
  ViewerAccess
} from "./Access.js"
import { Auth, type Credential, credentialKey } from "./Auth.js"

const noCredentials = new Unauthorized({
  message: "Authentication required: send x-api-key, or Authorization: Bearer with organizationSlug"
})
const badCredentials = new Unauthorized({ message: "Invalid, revoked or expired credentials" })

export class Gate extends Effect.Service<Gate>()("Convene/Gate", {
  effect: Effect.gen(function*() {
    const auth = yield* Auth
    const limiter = yield* RateLimiter
    const config = yield* AppConfig
    const bulkRoutes = yield* BulkRoutes

    const generalOnly = [limiter.general]
    const generalAndBulk = [limiter.general, limiter.bulk]

    /**
     * Draws from the caller's buckets; every limited response carries the headers. The route and
     * the request's log facts are read from the fiber's context in one step (this runs on every
     * request).
     */
    const limit = (callerKey: string): Effect.Effect<void, RateLimited> =>
      Effect.withFiberRuntime((fiber) => {
        const context = fiber.currentContext
        const route = Context.getOption(context, HttpRouter.RouteContext)
        const routeKey = route._tag === "Some" ? `${route.value.route.method} ${route.value.route.path}` : undefined
        const meta = requestMetaIn(context)
        if (meta !== undefined) {
          meta.callerId = callerKey
          if (routeKey !== undefined) meta.route = routeKey
        }
        const drawFrom = routeKey !== undefined && bulkRoutes.has(routeKey) ? generalAndBulk : generalOnly
        return Effect.flatMap(limiter.take(callerKey, drawFrom), (decision) => {
          const headers = rateLimitHeaders(decision)
          // the request lifecycle's handler writes them (one handler per request); else one of their own
          if (meta !== undefined) meta.responseHeaders = headers
          const withHeaders = meta !== undefined
            ? Effect.void
            : HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))
          return decision.allowed ? withHeaders : Effect.zipRight(withHeaders, RateLimited.after(decision.retryAfter))
        })
      })

    const authenticate = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.flatMap(auth.identify(request.headers), (credential) => {
        const key = credentialKey(credential)
        const callerKey = key === undefined
          ? Effect.map(currentClient(config, request), (client) => rateKeyOf(client.ip))
          : Effect.succeed(key)
        return Effect.flatMap(callerKey, (callerKey) => Effect.as(limit(callerKey), { request, credential, callerKey }))
      }))

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
      Effect.flatMap(authenticate, ({ callerKey, credential, request }) =>
        Effect.flatMap(toCaller(request, credential, callerKey), (caller) =>
          atLeast(caller.role, required)
            ? Effect.succeed(caller)
            : Effect.fail(new Forbidden({ message: `This needs the ${required} role or above; the caller is ${caller.role}` }))))

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
      yield* limit(rateKeyOf((yield* currentClient(config, request)).ip))
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
)
