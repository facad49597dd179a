/**
 * The event's public page (CONTRACT §16; docs/integrators.md#public-event-pages), no sign-in needed:
 * `GET /e/:slug`, its calendar file `GET /e/:slug/calendar.ics` and its registration form
 * `POST /e/:slug/register`, under PUBLIC_BASE_URL's prefix. A private event and an unknown slug
 * answer the same 404 page. Every request draws from the client address's bucket like any request
 * without credentials; a registration also from its own (20 per 10 minutes, a 429 page with
 * `Retry-After` past it). The form is protected against cross-site posting as the RSVP page's is:
 * a SameSite cookie matched by a hidden field, and the Origin check (Http/SameOrigin.ts).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { Gate } from "../../Auth/AccessLive.js"
import { CALENDAR_CONTENT_TYPE, calendarFileName, eventCalendar } from "../../Calendar/Ics.js"
import { AppConfig } from "../../Config/AppConfig.js"
import { Ids } from "../../Domain/Ids.js"
import { currentClient } from "../../Http/RequestMeta.js"
import { fromOwnPages } from "../../Http/SameOrigin.js"
import type { Policy } from "../../RateLimit/Policy.js"
import { RateLimiter } from "../../RateLimit/RateLimiter.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { REGISTRATION_WINDOW_MINUTES, REGISTRATIONS_PER_WINDOW } from "../../SelfRegistration/Domain.js"
import { type PublicEvent, SelfRegistration } from "../../SelfRegistration/SelfRegistration.js"
import { readForm } from "../Kit/Form.js"
import { pageHeaders } from "../Kit/Headers.js"
import { Web } from "../Kit/Web.js"
import { type Done, DonePage } from "./Done.js"
import { TRAP_FIELD } from "./Form.js"
import { readRegistration, valuesOf } from "./Input.js"
import { EventPage, PublicMessage } from "./Page.js"

const CSRF_COOKIE = "convene_public_csrf"

/** Registrations per client address (CONTRACT §16, "Abuse"). */
export const registrationPolicy: Policy = {
  name: "registration",
  capacity: REGISTRATIONS_PER_WINDOW,
  refillPerMillisecond: REGISTRATIONS_PER_WINDOW / (REGISTRATION_WINDOW_MINUTES * 60_000)
}

export const PublicRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const registrations = yield* SelfRegistration
    const gate = yield* Gate
    const limiter = yield* RateLimiter
    const ids = yield* Ids
    const origin = yield* PublicOrigin
    const web = yield* Web
    const config = yield* AppConfig
    const site = web.site
    const uidHost = new URL(origin.baseUrl).hostname
    const path = (slug: string, tail = "") => `/e/${encodeURIComponent(slug)}${tail}`

    const message = (status: number, title: string, text: string, back?: { href: string; label: string }) =>
      web.render(PublicMessage({ site, title, message: text, back, role: status >= 400 ? "alert" : undefined }), status)
    const notFound = message(404, "Page not found", "There is no public event at this address. The link may be mistyped, or the event may no longer be public.")
    const tooMany = (retryAfter: number) =>
      message(429, "Too many requests", `Please wait ${retryAfter} seconds and try again.`).pipe(
        HttpServerResponse.setHeader("retry-after", String(retryAfter))
      )

    /** Every request draws from the client address's bucket, like any request without credentials. */
    const limited = <R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>) =>
      gate.anonymous.pipe(Effect.matchEffect({ onFailure: (error) => Effect.succeed(tooMany(error.retryAfter)), onSuccess: () => handler }))

    /** The page, with a CSRF token: the one in the cookie, or a new one set with it. */
    const eventPage = (slug: string, view: PublicEvent, sent?: { values: Record<string, string>; dietary: ReadonlyArray<string>; errors: Record<string, string> }, status = 200) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const existing = request.cookies[CSRF_COOKIE]
        const csrf = existing !== undefined && /^[A-Za-z0-9_-]{32}$/.test(existing) ? existing : yield* ids.secret(24)
        const client = yield* currentClient(config, request)
        const form = { csrf, action: origin.href(path(slug, "/register")), values: {}, dietary: [], errors: {}, ...sent }
        const page = EventPage({ site, view, url: origin.url(path(slug)), calendar: origin.href(path(slug, "/calendar.ics")), form })
        return yield* web.render(page, status).pipe(
          HttpServerResponse.setCookie(CSRF_COOKIE, csrf, {
            httpOnly: true,
            // Lax, not Strict: a visitor arriving from a link on another site keeps the token other
            // tabs' forms hold (a cross-site POST still carries no Lax cookie)
            sameSite: "lax",
            secure: origin.secure || client.https,
            path: origin.href("/e"),
            maxAge: "12 hours"
          }),
          Effect.orDie
        )
      })

    const slugParam = Effect.map(HttpRouter.params, (params) => params["slug"] ?? "")

    yield* router.get(
      "/e/:slug",
      limited(Effect.gen(function*() {
        const slug = yield* slugParam
        const view = yield* registrations.page(slug)
        return Option.isNone(view) ? notFound : yield* eventPage(slug, view.value)
      }))
    )

    yield* router.get(
      "/e/:slug/calendar.ics",
      limited(Effect.gen(function*() {
        const slug = yield* slugParam
        const view = yield* registrations.page(slug)
        if (Option.isNone(view)) return notFound
        const { event } = view.value
        return HttpServerResponse.text(eventCalendar({ event, uidHost, url: origin.url(path(slug)) }), { contentType: CALENDAR_CONTENT_TYPE }).pipe(
          HttpServerResponse.setHeaders({ ...pageHeaders, "content-disposition": `attachment; filename="${calendarFileName(event)}"` })
        )
      }))
    )

    yield* router.post(
      "/e/:slug/register",
      limited(Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const slug = yield* slugParam
        const client = yield* currentClient(config, request)
        const drawn = yield* limiter.take(`registration:${client.ip}`, [registrationPolicy])
        if (!drawn.allowed) return tooMany(drawn.retryAfter)
        const form = yield* readForm.pipe(Effect.orDie)
        const view = yield* registrations.page(slug)
        if (Option.isNone(view)) return notFound
        const eventUrl = origin.href(path(slug))
        const cookie = request.cookies[CSRF_COOKIE]
        if (!fromOwnPages(request.headers, origin.webOrigin) || cookie === undefined || form.raw("csrf") !== cookie) {
          return message(403, "This form expired", "The form expired or came from another site, so nothing was saved. Please open the event's page and register again.", {
            href: eventUrl,
            label: "Open the event's page"
          })
        }
        const closed = message(409, "Registration is closed", "This event no longer takes registrations, so nothing was saved.", { href: eventUrl, label: "Back to the event" })
        const { event } = view.value
        if (!view.value.open) return closed
        const done = (answer: Done) => web.render(DonePage({ site, eventName: event.name, eventUrl, done: answer }))
        // a filled honeypot: the answer of a success, nothing stored
        if (form.raw(TRAP_FIELD) !== "") return done({ _tag: registrations.emailConfigured ? "CheckEmail" : "Received" })
        const input = readRegistration(event, form)
        if (Either.isLeft(input)) return yield* eventPage(slug, view.value, { ...valuesOf(event, form), errors: input.left }, 400)
        const registered = yield* registrations.register(slug, input.right).pipe(Effect.either)
        if (Either.isLeft(registered)) return closed
        if (Option.isNone(registered.right)) return notFound
        return done(registrations.emailConfigured ? { _tag: "CheckEmail" } : registered.right.value)
      }))
    )
  })
)
