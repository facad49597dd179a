import * as Schema from "effect/Schema"
import { HttpUrl } from "../Domain/Fields.js"
export const WebhookType = Schema.Literal("EventPerson", "Event", "GuestList")

export const Registration = Schema.Struct({
  webhook: HttpUrl.annotations({ description: "Destination URL (http or https)" }),
  type: WebhookType
}).annotations({ identifier: "WebhookRegistration" })
export type Registration = typeof Registration.Type

export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed", "cancelled")

export const Delivery = Schema.Struct({
  deliveryId: Schema.String,
  webhookId: Schema.String.annotations({ description: "The webhook-id header of every attempt of this delivery" }),
  type: WebhookType,
  webhook: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Int,
  lastStatusCode: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String),
  lastResponse: Schema.NullOr(Schema.String).annotations({
    description: "The start of the receiver's answer to the last attempt: at most 1,024 characters of its body (invalid UTF-8 replaced); null when no answer came"
  }),
  createdAt: Schema.String,
  nextAttemptAt: Schema.NullOr(Schema.String),
  registration: Schema.Literal("active", "disabled", "deleted").annotations({
    description: "The registration's state: disabled after a 410 Gone, deleted by DELETE /webhook"
  })
}).annotations({ identifier: "WebhookDelivery" })
