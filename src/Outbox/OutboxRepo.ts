/**
 * The outbox's deliveries, whatever their channel (migration 0012): one row per message to send,
 * with its state (`pending` until `delivered`, `failed` or `cancelled`), its attempts, when the next
 * one is due, and the lease (`claimed_until`, `claimed_by`) of an attempt in progress. Only the outbox writes
 * these rows; each channel keeps what it sends in its own table (webhook messages, emails).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

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

/**
 * A claim's lease: when it runs out (epoch milliseconds), and its claimant (Outbox/Instances.ts).
 * Together they name the claim: an outcome or a release applies only while the row still holds
 * both. A claimant's leases end later and later, so it never names two claims of a row alike.
 */
export interface Lease {
  readonly until: number
  readonly claimant: string
}

/**
 * A due delivery: which, by which channel, to which destination and for which organization (the
 * units of the fairness caps), and whether it is large.
 */
export interface DueDelivery {
  readonly id: number
  readonly channel: DeliveryChannel
  readonly destination: string
  readonly organizationId: number
  readonly dueAt: number
  readonly large: boolean
}

/**
 * Deliveries a look for due ones leaves out: those whose destination or organization already has
 * its share of the attempts in flight (Outbox/Fairness.ts). Left in the query, a backlog of theirs
 * (a slow receiver's, the oldest due) would fill every look and hide everyone else's.
 */
export interface AtTheirShare {
  readonly destinations: ReadonlyArray<string>
  readonly organizationIds: ReadonlyArray<number>
}

export class OutboxRepo extends Effect.Service<OutboxRepo>()("Convene/OutboxRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)
    /** PostgreSQL locks the rows a claim picks, skipping those another claim holds; SQLite has one writer. */
    const skipLocked = sql.onDialectOrElse({ pg: () => sql.literal("FOR UPDATE SKIP LOCKED"), orElse: () => sql.literal("") })
    /** SQLite's CROSS JOIN keeps the JSON rows the outer loop; PostgreSQL's CROSS JOIN takes no ON. */
    const joinMessages = sql.onDialectOrElse({ pg: () => sql.literal("JOIN"), orElse: () => sql.literal("CROSS JOIN") })

    /** A new pending delivery, due at `dueAt`; answers its row id. Runs in the caller's transaction. */
    const insert = (row: {
      readonly publicId: string
      readonly channel: DeliveryChannel
      readonly organizationId: OrganizationRowId
      readonly webhook?: { readonly messageId: number; readonly webhookId: number }
      readonly maxAttempts: number
      readonly dueAt: number
      readonly at: string
    }) =>
      direct.insert(sql`INSERT INTO outbox_deliveries
            (public_id, channel, organization_id, message_id, webhook_id, status, max_attempts, next_attempt_at, created_at, updated_at)
          VALUES (${row.publicId}, ${row.channel}, ${row.organizationId}, ${row.webhook?.messageId ?? null},
                  ${row.webhook?.webhookId ?? null}, 'pending', ${row.maxAttempts}, ${row.dueAt}, ${row.at}, ${row.at}) RETURNING id`)

    /**
     * Pending webhook deliveries in one set-based statement: `rows` is the JSON text of an array of
     * `[publicId, messagePublicId, webhookId]`, inserted in its order. Runs in the caller's transaction.
     */
    const insertWebhookDeliveries = (batch: {
      readonly organizationId: OrganizationRowId
      readonly maxAttempts: number
      readonly dueAt: number
      readonly at: string
      readonly rows: string
    }) =>
      direct.run(sql`INSERT INTO outbox_deliveries
            (public_id, channel, organization_id, message_id, webhook_id, status, max_attempts, next_attempt_at, created_at, updated_at)
          SELECT ${d.at(0)}, 'webhook', ${batch.organizationId}, m.id, ${d.at(2, "integer")}, 'pending', ${batch.maxAttempts},
                 ${batch.dueAt}, ${batch.at}, ${batch.at}
          FROM ${d.rows(batch.rows)} ${joinMessages} webhook_messages m ON m.public_id = ${d.at(1)}
          ORDER BY j.key`)

    /**
     * A delivery's destination, the unit of the per-destination share: its webhook registration
     * (`webhook:<id>`), or the channel's one server (`email`). Read with the due deliveries and
     * matched by `notAtTheirShare`, so it is written here only.
     */
    const destinationOf = sql.literal("CASE WHEN d.webhook_id IS NULL THEN d.channel ELSE d.channel || ':' || d.webhook_id END")

    /** The condition that leaves out the deliveries `skip` names (`1=1` when it names none). */
    const notAtTheirShare = (skip: AtTheirShare) =>
      sql.and([
        ...(skip.destinations.length === 0 ? [] : [sql`${destinationOf} NOT IN ${sql.in(skip.destinations)}`]),
        ...(skip.organizationIds.length === 0 ? [] : [sql`d.organization_id NOT IN ${sql.in(skip.organizationIds)}`])
      ])

    /**
     * A channel's due deliveries not claimed by an attempt in progress, oldest due first, but for
     * those `skip` leaves out; with `large` false, large ones are left out (their size is read from
     * the record's header, not from the body).
     */
    const due = (channel: DeliveryChannel, now: number, limit: number, large: boolean, skip: AtTheirShare) =>
      Effect.map(
        direct.rows<{ id: number; destination: string; organization_id: number; next_attempt_at: number; bytes: number | null }>(
          sql`SELECT d.id, ${destinationOf} AS destination, d.organization_id, d.next_attempt_at,
                coalesce(m.payload_bytes, octet_length(m.payload)) AS bytes
              FROM outbox_deliveries d LEFT JOIN webhook_messages m ON m.id = d.message_id
              WHERE d.channel = ${channel} AND d.status = 'pending' AND d.next_attempt_at <= ${now}
                AND (d.claimed_until IS NULL OR d.claimed_until < ${now}) AND ${notAtTheirShare(skip)}
                ${large ? sql.literal("") : sql`AND coalesce(m.payload_bytes, octet_length(m.payload), 0) <= ${LARGE_PAYLOAD_BYTES}`}
              ORDER BY d.next_attempt_at, d.id LIMIT ${limit}`
        ),
        (rows) =>
          rows.map((r): DueDelivery => ({
            id: r.id,
            channel,
            destination: r.destination,
            organizationId: r.organization_id,
            dueAt: r.next_attempt_at,
            large: (r.bytes ?? 0) > LARGE_PAYLOAD_BYTES
          }))
      )

    /**
     * When the next delivery of any channel not claimed by an attempt in progress is due, but for
     * those `skip` leaves out; with `large` false, large ones left out.
     */
    const nextDue = (now: number, large: boolean, skip: AtTheirShare) =>
      Effect.map(
        direct.first<{ at: number | null }>(
          large
            ? sql`SELECT min(d.next_attempt_at) AS at FROM outbox_deliveries d
                WHERE d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < ${now}) AND ${notAtTheirShare(skip)}`
            : sql`SELECT min(d.next_attempt_at) AS at FROM outbox_deliveries d LEFT JOIN webhook_messages m ON m.id = d.message_id
                WHERE d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < ${now}) AND ${notAtTheirShare(skip)}
                  AND coalesce(m.payload_bytes, octet_length(m.payload), 0) <= ${LARGE_PAYLOAD_BYTES}`
        ),
        (row) => row?.at ?? null
      )

    /**
     * Takes the lease of those of `ids` that are still due and free (pending, due by `now`, not
     * leased or their lease run out), in one statement: their `claimed_until` and `claimed_by`
     * become the lease's end and claimant, which name this claim (`record` and `release` only
     * apply while the row still holds them). Answers the ids claimed; the others were taken,
     * finished or cancelled since they were looked up, and are left alone.
     *
     * Guarantees. PostgreSQL (any number of instances on one database): the subquery locks the
     * rows it picks (`FOR UPDATE SKIP LOCKED`) and the UPDATE sets their lease in the same
     * statement; a row another instance's claim is locking is skipped, and a row whose lease was
     * taken since this statement's snapshot is re-checked against its newest version (READ
     * COMMITTED re-evaluates the subquery's conditions on a locked row) and left out. So two claims
     * never both take a row while a lease runs, whatever their timing: each attempt runs on one
     * instance at a time. A lease that ends (its instance killed mid-attempt, or an attempt
     * running past `WEBHOOK_TIMEOUT` + `LEASE_MARGIN`) makes the row claimable again, by any
     * instance; the instances' clocks are assumed to agree within the margin. A killed or cut-off
     * instance's leases are given back sooner, once its heartbeat is stale (Outbox/Instances.ts),
     * by which time it has stopped its attempts. The attempt itself is at least once, as ever: an
     * attempt whose outcome could not be recorded (the database gone meanwhile) is made again once
     * its lease is released or runs out (receivers deduplicate by
     * `webhook-id`, emails by Message-ID), but only one outcome is recorded. SQLite (one process
     * writes the file): the statement runs under the database's single write lock, the same
     * check-and-set, without row locks (SQLite has no FOR UPDATE, and needs none).
     */
    const claim = (ids: ReadonlyArray<number>, now: number, lease: Lease) =>
      Effect.map(
        sql<{ readonly id: number }>`UPDATE outbox_deliveries SET claimed_until = ${lease.until}, claimed_by = ${lease.claimant}
          WHERE id IN (SELECT id FROM outbox_deliveries
                       WHERE id IN ${d.inValues(JSON.stringify(ids), "integer")} AND status = 'pending' AND next_attempt_at <= ${now}
                         AND (claimed_until IS NULL OR claimed_until < ${now})
                       LIMIT ${ids.length} ${skipLocked})
          RETURNING id`,
        (rows) => new Set(rows.map((r) => Number(r.id)))
      )

    /** Gives back the lease `lease` of a delivery (an attempt interrupted, uncounted), unless it was taken over. */
    const release = (id: number, lease: Lease) =>
      sql`UPDATE outbox_deliveries SET claimed_until = NULL, claimed_by = NULL
          WHERE id = ${id} AND claimed_until = ${lease.until} AND claimed_by = ${lease.claimant}`

    /**
     * Records an attempt's outcome, if its delivery is still pending under the lease `lease` the
     * attempt was claimed with: not when it was cancelled meanwhile, nor when the lease ran out and
     * another claim took the delivery (a late finisher never overwrites its successor). Answers
     * whether it was recorded.
     */
    const record = (outcome: Outcome, lease: Lease, at: string) =>
      Effect.map(
        sql`UPDATE outbox_deliveries
          SET status = ${outcome.status}, attempts = attempts + 1, last_status_code = ${outcome.statusCode},
              last_error = ${outcome.error}, last_response = ${outcome.response},
              next_attempt_at = ${outcome.nextAttemptAt}, claimed_until = NULL, claimed_by = NULL, updated_at = ${at},
              delivered_at = ${outcome.status === "delivered" ? at : null}
          WHERE id = ${outcome.deliveryId} AND status = 'pending' AND claimed_until = ${lease.until}
            AND claimed_by = ${lease.claimant}
          RETURNING id`,
        (rows) => rows.length > 0
      )

    /** One more attempt, now, for a failed or cancelled delivery. */
    const retry = (id: number, now: number, at: string) =>
      sql`UPDATE outbox_deliveries SET status = 'pending', max_attempts = attempts + 1, next_attempt_at = ${now},
            claimed_until = NULL, claimed_by = NULL, updated_at = ${at}
          WHERE id = ${id} AND status IN ('failed', 'cancelled')`

    /** Ends every pending delivery to a webhook registration as cancelled. */
    const cancelPendingOfWebhook = (webhookId: number, reason: string, at: string) =>
      sql`UPDATE outbox_deliveries SET status = 'cancelled', last_error = ${reason}, next_attempt_at = NULL,
            claimed_until = NULL, claimed_by = NULL, updated_at = ${at}
          WHERE webhook_id = ${webhookId} AND status = 'pending'`

    return {
      insert,
      insertWebhookDeliveries,
      due,
      nextDue,
      claim,
      release,
      record,
      retry,
      cancelPendingOfWebhook
    } as const
  })
}) {}
