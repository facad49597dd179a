/**
 * The outbox's retention (CONTRACT §18): delivered, failed and cancelled deliveries are kept
 * `OUTBOX_RETENTION` (default 30 days) after they ended (`updated_at`), for the logs, then deleted,
 * with what only they referred to: an email delivery's message (`outbox_emails`) and the invitation
 * that names it, and the webhook messages (and their parts) no delivery refers to any more. Pending
 * deliveries are kept until they end, however old. What refers to deliveries is in other features'
 * tables, which their owners delete (`DeliveryReferrers`, given by the composition: src/Server.ts).
 *
 * A fiber owned by the server's scope runs a pass at start and then every tenth of the retention
 * (at most every 10 minutes: src/Runtime/Background.ts's `retentionPause`). A pass deletes the oldest
 * first, in batches of `PRUNE_BATCH` deliveries, each a write transaction of its own, so that the
 * write lock is never held long and writers go on between batches; on either engine. A pass that
 * fails (the database unreachable a while) is logged and the next one tries again
 * (src/Runtime/Background.ts). The admin CLI does not run it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { repeatedly, retentionPause } from "../Runtime/Background.js"
import { AppConfig } from "../Config/AppConfig.js"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"

/** What refers to the outbox's deliveries from a feature's tables, deleted with them by their owner. */
export interface DeliveryReferrer {
  /** Deletes what refers to the deliveries `ids`, before they are deleted (in the same transaction). */
  readonly beforeDeliveries?: (ids: ReadonlyArray<number>) => Effect.Effect<void, SqlError>
  /** Deletes the messages of the rows `messageRows`, which no delivery refers to any more (in the same transaction). */
  readonly unreferencedMessages?: (messageRows: ReadonlyArray<number>) => Effect.Effect<void, SqlError>
}

/** The features' referrers: the retention runs them in every batch. */
export class DeliveryReferrers extends Context.Tag("Convene/DeliveryReferrers")<DeliveryReferrers, ReadonlyArray<DeliveryReferrer>>() {
  /** The referrers the given effects make (each from its feature's services). */
  static readonly layer = <R>(...makers: ReadonlyArray<Effect.Effect<DeliveryReferrer, never, R>>): Layer.Layer<DeliveryReferrers, never, R> =>
    Layer.effect(DeliveryReferrers, Effect.all(makers))
}

/** Deliveries deleted per transaction, oldest first. */
export const PRUNE_BATCH = 500

const Ended = Schema.Struct({ id: Schema.Number, message_id: Schema.NullOr(Schema.Number) })

/**
 * Deletes the deliveries that ended before `retention` ago, and what only they referred to, in
 * transactions of `batchSize` deliveries; answers how many deliveries were deleted.
 */
export const pruneOutbox = (retention: Duration.Duration, batchSize = PRUNE_BATCH) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const referrers = yield* DeliveryReferrers
    const d = dialectOf(sql)
    const cutoff = new Date((yield* Clock.currentTimeMillis) - Duration.toMillis(retention)).toISOString()

    /** Which of the given messages a delivery still refers to. */
    const stillReferenced = (messageIds: ReadonlyArray<number>) =>
      SqlSchema.findAll({
        Request: Schema.String,
        Result: Schema.Struct({ message_id: Schema.Number }),
        execute: (json) => sql`SELECT DISTINCT message_id FROM outbox_deliveries WHERE message_id IN ${d.inValues(json, "integer")}`
      })(JSON.stringify(messageIds)).pipe(
        Effect.map((rows) => new Set(rows.map((r) => r.message_id))),
        Effect.catchTag("ParseError", Effect.die)
      )

    /** One batch, in one write transaction: answers how many deliveries it deleted. */
    const batch = Effect.gen(function*() {
      // the oldest ended deliveries (index outbox_deliveries_finished)
      const rows = yield* direct.rows(
        Ended,
        sql`SELECT id, message_id FROM outbox_deliveries
            WHERE status <> 'pending' AND updated_at < ${cutoff}
            ORDER BY updated_at LIMIT ${batchSize}`
      )
      if (rows.length === 0) return 0
      const deliveryIds = rows.map((r) => r.id)
      const ids = d.inValues(JSON.stringify(deliveryIds), "integer")
      // an email's message and its invitation go with it (an email delivery never becomes
      // pending again); a webhook delivery retried meanwhile on PostgreSQL (a single statement,
      // outside the write lock) is pending again, and stays
      for (const referrer of referrers) if (referrer.beforeDeliveries) yield* referrer.beforeDeliveries(deliveryIds)
      yield* direct.run(sql`DELETE FROM outbox_deliveries WHERE id IN ${ids} AND status <> 'pending'`)
      const messageIds = [...new Set(rows.flatMap((r) => r.message_id === null ? [] : [r.message_id]))]
      if (messageIds.length > 0) {
        // the messages no delivery refers to any more (index outbox_deliveries_message)
        const referenced = yield* stillReferenced(messageIds)
        const unreferenced = messageIds.filter((id) => !referenced.has(id))
        if (unreferenced.length > 0) {
          for (const referrer of referrers) if (referrer.unreferencedMessages) yield* referrer.unreferencedMessages(unreferenced)
        }
      }
      return rows.length
    })

    let deleted = 0
    for (;;) {
      const n = yield* sql.withTransaction(batch)
      deleted += n
      if (n < batchSize) return deleted
      // writers waiting for the lock go first
      yield* Effect.yieldNow()
    }
  })

/** The retention's fiber, owned by the server's scope. */
export const OutboxRetentionLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { outboxRetention } = yield* AppConfig
  const pass = pruneOutbox(outboxRetention).pipe(
    Effect.tap((deleted) => deleted === 0 ? Effect.void : Effect.logDebug(`outbox: ${deleted} deliveries past the retention deleted`))
  )
  yield* repeatedly("outbox retention", pass, retentionPause(outboxRetention))
}))
