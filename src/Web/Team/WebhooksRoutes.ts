/**
 * Team settings › Webhooks (Admin and above, as the webhook API; docs/integrators.md#webhooks,
 * docs/integrators.md#the-dashboard): the same `Registrations` and `DeliveryLog` services as
 * `POST/DELETE /webhook`, `POST /webhook/test`, `GET /webhook/deliveries` and its retry; the
 * register form decoded with the API's `Registration`. A signing secret is shown only in the answer
 * to the POST that asks for it: never in a URL, a flash message or a log, and the page is
 * `no-store` like every dashboard page.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { NotFound } from "../../Domain/Errors.js"
import { DeliveryLog } from "../../Webhooks/DeliveryLog.js"
import { Registration } from "../../Webhooks/Domain.js"
import { type RegistrationSummary, Registrations } from "../../Webhooks/Registrations.js"
import { confirmed, decodeForm, fieldsOf, type FormIssue, pathParams, readQuery } from "../Kit/Form.js"
import type { FlashView } from "../Kit/Layout.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { DELIVERIES_PER_PAGE, LogState, webhooksPath } from "./WebhookLog.js"
import { type RegisterForm, WebhooksPage, type WebhooksView } from "./WebhooksPage.js"

const decodeRegistration = decodeForm(Registration)
const readRegistration = fieldsOf(Schema.Struct({ webhook: Schema.String, type: Schema.String }))
const readLogState = fieldsOf(LogState)
const WEBHOOKS = "/app/team/webhooks"
const FIRST_PAGE: LogState = { status: undefined, skip: 0 }

/** A refused register form, as one message per field. */
const registerErrors = (issues: ReadonlyArray<FormIssue>, values: RegisterForm["values"]): RegisterForm["errors"] =>
  issues.flatMap(({ field, message }): RegisterForm["errors"] =>
    field === "webhook"
      ? [{ field, message: values.webhook === "" ? "Enter the URL to send notifications to." : `The URL ${message}.` }]
      : field === "type"
      ? [{ field, message: "Choose what to be told about: EventPerson, GuestList or Event." }]
      : [])

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
        const { registrationId } = yield* pathParams("registrationId")
        const found = (yield* registrations.summaries(viewer.caller.organizationId)).find((r) => r.id === registrationId)
        if (found === undefined) return yield* new NotFound({ message: `Webhook registration ${registrationId} not found` })
        return found
      })

    yield* router.get(
      WEBHOOKS,
      web.page("Admin", (viewer) =>
        Effect.gen(function*() {
          const { delivery, ...state } = yield* readQuery(Schema.Struct({ ...LogState.fields, delivery: Schema.String }))
          // another organization's delivery is an unknown one: the 404 page
          const followed = delivery === "" ? undefined : yield* deliveryLog.delivery(viewer.caller, delivery)
          return yield* webhooksPage(viewer, state, { followed, live: true })
        }))
    )

    yield* router.post(
      WEBHOOKS,
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const values = readRegistration(form)
          const decoded = decodeRegistration(form)
          if (Either.isLeft(decoded)) {
            return yield* webhooksPage(viewer, FIRST_PAGE, { flash: null, form: { values, errors: registerErrors(decoded.left, values) } }, 400)
          }
          const input = decoded.right
          const before = (yield* registrations.summaries(viewer.caller.organizationId)).find((r) => r.url === input.webhook && r.type === input.type)
          const what = describe({ type: input.type, url: input.webhook })
          return yield* web.perform(viewer, registrations.register(viewer.caller, input), {
            to: WEBHOOKS,
            done: () =>
              before === undefined
                ? `Registered the ${what}. Set up your receiver with its signing secret (Show secret), then send a test delivery.`
                : before.state === "disabled"
                ? `The ${what} is enabled again: new notifications reach it.`
                : `The ${what} was registered already: nothing changed.`,
            // a refused destination (private, loopback, credentials) is the URL's fault; a race is not
            failed: (error) => {
              const message = error._tag === "InvalidRequest"
                ? `The URL ${error.issues?.[0]?.message ?? "is refused"}.`
                : "Someone registered it at the same moment. Please try again."
              const form = { values, errors: [{ field: "webhook" as const, message }] }
              return webhooksPage(viewer, FIRST_PAGE, { flash: null, form }, error._tag === "InvalidRequest" ? 400 : 409)
            }
          })
        }))
    )

    yield* router.post(
      `${WEBHOOKS}/:registrationId/secret`,
      web.action("Admin", (viewer) =>
        Effect.gen(function*() {
          const registration = yield* registrationOf(viewer)
          const secret = yield* registrations.secret(viewer.caller, registration.id)
          // answered to this POST only (no redirect, no flash): the secret is never in a URL or stored again
          return yield* webhooksPage(viewer, FIRST_PAGE, { flash: null, revealed: { registration, secret } })
        }))
    )

    yield* router.post(
      `${WEBHOOKS}/:registrationId/test`,
      web.action("Admin", (viewer) =>
        Effect.gen(function*() {
          const registration = yield* registrationOf(viewer)
          return yield* web.perform(viewer, registrations.sendTest(viewer.caller, { webhook: registration.url, type: registration.type }), {
            to: (sent) => webhooksPath(FIRST_PAGE, sent.deliveryId),
            done: () => `Test delivery of a sample ${registration.type} notification sent to ${registration.url}.`,
            // disabled (a 410 Gone answer) or deleted meanwhile: the message says which
            failed: (error) => web.flashTo(viewer, "error", `${error.message}.`, WEBHOOKS)
          })
        }))
    )

    yield* router.post(
      `${WEBHOOKS}/:registrationId/delete`,
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const registration = yield* registrationOf(viewer)
          if (!confirmed(form)) {
            return web.confirm(viewer, {
              section: "team",
              title: `Delete the ${registration.type} webhook?`,
              message: `${registration.url} gets no more ${registration.type} notifications, and its pending deliveries are cancelled. ` +
                "The delivery log keeps what was sent. You can register the URL again later; it then gets a new signing secret.",
              action: `${WEBHOOKS}/${encodeURIComponent(registration.id)}/delete`,
              confirmLabel: "Delete the webhook",
              cancel: WEBHOOKS
            })
          }
          const cancelled = yield* registrations.remove(viewer.caller.organizationId, registration.id)
          const note = cancelled === 0 ? "" : ` ${cancelled === 1 ? "1 pending delivery was" : `${cancelled} pending deliveries were`} cancelled.`
          return yield* web.flashTo(viewer, "success", `Deleted the ${describe(registration)}.${note}`, WEBHOOKS)
        }))
    )

    yield* router.post(
      `${WEBHOOKS}/deliveries/:deliveryId/retry`,
      web.action("Admin", (viewer, form) =>
        Effect.gen(function*() {
          const { deliveryId } = yield* pathParams("deliveryId")
          return yield* web.perform(viewer, deliveryLog.retry(viewer.caller, deliveryId), {
            to: webhooksPath(readLogState(form), deliveryId),
            done: () => "Retrying the delivery now: one more attempt.",
            failed: (error) => (error._tag === "NotFound" ? Effect.fail(error) : `${error.message}.`)
          })
        }))
    )
  })
)
