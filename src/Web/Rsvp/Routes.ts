/**
 * `GET` and `POST /rsvp/:slug?invite=<token>`: the page behind every `rsvpLink`, and
 * `GET /rsvp/:slug/calendar.ics?invite=<token>`: the event as a calendar file for that guest
 * (docs/integrators.md#calendar-files-and-tickets), under the same rules (an unknown or withdrawn invite is a 404). Not part of the
 * JSON API (nor of its OpenAPI document): HTML routes on the same router, limited per client IP
 * like every request without credentials. The form is protected against cross-site requests by a
 * double-submit token (a SameSite=Strict cookie matched by a hidden field) and an Origin check.
 * `GET /rsvp/:slug` without an invite leads (303) to the event's public page when it has one
 * (Web/Public/Routes.ts), else it is the same 404.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Gate } from "../../Auth/AccessLive.js"
import { CALENDAR_CONTENT_TYPE, calendarFileName, eventCalendar } from "../../Calendar/Ics.js"
import { AppConfig } from "../../Config/AppConfig.js"
import { Ids } from "../../Domain/Ids.js"
import { rsvpQuestionsOf } from "../../Events/EventJson.js"
import { Events } from "../../Events/Events.js"
import { currentClient } from "../../Http/RequestMeta.js"
import { doorAddress, formatCode, qrDrawing } from "../../Guests/Tickets.js"
import { fromOwnPages } from "../../Http/SameOrigin.js"
import { PublicOrigin } from "../../Runtime/PublicOrigin.js"
import { Web } from "../Kit/Web.js"
import { fieldsOf, paramsOf } from "../Kit/Form.js"
import { pageHeaders } from "../Kit/Headers.js"
import { DIETARY_OPTIONS, GuestMessagePage, InvitationPage } from "./Page.js"
import { type Answer, Rsvp } from "../../Rsvp/Rsvp.js"

const CSRF_COOKIE = "convene_rsvp_csrf"

/** The answer form as the guest's browser sends it (nothing trimmed). */
const AnswerForm = Schema.Struct({
  rsvpStatus: Schema.String,
  dietary: Schema.Array(Schema.String),
  dietaryOther: Schema.String,
  note: Schema.String,
  smsConsentShown: Schema.String,
  smsConsent: Schema.String
})

/** The answers to the event's questions, `answer<i>`. */
const AnswersForm = (questions: number) =>
  Schema.Struct(Object.fromEntries(Array.from({ length: questions }, (_, i) => [`answer${i}`, Schema.String])) as Record<string, typeof Schema.String>)

const isStatus = Schema.is(Schema.Literal("Accepted", "Declined", "Maybe"))

/** The answer in a submitted form, or what is wrong with it. */
export const parseAnswer = (params: UrlParams.UrlParams, questions: number): Answer | string => {
  const sent = paramsOf(new URLSearchParams(params as Array<[string, string]>))
  const form = fieldsOf(AnswerForm)(sent)
  const given = fieldsOf(AnswersForm(questions))(sent)
  if (!isStatus(form.rsvpStatus)) return "Please choose whether you will attend."
  const answers = Array.from({ length: questions }, (_, i) => given[`answer${i}`]!.slice(0, 1000))
  const other = form.dietaryOther.split(",").map((s) => s.trim()).filter((s) => s !== "")
  const dietary = [...form.dietary.filter((d) => (DIETARY_OPTIONS as ReadonlyArray<string>).includes(d)), ...other]
  if (other.some((d) => d.length > 100) || dietary.length > 20) return "Please keep dietary restrictions short."
  if (form.note.length > 2000) return "Please keep the note under 2,000 characters."
  return {
    rsvpStatus: form.rsvpStatus,
    answers,
    dietaryRestrictions: [...new Set(dietary)],
    note: form.note,
    smsConsent: form.smsConsentShown === "1" ? form.smsConsent === "yes" : undefined
  }
}

export const RsvpRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const rsvp = yield* Rsvp
    const events = yield* Events
    const gate = yield* Gate
    const ids = yield* Ids
    const publicOrigin = yield* PublicOrigin
    const web = yield* Web
    // the dashboard's headers (CSP without inline anything, no framing, no-store); the page's URL
    // holds the invite token, and Referrer-Policy same-origin keeps it from image hosts and links
    const html = (page: Parameters<typeof web.render>[0], status = 200) => web.render(page, status)
    const notFound = html(
      GuestMessagePage({
        site: web.site,
        title: "This invitation link does not work",
        message: "The link may be mistyped, or the invitation may have been withdrawn. Please ask the host for a new link."
      }),
      404
    )
    const config = yield* AppConfig
    /** The page's own address, with PUBLIC_BASE_URL's path prefix, for the form and the redirect. */
    const pagePath = (slug: string, token: string) =>
      publicOrigin.href(`/rsvp/${encodeURIComponent(slug)}?invite=${encodeURIComponent(token)}`)
    /** The guest's calendar file of the event. */
    const calendarPath = (slug: string, token: string) =>
      publicOrigin.href(`/rsvp/${encodeURIComponent(slug)}/calendar.ics?invite=${encodeURIComponent(token)}`)
    /** The host part of calendar `UID`s: PUBLIC_BASE_URL's host name (as `Calendar/Ics.ts` asks). */
    const uidHost = new URL(publicOrigin.baseUrl).hostname

    /** The guest's page, with a CSRF token: the one in the cookie, or a new one set with it. */
    const page = (slug: string, token: string, state: { saved: boolean; error?: string }, status = 200) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const invitation = yield* rsvp.view(slug, token)
        if (Option.isNone(invitation)) return notFound
        const existing = request.cookies[CSRF_COOKIE]
        const csrf = existing !== undefined && /^[A-Za-z0-9_-]{32}$/.test(existing) ? existing : yield* ids.secret(24)
        const action = pagePath(slug, token)
        const client = yield* currentClient(config, request)
        const { event, ticket } = invitation.value
        const ticketView = ticket === undefined
          ? undefined
          : { code: formatCode(ticket), qr: qrDrawing(doorAddress(publicOrigin.url, event.public_id, ticket)) }
        return yield* html(InvitationPage({ site: web.site, invitation: invitation.value, state: { ...state, csrf, action, ticket: ticketView, calendar: calendarPath(slug, token) } }), status).pipe(
          HttpServerResponse.setCookie(CSRF_COOKIE, csrf, {
            httpOnly: true,
            sameSite: "strict",
            // Secure when the public address is https, or a trusted proxy says the client used https
            secure: publicOrigin.secure || client.https,
            path: publicOrigin.href("/rsvp"),
            maxAge: "12 hours"
          }),
          Effect.orDie
        )
      })

    /** Every RSVP request draws from the client IP's bucket, like any request without credentials. */
    const limited = <R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>) =>
      gate.anonymous.pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            Effect.succeed(
              html(GuestMessagePage({ site: web.site, title: "Too many requests", message: `Please wait ${error.retryAfter} seconds and try again.` }), 429).pipe(
                HttpServerResponse.setHeader("retry-after", String(error.retryAfter))
              )
            ),
          onSuccess: () => handler
        })
      )

    const invite = Effect.map(HttpServerRequest.ParsedSearchParams, (params) => {
      const value = params["invite"]
      return typeof value === "string" && value !== "" ? value : undefined
    })

    yield* router.get(
      "/rsvp/:slug",
      limited(Effect.gen(function*() {
        const { slug } = yield* HttpRouter.params
        const token = yield* invite
        if (slug === undefined) return notFound
        // without an invite, a public event's address leads to its public page (CONTRACT §16)
        if (token === undefined) {
          const event = yield* events.publicBySlug(slug)
          return Option.isNone(event)
            ? notFound
            : HttpServerResponse.redirect(publicOrigin.href(`/e/${encodeURIComponent(slug)}`), { status: 303, headers: pageHeaders })
        }
        const saved = (yield* HttpServerRequest.ParsedSearchParams)["saved"] === "1"
        return yield* page(slug, token, { saved })
      }))
    )

    yield* router.get(
      "/rsvp/:slug/calendar.ics",
      limited(Effect.gen(function*() {
        const { slug } = yield* HttpRouter.params
        const token = yield* invite
        if (slug === undefined || token === undefined) return notFound
        const invitation = yield* rsvp.view(slug, token)
        if (Option.isNone(invitation)) return notFound
        const { event } = invitation.value
        const text = eventCalendar({ event, uidHost, url: publicOrigin.rsvpLink(event.slug, token) ?? undefined })
        return HttpServerResponse.text(text, { contentType: CALENDAR_CONTENT_TYPE }).pipe(
          HttpServerResponse.setHeaders({
            ...pageHeaders,
            "content-disposition": `attachment; filename="${calendarFileName(event)}"`
          })
        )
      }))
    )

    yield* router.post(
      "/rsvp/:slug",
      limited(Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { slug } = yield* HttpRouter.params
        const token = yield* invite
        if (slug === undefined || token === undefined) return notFound
        const sameOrigin = fromOwnPages(request.headers, publicOrigin.webOrigin)
        const params = yield* request.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty))
        const cookie = request.cookies[CSRF_COOKIE]
        if (!sameOrigin || cookie === undefined || UrlParams.getFirst(params, "csrf").pipe(Option.getOrUndefined) !== cookie) {
          return yield* page(slug, token, { saved: false, error: "This form expired or came from another site. Please check your answer and send it again." }, 403)
        }
        const invitation = yield* rsvp.view(slug, token)
        if (Option.isNone(invitation)) return notFound
        const questions = rsvpQuestionsOf(invitation.value.event).length
        const answer = parseAnswer(params, questions)
        if (typeof answer === "string") return yield* page(slug, token, { saved: false, error: answer }, 400)
        const saved = yield* rsvp.answer(slug, token, answer).pipe(Effect.either)
        if (Either.isLeft(saved)) {
          return yield* page(slug, token, {
            saved: false,
            error: "This invitation has been answered too many times to save another answer. Please contact the organizer."
          }, 409)
        }
        if (Option.isNone(saved.right)) return notFound
        return HttpServerResponse.redirect(
          `${pagePath(slug, token)}&saved=1`,
          { status: 303, headers: pageHeaders }
        )
      }))
    )
  })
)
