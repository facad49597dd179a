import * as Schema from "effect/Schema"
import { HttpUrl } from "../Domain/Fields.js"

/**
 * The notification types, declared once: registrations accept these, deliveries name them, and
 * each feature enqueues its own. The `webhooks` table's CHECK (migration 0005) allows the same
 * list, so a new type also needs a migration that widens it.
 */
export const webhookTypes = ["EventPerson", "Event", "GuestList"] as const
export const WebhookType = Schema.Literal(...webhookTypes)
export type WebhookType = typeof WebhookType.Type

export const Registration = Schema.Struct({
  webhook: HttpUrl.annotations({ description: "Destination URL (http or https)" }),
  type: WebhookType
}).annotations({
  identifier: "WebhookRegistration",
  examples: [{ webhook: "https://crm.example.com/hooks/convene", type: "EventPerson" }]
})
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
  }),
  test: Schema.Boolean.annotations({
    description: "A test delivery sent by POST /webhook/test (its webhook-id starts with `msg_test_`), not a notification of a change"
  })
}).annotations({
  identifier: "WebhookDelivery",
  examples: [{
    deliveryId: "6f1c2a9e-8d0b-4c53-9a51-3e2f7b7d4c10",
    webhookId: "msg_2b9f0c4e8a1d4f6b9c3e7a5d1f0b2c4e",
    type: "EventPerson",
    webhook: "https://crm.example.com/hooks/convene",
    status: "pending",
    attempts: 2,
    lastStatusCode: 503,
    lastError: "HTTP 503",
    lastResponse: "Service Unavailable",
    createdAt: "2030-05-01T17:30:00.000Z",
    nextAttemptAt: "2030-05-01T17:32:35.000Z",
    registration: "active",
    test: false
  }]
})
export type Delivery = typeof Delivery.Type

/** The `webhook-id` of a test delivery starts with this; a notification's is `msg_` and 32 hex digits. */
export const TEST_MESSAGE_PREFIX = "msg_test_"

export const TestDeliveryRequest = Registration.annotations({
  identifier: "WebhookTestRequest",
  description: "A registered URL and type: a sample notification of that type goes to that registration",
  examples: [{ webhook: "https://crm.example.com/hooks/convene", type: "EventPerson" }]
})

export const TestDeliverySent = Schema.Struct({
  success: Schema.Literal(true),
  deliveryId: Schema.String.annotations({ description: "Follow it in GET /webhook/deliveries (it has `test: true`)" })
}).annotations({
  identifier: "WebhookTestSent",
  examples: [{ success: true, deliveryId: "6f1c2a9e-8d0b-4c53-9a51-3e2f7b7d4c10" }]
})
