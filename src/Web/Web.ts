/**
 * What every dashboard route goes through, so that a page is a thin edge like an API handler
 * (docs/integrators.md#the-dashboard): the caller's rate limit, the session (else the sign-in page), the member's role
 * in the organization they work in, looked up on every request so that a removed member or a
 * changed role takes effect at once, and for every POST the Origin check and the session's CSRF
 * token. The member becomes the same `Caller` the API's handlers get: pages call the same
 * services, with the same roles, history (actor `user`) and notifications.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { VNode } from "preact"
import { renderToString } from "preact-render-to-string"
import { Auth } from "../Auth/Auth.js"
import { sameSecret } from "../Domain/Secrets.js"
import { AppConfig } from "../Config/AppConfig.js"
import type { Caller } from "../Domain/Caller.js"
import { atLeast, type Role } from "../Domain/Role.js"
import { Forbidden, NotFound, RateLimited, Unauthorized } from "../Domain/Errors.js"
import { RequestTimeout } from "../Http/Errors.js"
import { readBoundedText } from "../Http/JsonBody.js"
import { StreamsBusy } from "../Http/StreamSlots.js"
import { currentClient } from "../Http/RequestMeta.js"
import { rateKeyOf } from "../Http/ClientAddress.js"
import { fromOwnPages } from "../Http/SameOrigin.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { rateLimitHeaders } from "../RateLimit/Headers.js"
import { RateLimiter } from "../RateLimit/RateLimiter.js"
import { POOL_BUSY, poolTimedOut } from "../Db/SqlErrors.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { Assets } from "./Assets.js"
import { type FlashView, type Member, MessagePage, type Site } from "./Html.js"
import { Sessions, type WebSession } from "../Auth/Sessions.js"

export const SESSION_COOKIE = "convene_session"
/** The largest form the dashboard reads (uploads have their own limit). */
const MAX_FORM_BYTES = 1_048_576

/** Headers on every page (docs/integrators.md#the-dashboard): no inline script or style, no framing, no sniffing. */
export const pageHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    // event images are the organizers' own URLs; everything of the dashboard itself is same-origin
    "img-src 'self' https: http: data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "no-store"
}

export interface Organization {
  readonly id: OrganizationRowId
  readonly slug: string
  readonly name: string
  readonly role: Role
}

/** The signed-in member, in the organization they work in now. */
export interface Viewer {
  readonly session: WebSession
  readonly organization: Organization
  readonly organizations: ReadonlyArray<Organization>
  /** The same caller an API request of this member would be: services take it. */
  readonly caller: Caller
  /** What the layout shows of the member. */
  readonly member: Member
  readonly flash: FlashView | null
  readonly role: Role
  readonly can: (role: Role) => boolean
}

/** Whoever is signed in, with their organization view when they belong to one. */
export interface SignedInUser {
  readonly session: WebSession
  /** Undefined for a user who belongs to no organization (removed from their last, or not yet joined). */
  readonly viewer: Viewer | undefined
  /** The message left by the last action, shown once. */
  readonly flash: FlashView | null
}

/** A submitted form's fields. */
export interface Form {
  /** The field trimmed (empty when absent). */
  readonly get: (name: string) => string
  /** The field exactly as sent: passwords, where spaces count. */
  readonly raw: (name: string) => string
  readonly getAll: (name: string) => ReadonlyArray<string>
  readonly has: (name: string) => boolean
}

/**
 * A form's fields. U+0000 is dropped from every value: no one types it, no page shows it, and
 * PostgreSQL's text cannot hold it (the API refuses it in bodies and queries instead).
 */
const formOf = (text: string): Form => {
  const params = new URLSearchParams(text.includes("%00") ? text.replace(/%00/g, "") : text)
  return {
    get: (name) => (params.get(name) ?? "").trim(),
    raw: (name) => params.get(name) ?? "",
    getAll: (name) => params.getAll(name).map((v) => v.trim()),
    has: (name) => params.has(name)
  }
}

/** What a handler may fail with; anything else is a defect (a logged 500). */
export type PageError = NotFound | Forbidden | RateLimited | Unauthorized

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

    const viewerOf = (session: WebSession) =>
      Effect.gen(function*() {
        const memberships = yield* auth.memberships(session.userId)
        const all: ReadonlyArray<Organization> = memberships.map((m) => ({
          id: m.organization_id,
          slug: m.slug,
          name: m.name,
          role: m.role
        }))
        const current = all.find((o) => o.id === session.organizationId) ?? all[0]
        if (current === undefined) return Option.none<Viewer>()
        const name = [session.firstName, session.lastName].filter((s) => s !== null && s !== "").join(" ") || session.email
        const caller: Caller = {
          organizationId: current.id,
          organizationSlug: current.slug,
          role: current.role,
          actor: { type: "user", id: session.userPublicId },
          userId: Option.some(session.userId),
          callerKey: `session:${session.publicId}`
        }
        if (session.flash !== null) yield* sessions.clearFlash(session)
        return Option.some<Viewer>({
          session,
          organization: current,
          organizations: all,
          caller,
          member: { name, email: session.email, csrf: session.csrf, role: current.role, organization: current, organizations: all },
          flash: session.flash,
          role: current.role,
          can: (role) => atLeast(current.role, role)
        })
      })

    const messagePage = (viewer: Viewer | undefined, status: number, title: string, message: string) =>
      render(MessagePage({ site, member: viewer?.member, title, message, back: { href: site.href("/app"), label: "Back to the dashboard" } }), status)

    const tooMany = (error: RateLimited) =>
      messagePage(undefined, 429, "Too many requests", `Please wait ${error.retryAfter} seconds and try again.`).pipe(
        HttpServerResponse.setHeader("retry-after", String(error.retryAfter))
      )

    /** Answers the errors a page may end with as pages; the rest stays a defect (a logged 500). */
    const answerErrors = (viewer: Viewer | undefined) =>
    <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>) =>
      Effect.catchAll(effect, (error): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
        switch (error._tag) {
          case "NotFound":
            return Effect.succeed(messagePage(viewer, 404, "Not found", "This page does not exist, or it belongs to another organization."))
          case "Forbidden":
            return Effect.succeed(messagePage(viewer, 403, "Not allowed", `${error.message}. Ask a Super Admin of your organization if you need it.`))
          case "RateLimited":
            return Effect.succeed(tooMany(error))
          case "Unauthorized":
            return Effect.succeed(redirect("/app/login"))
        }
      })

    /**
     * An unexpected failure of a page is logged with its cause (under the request id) and answered
     * as a page with the dashboard's headers, never the API's JSON 500 nor anything of the cause.
     * A form that did not arrive in time (Http/JsonBody.ts) answers 408, and a download that found
     * no free share of the streamed answers (Http/StreamSlots.ts) 503, both without a log.
     */
    const guarded = <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>) =>
      Effect.catchAllCause(effect, (cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : poolTimedOut(cause)
          ? Effect.as(
            Effect.logWarning(POOL_BUSY),
            messagePage(undefined, 503, "Busy", "The service is busy. Please try again in a moment.").pipe(
              HttpServerResponse.setHeader("retry-after", "1")
            )
          )
          : Cause.squash(cause) instanceof RequestTimeout
          ? Effect.succeed(
            messagePage(undefined, 408, "Too slow", "The form did not arrive in time. Please go back and send it again.").pipe(
              HttpServerResponse.setHeader("connection", "close")
            )
          )
          : Cause.squash(cause) instanceof StreamsBusy
          ? Effect.succeed(
            messagePage(undefined, 503, "Busy", "Other downloads are running. Please try again in a moment.").pipe(
              HttpServerResponse.setHeader("retry-after", "5")
            )
          )
          : Effect.as(
            Effect.logError("Unexpected failure", cause),
            messagePage(undefined, 500, "Something went wrong", "The page could not be shown. Please try again; if it keeps happening, tell the person who runs Convene the time it happened.")
          ))

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

    /** Signed in, rate limited, at least `role`; otherwise the sign-in page or a 403 page. */
    const signedIn = <R>(
      role: Role,
      handler: (viewer: Viewer) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) =>
      sessionOrSignIn((session) =>
        Effect.gen(function*() {
          const viewer = yield* viewerOf(session)
          if (Option.isNone(viewer)) {
            return messagePage(undefined, 403, "No organization", "Your account is not a member of any organization any more. Ask a Super Admin to add you again.")
          }
          if (!viewer.value.can(role)) {
            return messagePage(viewer.value, 403, "Not allowed", `This needs the ${role} role or above; you are ${viewer.value.role}.`)
          }
          return yield* answerErrors(viewer.value)(handler(viewer.value))
        }))

    /** A signed-in page (GET). */
    const page = signedIn

    /**
     * A page about the signed-in user rather than an organization (an invitation link): the user
     * needs no membership, so `viewer` is undefined for someone who belongs to no organization.
     */
    const userPage = <R>(
      handler: (user: SignedInUser) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) =>
      sessionOrSignIn((session) =>
        Effect.gen(function*() {
          const viewer = Option.getOrUndefined(yield* viewerOf(session))
          if (viewer === undefined && session.flash !== null) yield* sessions.clearFlash(session)
          return yield* answerErrors(viewer)(handler({ session, viewer, flash: session.flash }))
        }))

    /** A form post of a `userPage`: the same Origin and CSRF checks as `action`. */
    const userAction = <R>(
      handler: (user: SignedInUser, form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) =>
      userPage((user) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!fromOwnPages(request.headers, publicOrigin.webOrigin)) return formExpired(user.viewer)
          const form = yield* readForm
          if (!sameSecret(form.get("_csrf"), user.session.csrf)) return formExpired(user.viewer)
          return yield* handler(user, form)
        }))

    /**
     * A signed-in form post: the Origin (or Referer) must be the service's own and the CSRF token
     * the session's; otherwise 403 and nothing changes. The handler gets the decoded form.
     */
    const action = <R>(
      role: Role,
      handler: (viewer: Viewer, form: Form) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageError, R>
    ) =>
      signedIn(role, (viewer) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!fromOwnPages(request.headers, publicOrigin.webOrigin)) return formExpired(viewer)
          const form = yield* readForm
          if (!sameSecret(form.get("_csrf"), viewer.session.csrf)) return formExpired(viewer)
          return yield* handler(viewer, form)
        }))

    const formExpired = (viewer: Viewer | undefined) =>
      messagePage(viewer, 403, "This form expired", "The form came from another site or an old page. Please go back, reload the page and try again.")

    const readForm = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      readBoundedText(request, MAX_FORM_BYTES).pipe(
        Effect.map(formOf),
        Effect.catchTag("PayloadTooLarge", () => Effect.succeed(formOf(""))),
        // a form that did not arrive in time: answered 408 by `guarded`
        Effect.orDie
      ))

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
