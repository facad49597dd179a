/**
 * Team settings › Webhooks (Admin and above, as the webhook API; docs/integrators.md#webhooks, docs/integrators.md#the-dashboard): the same
 * `Registrations` and `DeliveryLog` services as `POST/DELETE /webhook`, `POST /webhook/test`, `GET /webhook/deliveries`
 * and its retry. A signing secret is shown only in the answer to the POST that asks for it: never in
 * a URL, a flash message or a log, and the page is `no-store` like every dashboard page.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { NotFound } from "../Domain/Errors.js"
import { Registration } from "../Webhooks/Domain.js"
import { DeliveryLog } from "../Webhooks/DeliveryLog.js"
import { type RegistrationSummary, Registrations } from "../Webhooks/Registrations.js"
import { type Form, type Viewer, Web } from "./Web.js"
import type { FlashView } from "./Html.js"
import { ConfirmPage } from "./Kit/Confirm.js"
import {
  DELIVERIES_PER_PAGE,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type LogState,
  type RegisterForm,
  webhooksPath,
  WebhooksPage,
  type WebhooksView
} from "./Pages/Webhooks.js"

const decodeRegistration = Schema.decodeUnknownEither(Registration, { errors: "all" })
const isStatus = (value: string | null): value is DeliveryStatus => DELIVERY_STATUSES.some((s) => s === value)

/** The delivery log's place from a query (or a form's hidden fields): anything else is the first page of all. */
const logState = (get: (name: string) => string | null): LogState => {
  const status = get("status")
  const skip = Number(get("skip") ?? "0")
  return { status: isStatus(status) ? status : undefined, skip: Number.isSafeInteger(skip) && skip > 0 ? skip : 0 }
}

const formLogState = (form: Form) => logState((name) => (form.has(name) ? form.get(name) : null))

/** A decoding failure of the register form, as one message per field. */
const registerErrors = (error: ParseResult.ParseError, values: RegisterForm["values"]): RegisterForm["errors"] => {
  const errors: Array<RegisterForm["errors"][number]> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const field = issue.path[0]
    if (field === "webhook" && !errors.some((e) => e.field === "webhook")) {
      errors.push({ field, message: values.webhook === "" ? "Enter the URL to send notifications to." : `The URL ${issue.message}.` })
    }
    if (field === "type" && !errors.some((e) => e.field === "type")) {
      errors.push({ field, message: "Choose what to be told about: EventPerson, GuestList or Event." })
    }
  }
  return errors
}

const describe = (r: Pick<RegistrationSummary, "type" | "url">) => `${r.type} webhook for ${r.url}`

export const WebhooksRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const registrations = yield* Registrations
    const deliveryLog = yield* DeliveryLog
    const { site } = web

    /** The page, with what the request adds (a followed delivery, a secret, the register form). */
    const webhooksPage = (
      viewer: Viewer,
      state: LogState,
      extra: Partial<Pick<WebhooksView, "followed" | "revealed" | "form">> & { flash?: FlashView | null; live?: boolean } = {},
      status = 200
    ) =>
      Effect.gen(function*() {
        const [registered, log] = yield* Effect.all([
          registrations.summaries(viewer.caller.organizationId),
          deliveryLog.deliveries(viewer.caller, { status: state.status, limit: DELIVERIES_PER_PAGE, skip: state.skip })
        ])
        return web.render(
          WebhooksPage({
            site,
            member: viewer.member,
            flash: extra.flash === undefined ? viewer.flash : extra.flash,
            registrations: registered,
            log: { deliveries: log.deliveries, total: log.total, state },
            followed: extra.followed,
            revealed: extra.revealed,
            form: extra.form,
            live: extra.live ?? false
          }),
          status
        )
      })

    /** A registration of the viewer's organization by id; another organization's is unknown, as in the API. */
    const registrationOf = (viewer: Viewer) =>
      Effect.gen(function*() {
        const { registrationId = "" } = yield* HttpRouter.params
        const found = (yield* registrations.summaries(viewer.caller.organizationId)).find((r) => r.id === registrationId)
        if (found === undefined) return yield* new NotFound({ message: `Webhook registration ${registrationId} not found` })
        return found
      })

    yield* router.get(
      "/app/team/webhooks",
      web.page("Admin", (viewer) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const query = new URL(request.url, "http://convene.invalid").searchParams
          const state = logState((name) => query.get(name))
          const deliveryId = query.get("delivery") ?? ""
          // another organization's delivery is an unknown one: the 404 page
          const followed = deliveryId === "" ? undefined : yield* deliveryLog.delivery(viewer.caller, deliveryId)
          return yield* webhooksPage(viewer, state, { followed, live: true })
        }))
    )

    yield* router.post(
      "/app/team/webhooks",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const values = { webhook: form.get("webhook"), type: form.get("type") }
          const first = { status: undefined, skip: 0 }
          const decoded = decodeRegistration(values)
          if (decoded._tag === "Left") {
            return yield* webhooksPage(viewer, first, { flash: null, form: { values, errors: registerErrors(decoded.left, values) } }, 400)
          }
          const input = decoded.right
          const before = (yield* registrations.summaries(viewer.caller.organizationId)).find((r) => r.url === input.webhook && r.type === input.type)
          const registered = yield* registrations.register(viewer.caller, input).pipe(Effect.either)
          if (registered._tag === "Left") {
            const error = registered.left
            // a refused destination (private, loopback, credentials) is the URL's fault; a race is not
            const message = error._tag === "InvalidRequest"
              ? `The URL ${error.issues?.[0]?.message ?? "is refused"}.`
              : "Someone registered it at the same moment. Please try again."
            return yield* webhooksPage(viewer, first, { flash: null, form: { values, errors: [{ field: "webhook", message }] } }, error._tag === "InvalidRequest" ? 400 : 409)
          }
          const what = describe({ type: input.type, url: input.webhook })
          yield* web.flash(
            viewer,
            "success",
            before === undefined
              ? `Registered the ${what}. Set up your receiver with its signing secret (Show secret), then send a test delivery.`
              : before.state === "disabled"
              ? `The ${what} is enabled again: new notifications reach it.`
              : `The ${what} was registered already: nothing changed.`
          )
          return web.redirect("/app/team/webhooks")
        }))
    )

    yield* router.post(
      "/app/team/webhooks/:registrationId/secret",
      web.action("Admin", (viewer) =>
        Effect.gen(function*() {
          const registration = yield* registrationOf(viewer)
          const secret = yield* registrations.secret(viewer.caller, registration.id)
          // answered to this POST only (no redirect, no flash): the secret is never in a URL or stored again
          return yield* webhooksPage(viewer, { status: undefined, skip: 0 }, { flash: null, revealed: { registration, secret } })
        }))
    )

    yield* router.post(
      "/app/team/webhooks/:registrationId/test",
      web.action("Admin", (viewer) =>
        Effect.gen(function*() {
          const registration = yield* registrationOf(viewer)
          const sent = yield* registrations.sendTest(viewer.caller, { webhook: registration.url, type: registration.type }).pipe(
            Effect.either
          )
          if (sent._tag === "Left") {
            // disabled (a 410 Gone answer) or deleted meanwhile: the message says which
            yield* web.flash(viewer, "error", `${sent.left.message}.`)
            return web.redirect("/app/team/webhooks")
          }
          yield* web.flash(viewer, "success", `Test delivery of a sample ${registration.type} notification sent to ${registration.url}.`)
          return web.redirect(webhooksPath({ status: undefined, skip: 0 }, sent.right.deliveryId))
        }))
    )

    yield* router.post(
      "/app/team/webhooks/:registrationId/delete",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const registration = yield* registrationOf(viewer)
          if (form.get("confirm") !== "yes") {
            return web.render(ConfirmPage({
              section: "team",
              site,
              member: viewer.member,
              title: `Delete the ${registration.type} webhook?`,
              message: `${registration.url} gets no more ${registration.type} notifications, and its pending deliveries are cancelled. ` +
                "The delivery log keeps what was sent. You can register the URL again later; it then gets a new signing secret.",
              action: site.href(`/app/team/webhooks/${encodeURIComponent(registration.id)}/delete`),
              confirmLabel: "Delete the webhook",
              cancel: site.href("/app/team/webhooks")
            }))
          }
          const cancelled = yield* registrations.remove(viewer.caller.organizationId, registration.id)
          yield* web.flash(
            viewer,
            "success",
            `Deleted the ${describe(registration)}.` +
              (cancelled === 0 ? "" : ` ${cancelled === 1 ? "1 pending delivery was" : `${cancelled} pending deliveries were`} cancelled.`)
          )
          return web.redirect("/app/team/webhooks")
        }))
    )

    yield* router.post(
      "/app/team/webhooks/deliveries/:deliveryId/retry",
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const { deliveryId = "" } = yield* HttpRouter.params
          const state = formLogState(form)
          const retried = yield* deliveryLog.retry(viewer.caller, deliveryId).pipe(Effect.either)
          if (retried._tag === "Left") {
            if (retried.left._tag === "NotFound") return yield* retried.left
            yield* web.flash(viewer, "error", `${retried.left.message}.`)
            return web.redirect(webhooksPath(state, deliveryId))
          }
          yield* web.flash(viewer, "success", "Retrying the delivery now: one more attempt.")
          return web.redirect(webhooksPath(state, deliveryId))
        }))
    )
  })
)
