/** Webhook registration (docs/integrators.md#registering-a-webhook) and the delivery log (docs/integrators.md#the-delivery-log). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { optional } from "../Domain/Fields.js"
import { AdminAccess } from "../Auth/Access.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { Conflict, NotFound } from "../Domain/Errors.js"
import { PayloadTooLarge } from "../Http/Errors.js"
import { Limit, Skip } from "../Http/Params.js"
import { Delivery, DeliveryStatus, Registration, TestDeliveryRequest, TestDeliverySent } from "./Domain.js"

export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("register", "/webhook")
      .setPayload(Registration)
      .addSuccess(Schema.Struct({
        success: Schema.Literal(true),
        secret: Schema.String.annotations({ description: "whsec_<base64>: verifies the webhook-signature header" })
      }))
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "webhooks.register")
      .annotate(OpenApi.Summary, "Register a URL for a notification type; the same URL and type twice is one registration")
  )
  .add(
    HttpApiEndpoint.del("unregister", "/webhook")
      .setPayload(Registration)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(NotFound.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "webhooks.unregister")
      .annotate(OpenApi.Summary, "Delete a registration; its pending deliveries are cancelled")
  )
  .add(
    HttpApiEndpoint.get("sample", "/webhook")
      .addSuccess(Schema.Struct({
        contacts: Schema.Array(Schema.Unknown).annotations({
          description: "One sample EventPerson payload in the configured variant"
        })
      }))
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "webhooks.sample")
      .annotate(OpenApi.Summary, "A sample EventPerson payload")
  )
  .add(
    HttpApiEndpoint.post("test", "/webhook/test")
      .setPayload(TestDeliveryRequest)
      .addSuccess(TestDeliverySent)
      .addError(NotFound.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "webhooks.test")
      .annotate(OpenApi.Summary, "Send a test delivery: a sample notification of the type to that registration (extension)")
      .annotate(
        OpenApi.Description,
        "Sends a sample notification of `type` (the same bodies as real ones, in the configured payload variant; " +
          "for EventPerson the sample GET /webhook shows) to the caller's active registration of `webhook` and `type`. " +
          "It is a real delivery: signed, retried, bounded and logged like any other, its `webhook-id` starting with " +
          "`msg_test_` and its entry in GET /webhook/deliveries marked `test: true`. Answers its `deliveryId`. " +
          "404 when the organization has no active registration of that URL and type (unknown, deleted, or disabled: " +
          "registering it again enables it)."
      )
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/webhook/deliveries")
      .setUrlParams(Schema.Struct({ status: optional(DeliveryStatus), limit: optional(Limit), skip: optional(Skip) }))
      .addSuccess(Schema.Struct({ deliveries: Schema.Array(Delivery), total: Schema.Int, limit: Schema.Int, skip: Schema.Int }))
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "webhooks.deliveries")
      .annotate(OpenApi.Summary, "The delivery log, newest first (extension)")
  )
  .add(
    HttpApiEndpoint.post("retry", "/webhook/deliveries/:deliveryId/retry")
      .setPath(Schema.Struct({ deliveryId: Schema.String }))
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "webhooks.retry")
      .annotate(OpenApi.Summary, "One more attempt, now, for a failed or cancelled delivery (extension)")
  )
  .annotate(OpenApi.Title, "Webhooks")
{}
