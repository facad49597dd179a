/**
 * What every dashboard route goes through, so that a page is a thin edge like an API handler
 * (docs/integrators.md#the-dashboard): the caller's rate limit, the session (else the sign-in page), the member's role
 * in the organization they work in, looked up on every request so that a removed member or a
 * changed role takes effect at once, and for every POST the Origin check and the session's CSRF
 * token. The member becomes the same `Caller` the API's handlers get (Kit/Viewer.ts): pages call
 * the same services, with the same roles, history (actor `user`) and notifications. A form's
 * answer is said with `flashTo`, `perform` and `confirm` (Kit/Action.ts).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { VNode } from "preact"
import { renderToString } from "preact-render-to-string"
import { Auth } from "../../Auth/Auth.js"
import { Sessions, type WebSession } from "../../Auth/Sessions.js"
import { AppConfig } from "../../Config/AppConfig.js"
import { RateLimited } from "../../Domain/Errors.js"
import type { Role } from "../../Domain/Role.js"
import { sameSecret } from "../../Domain/Secrets.js"
import { rateKeyOf } from "../../Http/ClientAddress.js"
import { currentClient } from "../../Http/RequestMeta.js"
import { fromOwnPages } from "../../Http/SameOrigin.js"
import { rateLimitHeaders } from "../../RateLimit/Headers.js"
import { RateLimiter } from "../../RateLimit/RateLimiter.js"
import { dashboardAddressWarning } from "../../Runtime/PublicAddressWarning.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { actionsOf } from "./Action.js"
import { answersOf } from "./Answers.js"
import { Assets } from "./Assets.js"
import { type Form, readForm } from "./Form.js"
import { pageHeaders, SESSION_COOKIE } from "./Headers.js"
import type { FlashView, Site } from "./Layout.js"
import { type PageError, type SignedInUser, type Viewer, viewerOf } from "./Viewer.js"

export class Web extends Effect.Service<Web>()("Convene/Web", {
  effect: Effect.gen(function*() {
    const sessions = yield* Sessions
    const assets = yield* Assets
    const publicOrigin = yield* PublicOrigin
    const limiter = yield* RateLimiter
    const auth = yield* Auth
    const config = yield* AppConfig

    const site: Site = {
      href: publicOrigin.href,
      asset: (name) => publicOrigin.href(`/app/assets/${assets.nameOf(name)}`)
    }

    /** An HTML page with the dashboard's headers. */
    const render = (page: VNode, status = 200) =>
      HttpServerResponse.text(`<!doctype html>${renderToString(page)}`, { contentType: "text/html; charset=utf-8" }).pipe(
        HttpServerResponse.setStatus(status),
        HttpServerResponse.setHeaders(pageHeaders)
      )

    /** After a POST: 303 to a page of the service (with the path prefix). */
    const redirect = (path: string) =>
      HttpServerResponse.empty({ status: 303 }).pipe(
        HttpServerResponse.setHeaders({ ...pageHeaders, location: publicOrigin.href(path) })
      )

    /** The session cookie's attributes (docs/integrators.md#the-dashboard; the path follows PUBLIC_BASE_URL's prefix). */
    const cookieOptions = {
      httpOnly: true,
      sameSite: "lax" as const,
      secure: publicOrigin.secure,
      path: publicOrigin.pathPrefix === "" ? "/" : publicOrigin.pathPrefix
    }

    const withSession = (response: HttpServerResponse.HttpServerResponse, token: string) =>
      HttpServerResponse.setCookie(response, SESSION_COOKIE, token, cookieOptions).pipe(Effect.orDie)

    const withoutSession = (response: HttpServerResponse.HttpServerResponse) =>
      HttpServerResponse.expireCookie(response, SESSION_COOKIE, cookieOptions).pipe(Effect.orDie)

    /** Draws from the caller's bucket, like every API request; pages carry the same headers. */
    const limit = (callerKey: string) =>
      Effect.gen(function*() {
        const decision = yield* limiter.take(callerKey, [limiter.general])
        if (!decision.allowed) return yield* RateLimited.after(decision.retryAfter)
        return rateLimitHeaders(decision)
      })

    const clientKey = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.map(currentClient(config, request), (client) => rateKeyOf(client.ip)))

    /** The session behind the request's cookie, if it is live. */
    const currentSession = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const token = request.cookies[SESSION_COOKIE]
      if (token === undefined || !/^[A-Za-z0-9_-]{43}$/.test(token)) return Option.none<WebSession>()
      return yield* sessions.resume(token)
    })

    const viewer = viewerOf(auth, sessions)

    /** An Admin reaching the dashboard under another host name while PUBLIC_BASE_URL is unset is warned on every page. */
    const withAddressWarning = (found: Viewer) =>
      Effect.map(HttpServerRequest.HttpServerRequest, (request): Viewer => {
        const warning = found.can("Admin") ? dashboardAddressWarning(publicOrigin, request.headers["host"]) : undefined
        return warning === undefined ? found : { ...found, member: { ...found.member, addressWarning: warning } }
      })
    const { answerErrors, formExpired, guarded, messagePage, tooMany } = answersOf({ site, render, redirect })

    /**
     * Rate limited (per session, else per client address) and signed in: the handler gets the live
     * session; without one, the sign-in page, coming back here afterwards.
     */
    const sessionOrSignIn = <R>(
      handler: (session: WebSession) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>
    ) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const session = yield* currentSession
        const headers = yield* limit(Option.match(session, { onNone: () => undefined, onSome: (s) => `session:${s.publicId}` }) ?? (yield* clientKey))
        if (Option.isNone(session)) {
          const params = new URLSearchParams()
          if (request.cookies[SESSION_COOKIE] !== undefined) params.set("expired", "1")
          if (request.method === "GET") params.set("next", publicOrigin.routePath(request.url))
          return yield* withoutSession(redirect(`/app/login${params.size === 0 ? "" : `?${params}`}`))
        }
        return HttpServerResponse.setHeaders(yield* handler(session.value), headers)
      }).pipe(Effect.catchTag("RateLimited", (error) => Effect.succeed(tooMany(error))), guarded)

    /** A signed-in page (GET): rate limited, at least `role`; otherwise the sign-in page or a 403 page. */
    const page = <R>(
      role: Role,
      handler: (viewer: Viewer) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) =>
      sessionOrSignIn((session) =>
        Effect.gen(function*() {
          const found = yield* viewer(session)
          if (Option.isNone(found)) {
            return messagePage(undefined, 403, "No organization", "Your account is not a member of any organization any more. Ask a Super Admin to add you again.")
          }
          if (!found.value.can(role)) {
            return messagePage(found.value, 403, "Not allowed", `This needs the ${role} role or above; you are ${found.value.role}.`)
          }
          return yield* answerErrors(found.value)(handler(yield* withAddressWarning(found.value)))
        }))

    /**
     * A page about the signed-in user rather than an organization (an invitation link): the user
     * needs no membership, so `viewer` is undefined for someone who belongs to no organization.
     */
    const userPage = <R>(
      handler: (user: SignedInUser) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) =>
      sessionOrSignIn((session) =>
        Effect.gen(function*() {
          const found = Option.getOrUndefined(yield* viewer(session))
          if (found === undefined && session.flash !== null) yield* sessions.clearFlash(session)
          return yield* answerErrors(found)(handler({ session, viewer: found, flash: session.flash }))
        }))

    /**
     * The form of a post from the service's own pages (its Origin or Referer) with the session's
     * CSRF token, for `handler`; otherwise 403 and nothing changes.
     */
    const checked = <R>(
      session: WebSession,
      viewer: Viewer | undefined,
      handler: (form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!fromOwnPages(request.headers, publicOrigin.webOrigin)) return formExpired(viewer)
        const form = yield* readForm
        if (!sameSecret(form.get("_csrf"), session.csrf)) return formExpired(viewer)
        return yield* handler(form)
      })

    /** A form post of a `userPage`, checked as `action`'s. */
    const userAction = <R>(
      handler: (user: SignedInUser, form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) => userPage((user) => checked(user.session, user.viewer, (form) => handler(user, form)))

    /** A signed-in form post (at least `role`), from the service's own pages with the session's CSRF token. */
    const action = <R>(
      role: Role,
      handler: (viewer: Viewer, form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) => page(role, (viewer) => checked(viewer.session, viewer, (form) => handler(viewer, form)))

    /** Leaves a message for the next page the member sees. */
    const flash = (viewer: Viewer, kind: FlashView["kind"], message: string) => sessions.flash(viewer.session, { kind, message })

    return {
      site,
      render,
      redirect,
      page,
      action,
      userPage,
      userAction,
      readForm,
      flash,
      ...actionsOf({ site, render, redirect, flash }),
      limit,
      clientKey,
      currentSession,
      withSession,
      withoutSession,
      messagePage,
      formExpired,
      tooMany,
      guarded,
      cookieOptions
    } as const
  }),
  dependencies: [Sessions.Default, Assets.Default, PublicOrigin.Default, RateLimiter.Default]
}) {}
