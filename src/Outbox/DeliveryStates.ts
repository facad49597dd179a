/**
 * The states of deliveries that a feature lists beside rows of its own (an event's invitations:
 * Invitations/InvitationsRepo.ts), read from `outbox_deliveries` here so that only the outbox
 * reads its table (Deliveries.ts writes it). The feature names the deliveries by their row ids,
 * which it keeps: a page's as a list, or all those of a selection of its own rows as a SELECT of
 * their ids, read in the same statement (an event's invitations may be thousands).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"

/** What a listing shows of a delivery: its state, its attempts, its last error, when it was queued and delivered, when it is due. */
export const DeliveryState = Schema.Struct({
  id: Schema.Number,
  status: Schema.String,
  attempts: Schema.Number,
  last_error: Schema.NullOr(Schema.String),
  delivered_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  next_attempt_at: Schema.NullOr(Schema.Number)
})
export type DeliveryState = typeof DeliveryState.Type

const StatusCount = Schema.Struct({ status: Schema.String, n: Schema.Number })

export class DeliveryStates extends Effect.Service<DeliveryStates>()("Convene/DeliveryStates", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)

    /** The states of the given deliveries, by row id (a delivery that is gone is absent). */
    const of = (ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed<ReadonlyMap<number, DeliveryState>>(new Map())
        : Effect.map(
          direct.rows(
            DeliveryState,
            sql`SELECT id, status, attempts, last_error, delivered_at, created_at, next_attempt_at FROM outbox_deliveries
                WHERE id IN ${d.inValues(JSON.stringify(ids), "integer")}`
          ),
          (rows): ReadonlyMap<number, DeliveryState> => new Map(rows.map((row) => [row.id, row]))
        )

    /** How many of the deliveries whose row ids `ids` selects (a SELECT of one column) are in each status. */
    const countByStatus = (ids: Statement.Fragment) =>
      direct.rows(StatusCount, sql`SELECT status, count(*) AS n FROM outbox_deliveries WHERE id IN (${ids}) GROUP BY status`)

    return { of, countByStatus } as const
  })
}) {}
