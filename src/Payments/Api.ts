/** Purchases, refunds and disputes of ticketed events (an extension of the API, Admin and above; docs/integrators.md#payments). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { AdminAccess } from "../Auth/Access.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { NotFound } from "../Domain/Errors.js"
import { PayloadTooLarge } from "../Http/Errors.js"
import { NewPurchase, NewRefund, PurchaseJson } from "./Domain.js"

const PurchasePath = Schema.Struct({ id: Schema.String, purchaseId: Schema.String })

export class PaymentsApi extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.post("purchase", "/event/:id/purchase")
      .setPath(Schema.Struct({ id: Schema.String }))
      .setPayload(NewPurchase)
      .addSuccess(PurchaseJson)
      .addError(NotFound.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Summary, "Record a purchase for guests of a ticketed event; item total = subtotal + tax + serviceFee")
  )
  .add(
    HttpApiEndpoint.post("refund", "/event/:id/purchase/:purchaseId/refund")
      .setPath(PurchasePath)
      .setPayload(NewRefund)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true), refundId: Schema.String }))
      .addError(NotFound.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Summary, "Refund one item (itemId) or the whole purchase")
  )
  .add(
    HttpApiEndpoint.post("dispute", "/event/:id/purchase/:purchaseId/dispute")
      .setPath(PurchasePath)
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(NotFound.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Summary, "Mark a purchase as disputed (chargeback)")
  )
  .annotate(OpenApi.Title, "Payments")
{}
