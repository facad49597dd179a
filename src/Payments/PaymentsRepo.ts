/** Purchases, their items and refunds, per event. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/Sqlite.js"

export const PurchaseRow = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  invoice_number: Schema.String,
  updated_at: Schema.String,
  disputed_at: Schema.NullOr(Schema.String)
})
export type PurchaseRow = typeof PurchaseRow.Type

export const ItemRow = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  purchase_id: Schema.Number,
  person_id: Schema.Number,
  type: Schema.String,
  subtotal: Schema.Number,
  tax: Schema.Number,
  service_fee: Schema.Number,
  total: Schema.Number,
  promo_code: Schema.NullOr(Schema.String)
})
export type ItemRow = typeof ItemRow.Type

export const RefundRow = Schema.Struct({
  purchase_id: Schema.Number,
  item_id: Schema.NullOr(Schema.Number),
  amount: Schema.Number
})
export type RefundRow = typeof RefundRow.Type

export interface EventPayments {
  readonly purchases: ReadonlyArray<PurchaseRow>
  readonly items: ReadonlyArray<ItemRow>
  readonly refunds: ReadonlyArray<RefundRow>
}

export class PaymentsRepo extends Effect.Service<PaymentsRepo>()("Convene/PaymentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    const purchases = (eventId: number) =>
      direct.rows<PurchaseRow>(
        sql`SELECT id, public_id, invoice_number, updated_at, disputed_at FROM purchases WHERE event_id = ${eventId} ORDER BY id`
      )
    const items = (eventId: number) =>
      direct.rows<ItemRow>(
        sql`SELECT it.id, it.public_id, it.purchase_id, it.person_id, it.type, it.subtotal, it.tax, it.service_fee, it.total,
              it.promo_code
            FROM purchase_items it JOIN purchases pu ON pu.id = it.purchase_id
            WHERE pu.event_id = ${eventId} ORDER BY it.purchase_id, it.id`
      )
    const refunds = (eventId: number) =>
      direct.rows<RefundRow>(
        sql`SELECT r.purchase_id, r.item_id, r.amount FROM refunds r JOIN purchases pu ON pu.id = r.purchase_id
            WHERE pu.event_id = ${eventId} ORDER BY r.id`
      )

    /** Everything needed to compute the payment fields of an event's guests: three queries. */
    const ofEvent = (eventId: number) =>
      Effect.map(
        Effect.all([purchases(eventId), items(eventId), refunds(eventId)]),
        ([purchases, items, refunds]): EventPayments => ({ purchases, items, refunds })
      )

    const purchase = SqlSchema.findOne({
      Request: Schema.Struct({ eventId: Schema.Number, publicId: Schema.String }),
      Result: PurchaseRow,
      execute: ({ eventId, publicId }) =>
        sql`SELECT id, public_id, invoice_number, updated_at, disputed_at FROM purchases
            WHERE event_id = ${eventId} AND public_id = ${publicId}`
    })

    const insertPurchase = (row: { publicId: string; eventId: number; invoiceNumber: string; at: string }) =>
      sql`INSERT INTO purchases (public_id, event_id, invoice_number, created_at, updated_at)
          VALUES (${row.publicId}, ${row.eventId}, ${row.invoiceNumber}, ${row.at}, ${row.at}) RETURNING id`.pipe(
        Effect.map((rows) => Number(rows[0]!["id"]))
      )

    const insertItem = (row: Omit<ItemRow, "id" | "public_id"> & { publicId: string }) =>
      sql`INSERT INTO purchase_items (public_id, purchase_id, person_id, type, subtotal, tax, service_fee, total, promo_code)
          VALUES (${row.publicId}, ${row.purchase_id}, ${row.person_id}, ${row.type}, ${row.subtotal}, ${row.tax},
                  ${row.service_fee}, ${row.total}, ${row.promo_code})`

    const itemsOfPurchase = SqlSchema.findAll({
      Request: Schema.Number,
      Result: ItemRow,
      execute: (purchaseId) =>
        sql`SELECT id, public_id, purchase_id, person_id, type, subtotal, tax, service_fee, total, promo_code
            FROM purchase_items WHERE purchase_id = ${purchaseId} ORDER BY id`
    })

    const refundsOfPurchase = SqlSchema.findAll({
      Request: Schema.Number,
      Result: RefundRow,
      execute: (purchaseId) => sql`SELECT purchase_id, item_id, amount FROM refunds WHERE purchase_id = ${purchaseId}`
    })

    const insertRefund = (row: { publicId: string; purchaseId: number; itemId: number | null; amount: number; at: string }) =>
      Effect.zipRight(
        sql`INSERT INTO refunds (public_id, purchase_id, item_id, amount, created_at)
            VALUES (${row.publicId}, ${row.purchaseId}, ${row.itemId}, ${row.amount}, ${row.at})`,
        sql`UPDATE purchases SET updated_at = ${row.at} WHERE id = ${row.purchaseId}`
      )

    const dispute = (purchaseId: number, at: string) =>
      sql`UPDATE purchases SET disputed_at = coalesce(disputed_at, ${at}), updated_at = ${at} WHERE id = ${purchaseId}`

    return { ofEvent, purchase, insertPurchase, insertItem, itemsOfPurchase, refundsOfPurchase, insertRefund, dispute } as const
  })
}) {}
