/**
 * The outbox's retention (CONTRACT §18): delivered, failed and cancelled deliveries are kept
 * `OUTBOX_RETENTION` (default 30 days) after they ended (`updated_at`), for the logs, then deleted,
 * with what only they referred to: an email delivery's message (`outbox_emails`) and the invitation
 * that names it, and the webhook messages (and their parts) no delivery refers to any more. Pending
 * deliveries are kept until they end, however old.
 *
 * A fiber owned by the server's scope runs a pass at start and then every tenth of the retention
 * (at most every 10 minutes: src/Runtime/Background.ts's `retentionPause`). A pass deletes the oldest
 * first, in batches of `PRUNE_BATCH` deliveries, each a write transaction of its own, so that the
 * write lock is never held long and writers go on between batches; on either engine. A pass that
 * fails (the database unreachable a while) is logged and the next one tries again
 * (src/Runtime/Background.ts). The admin CLI does not run it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { repeatedly, retentionPause } from "../Runtime/Background.js"
import { AppConfig } from "../Config/AppConfig.js"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"

/** Deliveries deleted per transaction, oldest first. */
export const PRUNE_BATCH = 500

/**
 * Deletes the deliveries that ended before `retention` ago, and what only they referred to, in
 * transactions of `batchSize` deliveries; answers how many deliveries were deleted.
 */
export const pruneOutbox = (retention: Duration.Duration, batchSize = PRUNE_BATCH) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)
    const cutoff = new Date((yield* Clock.currentTimeMillis) - Duration.toMillis(retention)).toISOString()

    /** One batch, in one write transaction: answers how many deliveries it deleted. */
    const batch = Effect.gen(function*() {
      // the oldest ended deliveries (index outbox_deliveries_finished)
      const rows = yield* direct.rows<{ readonly id: number; readonly message_id: number | null }>(
        sql`SELECT id, message_id FROM outbox_deliveries
            WHERE status <> 'pending' AND updated_at < ${cutoff}
            ORDER BY updated_at LIMIT ${batchSize}`
      )
      if (rows.length === 0) return 0
      const ids = d.inValues(JSON.stringify(rows.map((r) => r.id)), "integer")
      // an email's message and its invitation go with it (an email delivery never becomes
      // pending again); a webhook delivery retried meanwhile on PostgreSQL (a single statement,
      // outside the write lock) is pending again, and stays
      yield* direct.run(sql`DELETE FROM invitations WHERE delivery_id IN ${ids}`)
      yield* direct.run(sql`DELETE FROM outbox_emails WHERE delivery_id IN ${ids}`)
      yield* direct.run(sql`DELETE FROM outbox_deliveries WHERE id IN ${ids} AND status <> 'pending'`)
      const messageIds = [...new Set(rows.flatMap((r) => r.message_id === null ? [] : [r.message_id]))]
      if (messageIds.length > 0) {
        // the messages no delivery refers to any more (index outbox_deliveries_message)
        const messages = d.inValues(JSON.stringify(messageIds), "integer")
        const unreferenced = (column: string) =>
          sql`${sql.literal(column)} IN ${messages}
              AND NOT EXISTS (SELECT 1 FROM outbox_deliveries d WHERE d.message_id = ${sql.literal(column)})`
        yield* direct.run(sql`DELETE FROM webhook_message_parts WHERE ${unreferenced("webhook_message_parts.message_id")}`)
        yield* direct.run(sql`DELETE FROM webhook_messages WHERE ${unreferenced("webhook_messages.id")}`)
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
