/**
 * The payment fields of guests (docs/integrators.md#payments), computed from the purchases, items and refunds of
 * those guests' purchases on an event (`PaymentsRepo.ofPersons`). A purchase can cover several
 * guests: its total and refunds describe the whole purchase and are never summed across guests;
 * each guest sees only their own items.
 */
import type { PersonRowId } from "../Domain/RowIds.js"
import type { Payment, PaymentStatus } from "./Domain.js"
import type { EventPayments, ItemRow } from "./PaymentsRepo.js"

export interface GuestPaymentFields {
  readonly paymentStatus: PaymentStatus
  readonly paymentAmount: number
  readonly donationAmount: number | null
  readonly payments: ReadonlyArray<Payment>
}

export const noPurchase: GuestPaymentFields = { paymentStatus: "none", paymentAmount: 0, donationAmount: null, payments: [] }

const sum = (values: Iterable<number>) => {
  let total = 0
  for (const v of values) total += v
  return total
}

/** Payment fields per person id, for every person holding an item in the given purchases. */
export const guestPayments = (data: EventPayments): Map<PersonRowId, GuestPaymentFields> => {
  const itemsByPurchase = new Map<number, Array<ItemRow>>()
  for (const item of data.items) {
    const list = itemsByPurchase.get(item.purchase_id)
    if (list === undefined) itemsByPurchase.set(item.purchase_id, [item])
    else list.push(item)
  }
  const refundedByPurchase = new Map<number, { amount: number; count: number }>()
  const refundedByItem = new Map<number, number>()
  for (const refund of data.refunds) {
    const p = refundedByPurchase.get(refund.purchase_id) ?? { amount: 0, count: 0 }
    refundedByPurchase.set(refund.purchase_id, { amount: p.amount + refund.amount, count: p.count + 1 })
    if (refund.item_id !== null) refundedByItem.set(refund.item_id, (refundedByItem.get(refund.item_id) ?? 0) + refund.amount)
  }

  const byPerson = new Map<PersonRowId, GuestPaymentFields>()
  const itemsByPerson = new Map<PersonRowId, Array<ItemRow>>()
  for (const item of data.items) {
    const list = itemsByPerson.get(item.person_id)
    if (list === undefined) itemsByPerson.set(item.person_id, [item])
    else list.push(item)
  }
  const purchaseById = new Map(data.purchases.map((p) => [p.id, p]))
  const purchaseTotal = (purchaseId: number) => sum((itemsByPurchase.get(purchaseId) ?? []).map((i) => i.total))

  for (const [personId, items] of itemsByPerson) {
    const itemRefunds = (item: ItemRow) => refundedByItem.get(item.id) ?? 0
    const purchaseIds = [...new Set(items.map((i) => i.purchase_id))]
    const disputed = purchaseIds.some((id) => purchaseById.get(id)?.disputed_at != null)
    const fullyRefunded = items.every((item) => {
      const total = purchaseTotal(item.purchase_id)
      const refundedWhole = total > 0 && (refundedByPurchase.get(item.purchase_id)?.amount ?? 0) >= total
      return refundedWhole || (item.total > 0 && itemRefunds(item) >= item.total)
    })
    const net = (type: string) =>
      sum(items.filter((i) => i.type === type).map((i) => Math.max(0, i.total - itemRefunds(i))))
    const donations = items.filter((i) => i.type === "DONATION")
    byPerson.set(personId, {
      paymentStatus: disputed ? "chargeback" : fullyRefunded ? "refunded" : "paid",
      paymentAmount: net("TICKET"),
      donationAmount: donations.length === 0 ? null : net("DONATION"),
      payments: purchaseIds.map((purchaseId): Payment => {
        const purchase = purchaseById.get(purchaseId)!
        const refunded = refundedByPurchase.get(purchaseId) ?? { amount: 0, count: 0 }
        return {
          purchaseId: purchase.public_id,
          invoiceNumber: purchase.invoice_number,
          updatedAt: purchase.updated_at,
          total: purchaseTotal(purchaseId),
          refundedAmount: refunded.amount,
          refundCount: refunded.count,
          disputedAt: purchase.disputed_at,
          items: items.filter((i) => i.purchase_id === purchaseId).map((i) => ({
            itemId: i.public_id,
            type: i.type,
            subtotal: i.subtotal,
            tax: i.tax,
            serviceFee: i.service_fee,
            total: i.total,
            promoCode: i.promo_code
          }))
        }
      })
    })
  }
  return byPerson
}
