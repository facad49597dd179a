/**
 * The outbox's deliveries as the dispatcher sees them (migration 0012): one row per message to
 * send, with its state (`pending` until `delivered`, `failed` or `cancelled`), its attempts, when the
 * next one is due, its size (`bytes`, migration 0024) and the lease (`claimed_until`, `claimed_by`)
 * of an attempt in progress: what is due, claims, releases and outcomes. What the features ask of
 * the outbox (new deliveries, retries, cancellations, the delivery logs) is `Deliveries`
 * (Deliveries.ts). Only the outbox writes these rows; each channel keeps what it sends in its own
 * tables (webhook messages, emails), which the outbox never reads.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { type DeliveryChannel, LARGE_PAYLOAD_BYTES, type Outcome } from "./Channel.js"

/** A due delivery as a claim looks it up. */
const Due = Schema.Struct({
  id: Schema.Number,
  destination: Schema.String,
  organization_id: Schema.Number,
  next_attempt_at: Schema.Number,
  bytes: Schema.Number
})
const NextDue = Schema.Struct({ at: Schema.NullOr(Schema.Number) })

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
    /**
     * A delivery's destination, the unit of the per-destination share: its channel and destination
     * row (a webhook registration: `webhook:<id>`), or its channel alone when the channel has one
     * destination (`email`, the SMTP server). Read with the due deliveries and matched by
     * `notAtTheirShare`, so it is written here only.
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
     * those `skip` leaves out; with `large` false, large ones are left out (by their `bytes`).
     */
    const due = (channel: DeliveryChannel, now: number, limit: number, large: boolean, skip: AtTheirShare) =>
      Effect.map(
        direct.rows(
          Due,
          sql`SELECT d.id, ${destinationOf} AS destination, d.organization_id, d.next_attempt_at, d.bytes
              FROM outbox_deliveries d
              WHERE d.channel = ${channel} AND d.status = 'pending' AND d.next_attempt_at <= ${now}
                AND (d.claimed_until IS NULL OR d.claimed_until < ${now}) AND ${notAtTheirShare(skip)}
                ${large ? sql.literal("") : sql`AND d.bytes <= ${LARGE_PAYLOAD_BYTES}`}
              ORDER BY d.next_attempt_at, d.id LIMIT ${limit}`
        ),
        (rows) =>
          rows.map((r): DueDelivery => ({
            id: r.id,
            channel,
            destination: r.destination,
            organizationId: r.organization_id,
            dueAt: r.next_attempt_at,
            large: Number(r.bytes) > LARGE_PAYLOAD_BYTES
          }))
      )

    /**
     * When the next delivery of any channel not claimed by an attempt in progress is due, but for
     * those `skip` leaves out; with `large` false, large ones left out.
     */
    const nextDue = (now: number, large: boolean, skip: AtTheirShare) =>
      Effect.map(
        direct.first(
          NextDue,
          sql`SELECT min(d.next_attempt_at) AS at FROM outbox_deliveries d
              WHERE d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < ${now}) AND ${notAtTheirShare(skip)}
                ${large ? sql.literal("") : sql`AND d.bytes <= ${LARGE_PAYLOAD_BYTES}`}`
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
                       LIMIT ${ids.length} ${d.skipLocked})
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

    /** What an attempt of a claimed delivery needs to know of it (none once it is gone; another shape is a defect). */
    const stateQuery = SqlSchema.findOne({
      Request: Schema.Number,
      Result: Schema.Struct({
        status: Schema.String,
        attempts: Schema.Number,
        max_attempts: Schema.Number,
        message_id: Schema.NullOr(Schema.Number),
        webhook_id: Schema.NullOr(Schema.Number)
      }),
      execute: (id) => sql`SELECT status, attempts, max_attempts, message_id, webhook_id FROM outbox_deliveries WHERE id = ${id}`
    })
    const state = (id: number) => stateQuery(id).pipe(Effect.catchTag("ParseError", Effect.die))

    return { due, nextDue, claim, release, record, state } as const
  })
}) {}
