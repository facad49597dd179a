/**
 * What the features ask of the outbox (Channel.ts says what it hands them back): new deliveries,
 * written by the caller's transaction; a retry on request; the cancellation of what is pending to
 * a destination; and the deliveries as their logs and counts show them. Only the outbox writes
 * `outbox_deliveries`: the claims are OutboxRepo.ts's. A delivery's `destinationRow` and
 * `messageRow` are its channel's own rows (columns `webhook_id` and `message_id`), stored and
 * handed back, never read here.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"
import type { DeliveryChannel, DeliveryStatus } from "./Channel.js"

/** A delivery as a log lists it. */
export const LoggedDelivery = Schema.Struct({
  public_id: Schema.String,
  message_row: Schema.NullOr(Schema.Number),
  destination_row: Schema.NullOr(Schema.Number),
  status: Schema.Literal("pending", "delivered", "failed", "cancelled"),
  attempts: Schema.Number,
  last_status_code: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  last_response: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  next_attempt_at: Schema.NullOr(Schema.Number)
})
export type LoggedDelivery = typeof LoggedDelivery.Type

const LOGGED = `public_id, message_id AS message_row, webhook_id AS destination_row, status, attempts, last_status_code,
  last_error, last_response, created_at, next_attempt_at`

/** A `count(*) AS n`, a number on both engines (Db/Postgres.ts reads `bigint` as a number). */
const Count = Schema.transform(Schema.Struct({ n: Schema.Number }), Schema.Number, {
  strict: true,
  decode: ({ n }) => n,
  encode: (n) => ({ n })
})

/** A query of one count (`count(*) AS n`): answers it, 0 when the query gives no row (a row of another shape is a defect). */
const counted = <I, IA, R>(options: {
  readonly Request: Schema.Schema<IA, I, R>
  readonly execute: (request: I) => Effect.Effect<ReadonlyArray<unknown>, SqlError>
}) => {
  const query = SqlSchema.findAll({ Request: options.Request, Result: Count, execute: options.execute })
  return (request: IA) => Effect.map(query(request), (rows) => rows[0] ?? 0).pipe(Effect.catchTag("ParseError", Effect.die))
}

const Counted = Schema.Struct({ destination_row: Schema.Number, status: Schema.String, n: Schema.Number })

export class Deliveries extends Effect.Service<Deliveries>()("Convene/Deliveries", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)

    /** A new pending delivery, due at `dueAt`; answers its row id. Runs in the caller's transaction. */
    const insert = (row: {
      readonly publicId: string
      readonly channel: DeliveryChannel
      readonly organizationId: OrganizationRowId
      readonly maxAttempts: number
      readonly dueAt: number
      readonly at: string
    }) =>
      direct.insert(sql`INSERT INTO outbox_deliveries
            (public_id, channel, organization_id, status, max_attempts, next_attempt_at, created_at, updated_at)
          VALUES (${row.publicId}, ${row.channel}, ${row.organizationId}, 'pending', ${row.maxAttempts}, ${row.dueAt}, ${row.at}, ${row.at})
          RETURNING id`)

    /**
     * Pending deliveries of a channel with destinations of its own, in one set-based statement:
     * `rows` is the JSON text of an array of `[publicId, destinationRow, messageRow, bytes]`,
     * inserted in its order. Runs in the caller's transaction.
     */
    const insertMany = (batch: {
      readonly channel: DeliveryChannel
      readonly organizationId: OrganizationRowId
      readonly maxAttempts: number
      readonly dueAt: number
      readonly at: string
      readonly rows: string
    }) =>
      direct.run(sql`INSERT INTO outbox_deliveries
            (public_id, channel, organization_id, webhook_id, message_id, bytes, status, max_attempts, next_attempt_at, created_at, updated_at)
          SELECT ${d.at(0)}, ${batch.channel}, ${batch.organizationId}, ${d.at(1, "integer")}, ${d.at(2, "integer")}, ${d.at(3, "integer")},
                 'pending', ${batch.maxAttempts}, ${batch.dueAt}, ${batch.at}, ${batch.at}
          FROM ${d.rows(batch.rows)}
          ORDER BY j.key`)

    /** One more attempt, now, for a failed or cancelled delivery. */
    const retry = (id: number, now: number, at: string) =>
      sql`UPDATE outbox_deliveries SET status = 'pending', max_attempts = attempts + 1, next_attempt_at = ${now},
            claimed_until = NULL, claimed_by = NULL, updated_at = ${at}
          WHERE id = ${id} AND status IN ('failed', 'cancelled')`

    /** How many deliveries are pending to a destination. */
    const countPendingTo = counted({
      Request: Schema.Number,
      execute: (destinationRow) => sql`SELECT count(*) AS n FROM outbox_deliveries WHERE webhook_id = ${destinationRow} AND status = 'pending'`
    })

    /** Ends every pending delivery to a destination as cancelled. */
    const cancelPendingTo = (destinationRow: number, reason: string, at: string) =>
      sql`UPDATE outbox_deliveries SET status = 'cancelled', last_error = ${reason}, next_attempt_at = NULL,
            claimed_until = NULL, claimed_by = NULL, updated_at = ${at}
          WHERE webhook_id = ${destinationRow} AND status = 'pending'`

    const countsQuery = SqlSchema.findAll({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, channel: Schema.String }),
      Result: Counted,
      execute: ({ channel, organizationId }) =>
        sql`SELECT webhook_id AS destination_row, status, count(*) AS n FROM outbox_deliveries
            WHERE organization_id = ${organizationId} AND channel = ${channel} AND status IN ('pending', 'failed')
            GROUP BY webhook_id, status`
    })

    /** An organization's deliveries still owed (`pending`) and given up (`failed`), per destination of a channel. */
    const countsByDestination = (organizationId: OrganizationRowId, channel: DeliveryChannel) =>
      Effect.map(countsQuery({ organizationId, channel }).pipe(Effect.catchTag("ParseError", Effect.die)), (rows) => {
        const counts = new Map<number, { pending: number; failed: number }>()
        for (const row of rows) {
          const entry = counts.get(row.destination_row) ?? { pending: 0, failed: 0 }
          if (row.status === "pending") entry.pending = row.n
          else entry.failed = row.n
          counts.set(row.destination_row, entry)
        }
        return counts as ReadonlyMap<number, { readonly pending: number; readonly failed: number }>
      })

    /** A page of an organization's deliveries of a channel, newest first, of one status or all. */
    const log = SqlSchema.findAll({
      Request: Schema.Struct({
        organizationId: rowIdColumn.organization,
        channel: Schema.String,
        status: Schema.NullOr(Schema.String),
        limit: Schema.Number,
        skip: Schema.Number
      }),
      Result: LoggedDelivery,
      execute: ({ channel, limit, organizationId, skip, status }) =>
        sql`SELECT ${sql.literal(LOGGED)} FROM outbox_deliveries
            WHERE organization_id = ${organizationId} AND channel = ${channel} ${status === null ? sql.literal("") : sql`AND status = ${status}`}
            ORDER BY id DESC LIMIT ${limit} OFFSET ${skip}`
    })

    /** One delivery of an organization's channel, as its log lists it. */
    const logged = SqlSchema.findOne({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, channel: Schema.String, publicId: Schema.String }),
      Result: LoggedDelivery,
      execute: ({ channel, organizationId, publicId }) =>
        sql`SELECT ${sql.literal(LOGGED)} FROM outbox_deliveries
            WHERE organization_id = ${organizationId} AND channel = ${channel} AND public_id = ${publicId}`
    })

    /** How many deliveries of an organization's channel there are, of one status or all. */
    const countQuery = counted({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, channel: Schema.String, status: Schema.NullOr(Schema.String) }),
      execute: ({ channel, organizationId, status }) =>
        sql`SELECT count(*) AS n FROM outbox_deliveries
          WHERE organization_id = ${organizationId} AND channel = ${channel} ${status === null ? sql.literal("") : sql`AND status = ${status}`}`
    })
    const count = (organizationId: OrganizationRowId, channel: DeliveryChannel, status: DeliveryStatus | null) =>
      countQuery({ organizationId, channel, status })

    /** A delivery of an organization's channel by its public id: its row id and status. */
    const byPublicId = SqlSchema.findOne({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, channel: Schema.String, publicId: Schema.String }),
      Result: Schema.Struct({ id: Schema.Number, status: Schema.String }),
      execute: ({ channel, organizationId, publicId }) =>
        sql`SELECT id, status FROM outbox_deliveries
            WHERE organization_id = ${organizationId} AND channel = ${channel} AND public_id = ${publicId}`
    })

    // An organization's recent deliveries of a channel, whatever their state (a daily quota: the
    // index `outbox_deliveries_email_quota` of migration 0022 serves the email channel's).

    const recent = Schema.Struct({ organizationId: rowIdColumn.organization, channel: Schema.String, since: Schema.String })

    /** How many deliveries of a channel the organization queued after `since` (an ISO time). */
    const queuedSinceQuery = counted({
      Request: recent,
      execute: ({ channel, organizationId, since }) =>
        sql`SELECT count(*) AS n FROM outbox_deliveries
            WHERE organization_id = ${organizationId} AND channel = ${channel} AND created_at > ${since}`
    })
    const queuedSince = (organizationId: OrganizationRowId, channel: DeliveryChannel, since: string) =>
      queuedSinceQuery({ organizationId, channel, since })

    /** When the `nth` oldest (from 1) of the deliveries of a channel the organization queued after `since` was queued. */
    const nthQueuedSinceQuery = SqlSchema.findOne({
      Request: Schema.Struct({ ...recent.fields, nth: Schema.Number }),
      Result: Schema.Struct({ created_at: Schema.String }),
      execute: ({ channel, nth, organizationId, since }) =>
        sql`SELECT created_at FROM outbox_deliveries
            WHERE organization_id = ${organizationId} AND channel = ${channel} AND created_at > ${since}
            ORDER BY created_at, id LIMIT 1 OFFSET ${nth - 1}`
    })
    const nthQueuedSince = (organizationId: OrganizationRowId, channel: DeliveryChannel, since: string, nth: number) =>
      Effect.map(nthQueuedSinceQuery({ organizationId, channel, since, nth }).pipe(Effect.catchTag("ParseError", Effect.die)), Option.match({
        onNone: () => undefined,
        onSome: (row) => row.created_at
      }))

    return {
      insert,
      insertMany,
      retry,
      countPendingTo,
      cancelPendingTo,
      countsByDestination,
      log,
      logged,
      count,
      byPublicId,
      queuedSince,
      nthQueuedSince
    } as const
  })
}) {}
