/** Purchases, their items and refunds, per event. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { type EventRowId, type PersonRowId, rowIdColumn } from "../Domain/RowIds.js"

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
  person_id: rowIdColumn.person,
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

/** Purchases of one event with all their items and refunds. */
export interface EventPayments {
  readonly purchases: ReadonlyArray<PurchaseRow>
  readonly items: ReadonlyArray<ItemRow>
  readonly refunds: ReadonlyArray<RefundRow>
}

export class PaymentsRepo extends Effect.Service<PaymentsRepo>()("Convene/PaymentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)

    // The purchases of the event holding an item of one of the persons: all of each such purchase's
    // items and refunds are needed, since a purchase's total and refunds cover every guest in it.
    // The join fixes the order on SQLite (`Dialect.drivingJoin`): from the persons through their
    // items (by index), since the planner would otherwise walk every purchase of the event (25,000
    // cost 30 times as much).
    const purchasesOf = (eventId: EventRowId, personIds: string) =>
      sql`SELECT it.purchase_id FROM ${d.values(personIds, "integer")}
          ${d.drivingJoin} purchase_items it ON it.person_id = j.value
          JOIN purchases pu ON pu.id = it.purchase_id WHERE pu.event_id = ${eventId}`

    /**
     * Everything needed to compute the payment fields of the given persons (by row id) on an
     * event, in three queries: the data of their purchases only, so a list read in batches loads
     * each batch's payments with it, never the whole event's at once.
     */
    const ofPersons = (eventId: EventRowId, personIds: ReadonlyArray<PersonRowId>) => {
      if (personIds.length === 0) return Effect.succeed<EventPayments>({ purchases: [], items: [], refunds: [] })
      const ids = JSON.stringify(personIds)
      return Effect.map(
        Effect.all([
          direct.rows(
            PurchaseRow,
            sql`SELECT id, public_id, invoice_number, updated_at, disputed_at FROM purchases
                WHERE id IN (${purchasesOf(eventId, ids)}) ORDER BY id`
          ),
          direct.rows(
            ItemRow,
            sql`SELECT id, public_id, purchase_id, person_id, type, subtotal, tax, service_fee, total, promo_code
                FROM purchase_items WHERE purchase_id IN (${purchasesOf(eventId, ids)}) ORDER BY purchase_id, id`
          ),
          direct.rows(
            RefundRow,
            sql`SELECT purchase_id, item_id, amount FROM refunds
                WHERE purchase_id IN (${purchasesOf(eventId, ids)}) ORDER BY id`
          )
        ]),
        ([purchases, items, refunds]): EventPayments => ({ purchases, items, refunds })
      )
    }

    const purchase = SqlSchema.findOne({
      Request: Schema.Struct({ eventId: rowIdColumn.event, publicId: Schema.String }),
      Result: PurchaseRow,
      execute: ({ eventId, publicId }) =>
        sql`SELECT id, public_id, invoice_number, updated_at, disputed_at FROM purchases
            WHERE event_id = ${eventId} AND public_id = ${publicId}`
    })

    const insertPurchase = (row: { publicId: string; eventId: EventRowId; invoiceNumber: string; at: string }) =>
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

    /** The personIds of the guests holding a purchase's items (or one item's), each once. */
    const holders = (purchaseId: number, itemId: number | null) =>
      Effect.map(
        sql`SELECT DISTINCT p.public_id FROM purchase_items it JOIN persons p ON p.id = it.person_id
            WHERE it.purchase_id = ${purchaseId} ${itemId === null ? sql.literal("") : sql`AND it.id = ${itemId}`}`,
        (rows) => rows.map((row) => String(row["public_id"]))
      )

    return { ofPersons, purchase, insertPurchase, insertItem, itemsOfPurchase, refundsOfPurchase, insertRefund, dispute, holders } as const
  })
}) {}
