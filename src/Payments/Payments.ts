/** Purchases of ticketed events, refunds and disputes (an extension of the API; docs/integrators.md#payments). */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Changes } from "../Changes/Changes.js"
import { guestChange } from "../Changes/Domain.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { Events } from "../Events/Events.js"
import type { EventRow } from "../Events/EventRow.js"
import { InvalidRequest, NotFound } from "../Domain/Errors.js"
import { onUniqueViolation, orDieOnStorage } from "../Db/SqlErrors.js"
import type { NewPurchase, NewRefund } from "./Domain.js"
import { GuestLinks } from "./GuestLinks.js"
import { PaymentsRepo } from "./PaymentsRepo.js"

const ticketed = (event: EventRow) =>
  event.ticketing_enabled === 1 ? Effect.void : Effect.fail(new InvalidRequest({ message: "The event has no ticketing" }))

export class Payments extends Effect.Service<Payments>()("Convene/Payments", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* PaymentsRepo
    const guests = yield* GuestLinks
    const events = yield* Events
    const ids = yield* Ids
    const changeFeed = yield* Changes

    /** Payments are fields of the guests who hold the items: each of them changed. */
    const paidGuestsChanged = (caller: Caller, event: EventRow, personIds: ReadonlyArray<string>) =>
      changeFeed.record(caller.organizationId, [...new Set(personIds)].map((personId) => guestChange("updated", personId, event.public_id)))

    const purchaseOf = (event: EventRow, purchaseId: string) =>
      repo.purchase({ eventId: event.id, publicId: purchaseId }).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ message: `Purchase ${purchaseId} not found` })),
          onSome: Effect.succeed
        }))
      )

    const purchase = Effect.fn("Payments.purchase")(function*(caller: Caller, eventId: string, input: NewPurchase) {
      const event = yield* events.find(caller, eventId)
      yield* ticketed(event)
      const at = yield* nowIso
      const purchaseId = yield* ids.uuid
      const itemIds = yield* Effect.forEach(input.items, () => ids.uuid)
      const invoiceNumber = input.invoiceNumber ?? `INV-${purchaseId.slice(0, 8).toUpperCase()}`
      return yield* Effect.gen(function*() {
        const links = yield* guests.onList(event.id, caller.organizationId, input.items.map((i) => i.personId))
        const missing = input.items.findIndex((item) => !links.has(item.personId))
        if (missing !== -1) return yield* InvalidRequest.at(`items.${missing}.personId`, "is not on the guest list")
        const id = yield* repo.insertPurchase({ publicId: purchaseId, eventId: event.id, invoiceNumber, at })
        const items = input.items.map((item, i) => ({
          itemId: itemIds[i]!,
          personId: item.personId,
          type: item.type,
          subtotal: item.subtotal,
          tax: item.tax,
          serviceFee: item.serviceFee,
          total: item.subtotal + item.tax + item.serviceFee,
          promoCode: item.promoCode ?? null
        }))
        for (const item of items) {
          yield* repo.insertItem({
            publicId: item.itemId,
            purchase_id: id,
            person_id: links.get(item.personId)!,
            type: item.type,
            subtotal: item.subtotal,
            tax: item.tax,
            service_fee: item.serviceFee,
            total: item.total,
            promo_code: item.promoCode
          })
        }
        yield* paidGuestsChanged(caller, event, items.map((item) => item.personId))
        return { purchaseId, invoiceNumber, items }
      }).pipe(sql.withTransaction, onUniqueViolation(() => new InvalidRequest({ message: "Conflicting purchase; retry" })))
    })

    /** A refund of one item (item-level) or of the whole purchase, never more than is left to refund. */
    const refund = Effect.fn("Payments.refund")(function*(caller: Caller, eventId: string, purchaseId: string, input: NewRefund) {
      const event = yield* events.find(caller, eventId)
      yield* ticketed(event)
      const at = yield* nowIso
      const refundId = yield* ids.uuid
      return yield* Effect.gen(function*() {
        const purchase = yield* purchaseOf(event, purchaseId)
        const [items, refunds] = yield* Effect.all([repo.itemsOfPurchase(purchase.id), repo.refundsOfPurchase(purchase.id)])
        const total = items.reduce((sum, i) => sum + i.total, 0)
        const refunded = refunds.reduce((sum, r) => sum + r.amount, 0)
        let itemId: number | null = null
        let refundable = total - refunded
        if (input.itemId !== undefined) {
          const item = items.find((i) => i.public_id === input.itemId)
          if (item === undefined) return yield* InvalidRequest.at("itemId", "is not an item of this purchase")
          itemId = item.id
          const itemRefunded = refunds.filter((r) => r.item_id === item.id).reduce((sum, r) => sum + r.amount, 0)
          refundable = Math.min(refundable, item.total - itemRefunded)
        }
        if (input.amount > refundable) {
          return yield* InvalidRequest.at("amount", `is more than the ${refundable} cents left to refund`)
        }
        yield* repo.insertRefund({ publicId: refundId, purchaseId: purchase.id, itemId, amount: input.amount, at })
        yield* paidGuestsChanged(caller, event, yield* repo.holders(purchase.id, itemId))
        return { success: true as const, refundId }
      }).pipe(sql.withTransaction, onUniqueViolation(() => new InvalidRequest({ message: "Conflicting refund; retry" })))
    })

    const dispute = Effect.fn("Payments.dispute")(function*(caller: Caller, eventId: string, purchaseId: string) {
      const event = yield* events.find(caller, eventId)
      yield* ticketed(event)
      const at = yield* nowIso
      yield* Effect.gen(function*() {
        const purchase = yield* purchaseOf(event, purchaseId)
        yield* repo.dispute(purchase.id, at)
        // a second dispute of a purchase changes nobody's payment status
        if (purchase.disputed_at === null) yield* paidGuestsChanged(caller, event, yield* repo.holders(purchase.id, null))
      }).pipe(sql.withTransaction, orDieOnStorage)
      return { success: true as const }
    })

    return { purchase, refund, dispute } as const
  }),
  dependencies: [PaymentsRepo.Default, Events.Default, Ids.Default, Changes.Default]
}) {}
