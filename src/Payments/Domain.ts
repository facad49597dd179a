import * as Schema from "effect/Schema"
import { optional, RequiredText } from "../Domain/Fields.js"

const Cents = Schema.Int.pipe(Schema.between(0, 100_000_000_00, { message: () => "must be a whole number of cents from 0" }))

export const NewPurchase = Schema.Struct({
  invoiceNumber: optional(RequiredText(100)),
  items: Schema.Array(Schema.Struct({
    personId: RequiredText(100),
    type: Schema.Trim.pipe(Schema.pattern(/^[A-Z][A-Z0-9_]{0,49}$/, {
      message: () => "must be an upper-case item type such as TICKET or DONATION"
    })),
    subtotal: Cents,
    tax: Cents,
    serviceFee: Cents,
    promoCode: optional(Schema.NullOr(RequiredText(100)))
  })).pipe(Schema.minItems(1), Schema.maxItems(500))
}).annotations({ identifier: "NewPurchase" })
export type NewPurchase = typeof NewPurchase.Type

export const PurchaseJson = Schema.Struct({
  purchaseId: Schema.String,
  invoiceNumber: Schema.String,
  items: Schema.Array(Schema.Struct({
    itemId: Schema.String,
    personId: Schema.String,
    type: Schema.String,
    subtotal: Schema.Int,
    tax: Schema.Int,
    serviceFee: Schema.Int,
    total: Schema.Int,
    promoCode: Schema.NullOr(Schema.String)
  }))
}).annotations({ identifier: "Purchase" })

export const NewRefund = Schema.Struct({
  amount: Schema.Int.pipe(Schema.greaterThan(0, { message: () => "must be a positive whole number of cents" })),
  itemId: optional(Schema.String)
}).annotations({ identifier: "NewRefund" })
export type NewRefund = typeof NewRefund.Type

/** One item of a purchase, as a guest who holds it sees it. */
export const PaymentItem = Schema.Struct({
  itemId: Schema.String,
  type: Schema.String,
  subtotal: Schema.Int,
  tax: Schema.Int,
  serviceFee: Schema.Int,
  total: Schema.Int,
  promoCode: Schema.NullOr(Schema.String)
}).annotations({ identifier: "PaymentItem" })

/**
 * A purchase as a guest sees it (the Guest object's `payments`): the whole purchase's total and
 * refunds, and only that guest's own items.
 */
export const Payment = Schema.Struct({
  purchaseId: Schema.String,
  invoiceNumber: Schema.String,
  updatedAt: Schema.String,
  total: Schema.Int,
  refundedAmount: Schema.Int,
  refundCount: Schema.Int,
  disputedAt: Schema.NullOr(Schema.String),
  items: Schema.Array(PaymentItem)
}).annotations({ identifier: "Payment" })
export type Payment = typeof Payment.Type

/** A guest's payment state on a ticketed event (the Guest object's `paymentStatus`). */
export const PaymentStatus = Schema.Literal("none", "paid", "refunded", "chargeback")
export type PaymentStatus = typeof PaymentStatus.Type
