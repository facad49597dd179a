/**
 * The organization's public face (CONTRACT §16, docs/integrators.md): `GET /o/<orgSlug>`, a page of
 * its upcoming public events; `GET /o/<orgSlug>/events.ics`, the same events as a calendar feed to
 * subscribe to; `GET /o/<orgSlug>/events.json`, the same as JSON for the organization's own site,
 * readable from any origin. No sign-in; every request draws from its client address's bucket, like
 * the RSVP page. An unknown organization answers 404 on each (the same page for the HTML).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Gate } from "../../Auth/AccessLive.js"
import { eventsFeed } from "../../Calendar/Feed.js"
import { CALENDAR_CONTENT_TYPE } from "../../Calendar/Ics.js"
import type { RateLimited } from "../../Domain/Errors.js"
import { type Listing, OrganizationListing } from "../../Guests/OrganizationListing.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { Web } from "../Kit/Web.js"
import { corsHeaders, etagOf, eventJson, matches, MAX_AGE, preflightHeaders } from "./Feeds.js"
import { OrgNotFoundPage, OrgPage } from "./Page.js"

type Response = HttpServerResponse.HttpServerResponse

export const OrgRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const gate = yield* Gate
    const listing = yield* OrganizationListing
    const origin = yield* PublicOrigin
    const uidHost = new URL(origin.baseUrl).hostname
    const cache = { "cache-control": `public, max-age=${MAX_AGE}` }
    const base = (slug: string) => `/o/${encodeURIComponent(slug)}`
    const eventUrl = (slug: string) => origin.url(`/e/${encodeURIComponent(slug)}`)

    const notFoundPage = web.render(OrgNotFoundPage({ site: web.site }), 404)
    const notFoundJson = HttpServerResponse.unsafeJson({ message: "Organization not found", code: "not_found" }, { status: 404, headers: corsHeaders })
    const notFoundText = HttpServerResponse.text("Organization not found", { status: 404, headers: { ...corsHeaders, "x-content-type-options": "nosniff" } })

    /** The body with its validator; 304 without it when the client holds the same. */
    const conditional = (body: string, contentType: string, headers: Record<string, string>) =>
      Effect.map(HttpServerRequest.HttpServerRequest, (request): Response => {
        const etag = etagOf(body)
        const all = { ...headers, ...cache, etag }
        return matches(request.headers["if-none-match"], etag)
          ? HttpServerResponse.empty({ status: 304, headers: all })
          : HttpServerResponse.text(body, { contentType, headers: all })
      })

    /** The organization's listing, or the answer for an unknown one; each request from its client's bucket. */
    const listed = (
      notFound: Response,
      tooMany: (error: RateLimited) => Response,
      answer: (found: Listing) => Effect.Effect<Response, never, HttpServerRequest.HttpServerRequest>
    ) =>
      Effect.gen(function*() {
        const limited = yield* Effect.either(gate.anonymous)
        if (limited._tag === "Left") {
          return HttpServerResponse.setHeader(tooMany(limited.left), "retry-after", String(limited.left.retryAfter))
        }
        const { slug } = yield* HttpRouter.params
        const found = slug === undefined ? Option.none() : yield* listing.upcoming(slug)
        return Option.isNone(found) ? notFound : yield* answer(found.value)
      }).pipe(web.guarded)

    const tooManyPage = web.tooMany
    const tooManyJson = ({ retryAfter }: RateLimited) =>
      HttpServerResponse.unsafeJson({ message: `Too many requests: retry in ${retryAfter} seconds`, code: "rate_limited" }, { status: 429, headers: corsHeaders })
    const tooManyText = ({ retryAfter }: RateLimited) =>
      HttpServerResponse.text(`Too many requests: retry in ${retryAfter} seconds`, { status: 429, headers: corsHeaders })

    yield* router.get(
      "/o/:slug",
      listed(notFoundPage, tooManyPage, (found) =>
        Effect.succeed(
          web.render(OrgPage({
            site: web.site,
            name: found.organization.name,
            events: found.events,
            eventHref: (slug) => origin.href(`/e/${encodeURIComponent(slug)}`),
            calendarUrl: origin.url(`${base(found.organization.slug)}/events.ics`),
            jsonUrl: origin.url(`${base(found.organization.slug)}/events.json`)
          })).pipe(HttpServerResponse.setHeaders(cache))
        ))
    )

    yield* router.get(
      "/o/:slug/events.ics",
      listed(notFoundText, tooManyText, (found) =>
        conditional(
          eventsFeed({
            name: `${found.organization.name}: events`,
            description: `Upcoming events of ${found.organization.name}: ${origin.url(base(found.organization.slug))}`,
            uidHost,
            events: found.events.map(({ event }) => ({ event, url: eventUrl(event.slug ?? "") }))
          }),
          CALENDAR_CONTENT_TYPE,
          { ...corsHeaders, "x-content-type-options": "nosniff", "content-disposition": `inline; filename="events.ics"` }
        ))
    )

    yield* router.get(
      "/o/:slug/events.json",
      listed(notFoundJson, tooManyJson, (found) =>
        conditional(
          JSON.stringify({ events: found.events.map((listed) => eventJson(listed, eventUrl)) }),
          "application/json",
          { ...corsHeaders, "x-content-type-options": "nosniff" }
        ))
    )

    const preflight = Effect.succeed(HttpServerResponse.empty({ status: 204, headers: preflightHeaders }))
    yield* router.options("/o/:slug/events.json", preflight)
    yield* router.options("/o/:slug/events.ics", preflight)
  })
)

