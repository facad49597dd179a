/**
 * The outbox's backlog as `/metrics` shows it (CONTRACT §19), read from the database when scraped:
 * the outbox is shared by every instance on PostgreSQL, so only the database knows all of it
 * (deliveries written by other instances, those a killed instance had claimed), and a scrape every
 * few seconds costs less than keeping counts on every delivery. The queries read pending rows
 * only, through the partial index on them (`outbox_deliveries_due`, migration 0012): their cost
 * follows the backlog, never the delivered history kept for `OUTBOX_RETENTION`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import type { DeliveryChannel } from "./Channel.js"
import { STALE_AFTER } from "./Instances.js"

export const CHANNELS: ReadonlyArray<DeliveryChannel> = ["webhook", "email"]

/** One channel's pending deliveries. */
export interface ChannelBacklog {
  readonly channel: DeliveryChannel
  /** Not yet delivered, failed or cancelled. */
  readonly pending: number
  /** Of those, due now: being attempted, or waiting for a free slot. */
  readonly due: number
  /** Seconds since the oldest pending delivery was written (0 when none is pending). */
  readonly oldestPendingSeconds: number
  /** Seconds since the most overdue delivery came due (0 when none is due): how far the dispatcher lags. */
  readonly oldestDueSeconds: number
}

export interface Backlog {
  readonly channels: ReadonlyArray<ChannelBacklog>
  /** PostgreSQL: the outbox's claimants (instances) whose heartbeat is fresh, and those gone stale. */
  readonly claimants: { readonly live: number; readonly stale: number } | undefined
}

const Row = Schema.Struct({
  channel: Schema.Literal(...CHANNELS),
  pending: Schema.Number,
  due: Schema.NullOr(Schema.Number),
  oldest_created: Schema.NullOr(Schema.String),
  oldest_due: Schema.NullOr(Schema.Number)
})

const Claimants = Schema.Struct({ live: Schema.NullOr(Schema.Number), stale: Schema.NullOr(Schema.Number) })

const seconds = (millis: number) => Math.max(0, millis) / 1000

export class OutboxBacklog extends Effect.Service<OutboxBacklog>()("Convene/OutboxBacklog", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const d = dialectOf(sql)
    const pendingQuery = SqlSchema.findAll({
      Request: Schema.Number,
      Result: Row,
      execute: (now) =>
        sql`SELECT channel, count(*) AS pending, sum(CASE WHEN next_attempt_at <= ${now} THEN 1 ELSE 0 END) AS due,
                   min(created_at) AS oldest_created, min(next_attempt_at) AS oldest_due
            FROM outbox_deliveries WHERE status = 'pending' GROUP BY channel`
    })
    const claimantsQuery = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Claimants,
      execute: () =>
        sql`SELECT sum(CASE WHEN heartbeat_at >= ${d.clockMillis} - ${Duration.toMillis(STALE_AFTER)} THEN 1 ELSE 0 END) AS live,
                   sum(CASE WHEN heartbeat_at < ${d.clockMillis} - ${Duration.toMillis(STALE_AFTER)} THEN 1 ELSE 0 END) AS stale
            FROM outbox_instances`
    })

    /** The backlog now, per channel (every channel, with zeros when it has none). */
    const read: Effect.Effect<Backlog, unknown> = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const rows = yield* pendingQuery(now)
      const channels = CHANNELS.map((channel): ChannelBacklog => {
        const row = rows.find((r) => r.channel === channel)
        if (row === undefined) return { channel, pending: 0, due: 0, oldestPendingSeconds: 0, oldestDueSeconds: 0 }
        const created = row.oldest_created === null ? Number.NaN : Date.parse(row.oldest_created)
        return {
          channel,
          pending: row.pending,
          due: row.due ?? 0,
          oldestPendingSeconds: Number.isNaN(created) ? 0 : seconds(now - created),
          oldestDueSeconds: row.oldest_due === null ? 0 : seconds(now - row.oldest_due)
        }
      })
      if (!d.shared) return { channels, claimants: undefined }
      const [counts] = yield* claimantsQuery(undefined)
      return { channels, claimants: { live: counts?.live ?? 0, stale: counts?.stale ?? 0 } }
    })
    return { read } as const
  })
}) {}
