/**
 * The outbox's deliveries, whatever their channel (migration 0012): one row per message to send,
 * with its state (`pending` until `delivered`, `failed` or `cancelled`), its attempts, when the next
 * one is due, and the lease (`claimed_until`) of an attempt in progress. Only the outbox writes
 * these rows; each channel keeps what it sends in its own table (webhook messages, emails).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/Sqlite.js"

export type DeliveryChannel = "webhook" | "email"
export const DELIVERY_CHANNELS: ReadonlyArray<DeliveryChannel> = ["webhook", "email"]

export type DeliveryStatus = "pending" | "delivered" | "failed" | "cancelled"

export interface Outcome {
  readonly deliveryId: number
  readonly status: "pending" | "delivered" | "failed"
  /** The receiver's status: an HTTP status, an SMTP reply code; null when none came. */
  readonly statusCode: number | null
  readonly error: string | null
  /** The start of the receiver's answer (null when none came). */
  readonly response: string | null
  readonly nextAttemptAt: number | null
}

/**
 * A delivery whose message is larger than this (in bytes) is large: the dispatcher attempts one
 * large delivery at a time (Dispatcher.ts). Only webhook messages are ever that large.
 */
export const LARGE_PAYLOAD_BYTES = 4 * 1024 * 1024

/** A due delivery: which, by which channel, to which destination (the unit of the fairness caps), and whether it is large. */
export interface DueDelivery {
  readonly id: number
  readonly channel: DeliveryChannel
  readonly destination: string
  readonly dueAt: number
  readonly large: boolean
}

export class OutboxRepo extends Effect.Service<OutboxRepo>()("Convene/OutboxRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    /** A new pending delivery, due at `dueAt`; answers its row id. Runs in the caller's transaction. */
    const insert = (row: {
      readonly publicId: string
      readonly channel: DeliveryChannel
      readonly organizationId: number
      readonly webhook?: { readonly messageId: number; readonly webhookId: number }
      readonly maxAttempts: number
      readonly dueAt: number
      readonly at: string
    }) =>
      direct.run(sql`INSERT INTO outbox_deliveries
            (public_id, channel, organization_id, message_id, webhook_id, status, max_attempts, next_attempt_at, created_at, updated_at)
          VALUES (${row.publicId}, ${row.channel}, ${row.organizationId}, ${row.webhook?.messageId ?? null},
                  ${row.webhook?.webhookId ?? null}, 'pending', ${row.maxAttempts}, ${row.dueAt}, ${row.at}, ${row.at})`)

    /**
     * Pending webhook deliveries in one set-based statement: `rows` is the JSON text of an array of
     * `[publicId, messagePublicId, webhookId]`, inserted in its order. Runs in the caller's transaction.
     */
    const insertWebhookDeliveries = (batch: {
      readonly organizationId: number
      readonly maxAttempts: number
      readonly dueAt: number
      readonly at: string
      readonly rows: string
    }) =>
      direct.run(sql`INSERT INTO outbox_deliveries
            (public_id, channel, organization_id, message_id, webhook_id, status, max_attempts, next_attempt_at, created_at, updated_at)
          SELECT r.value ->> 0, 'webhook', ${batch.organizationId}, m.id, r.value ->> 2, 'pending', ${batch.maxAttempts},
                 ${batch.dueAt}, ${batch.at}, ${batch.at}
          FROM json_each(${batch.rows}) r CROSS JOIN webhook_messages m ON m.public_id = r.value ->> 1
          ORDER BY r.key`)

    /**
     * A channel's due deliveries not claimed by an attempt in progress, oldest due first; with
     * `large` false, large ones are left out (their size is read from the record's header, not
     * from the body).
     */
    const due = (channel: DeliveryChannel, now: number, limit: number, large: boolean) =>
      Effect.map(
        direct.rows<{ id: number; webhook_id: number | null; next_attempt_at: number; bytes: number | null }>(
          sql`SELECT d.id, d.webhook_id, d.next_attempt_at, coalesce(m.payload_bytes, octet_length(m.payload)) AS bytes
              FROM outbox_deliveries d LEFT JOIN webhook_messages m ON m.id = d.message_id
              WHERE d.channel = ${channel} AND d.status = 'pending' AND d.next_attempt_at <= ${now}
                AND (d.claimed_until IS NULL OR d.claimed_until < ${now})
                ${large ? sql.literal("") : sql`AND coalesce(m.payload_bytes, octet_length(m.payload), 0) <= ${LARGE_PAYLOAD_BYTES}`}
              ORDER BY d.next_attempt_at, d.id LIMIT ${limit}`
        ),
        (rows) =>
          rows.map((r): DueDelivery => ({
            id: r.id,
            channel,
            destination: r.webhook_id === null ? channel : `${channel}:${r.webhook_id}`,
            dueAt: r.next_attempt_at,
            large: (r.bytes ?? 0) > LARGE_PAYLOAD_BYTES
          }))
      )

    /**
     * When the next delivery of any channel not claimed by an attempt in progress is due; with
     * `large` false, large ones left out.
     */
    const nextDue = (now: number, large: boolean) =>
      Effect.map(
        direct.first<{ at: number | null }>(
          large
            ? sql`SELECT min(next_attempt_at) AS at FROM outbox_deliveries
                WHERE status = 'pending' AND (claimed_until IS NULL OR claimed_until < ${now})`
            : sql`SELECT min(d.next_attempt_at) AS at FROM outbox_deliveries d LEFT JOIN webhook_messages m ON m.id = d.message_id
                WHERE d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < ${now})
                  AND coalesce(m.payload_bytes, octet_length(m.payload), 0) <= ${LARGE_PAYLOAD_BYTES}`
        ),
        (row) => row?.at ?? null
      )

    const claim = (ids: ReadonlyArray<number>, until: number) =>
      sql`UPDATE outbox_deliveries SET claimed_until = ${until}
          WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) AND status = 'pending'`

    /** Claims left by a previous process (a crash mid-attempt) are released at start. */
    const releaseAllClaims = sql`UPDATE outbox_deliveries SET claimed_until = NULL WHERE claimed_until IS NOT NULL`

    const release = (id: number) => sql`UPDATE outbox_deliveries SET claimed_until = NULL WHERE id = ${id}`

    /** Records an attempt's outcome, unless the delivery was cancelled meanwhile. */
    const record = (outcome: Outcome, at: string) =>
      sql`UPDATE outbox_deliveries
          SET status = ${outcome.status}, attempts = attempts + 1, last_status_code = ${outcome.statusCode},
              last_error = ${outcome.error}, last_response = ${outcome.response},
              next_attempt_at = ${outcome.nextAttemptAt}, claimed_until = NULL, updated_at = ${at},
              delivered_at = ${outcome.status === "delivered" ? at : null}
          WHERE id = ${outcome.deliveryId} AND status = 'pending'`

    /** One more attempt, now, for a failed or cancelled delivery. */
    const retry = (id: number, now: number, at: string) =>
      sql`UPDATE outbox_deliveries SET status = 'pending', max_attempts = attempts + 1, next_attempt_at = ${now},
            claimed_until = NULL, updated_at = ${at}
          WHERE id = ${id} AND status IN ('failed', 'cancelled')`

    /** Ends every pending delivery to a webhook registration as cancelled. */
    const cancelPendingOfWebhook = (webhookId: number, reason: string, at: string) =>
      sql`UPDATE outbox_deliveries SET status = 'cancelled', last_error = ${reason}, next_attempt_at = NULL,
            claimed_until = NULL, updated_at = ${at}
          WHERE webhook_id = ${webhookId} AND status = 'pending'`

    return { insert, insertWebhookDeliveries, due, nextDue, claim, releaseAllClaims, release, record, retry, cancelPendingOfWebhook } as const
  })
}) {}
