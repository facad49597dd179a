/**
 * Who holds the outbox's claims, and whether it is alive, without any session state (CONTRACT
 * §15: a restarted database, a failover, a network cut, a pooler in transaction mode).
 *
 * A claim names its claimant (`outbox_deliveries.claimed_by`): this instance under a random name.
 * On PostgreSQL, where other instances share the outbox, the claimant writes its heartbeat
 * (`outbox_instances.heartbeat_at`, by the database's clock) every `HEARTBEAT_EVERY`, each a
 * statement of its own; any instance releases the claims of a claimant whose heartbeat is older
 * than `STALE_AFTER` (a killed instance, or one cut off from the database), so that they are
 * attempted again without waiting for their leases to run out.
 *
 * That release is safe because a claimant stops first. Once no heartbeat of it was written for
 * `FENCE_AFTER` (measured from when the last one written was sent, by this process's clock, so
 * never longer than the database sees), it is fenced: its attempts in flight are interrupted
 * (uncounted), it claims nothing more, and this instance goes on under a new name, which claims
 * again once its own first heartbeat is written. `FENCE_AFTER`, plus the few seconds an
 * interrupted attempt may take to end, is well below `STALE_AFTER`: by the time anyone can see a
 * claimant as stale, none of its attempts runs any more (an SMTP send that the mail library does
 * not abort ends within `WEBHOOK_TIMEOUT` at the latest). A new name, not the old one revived, so
 * that a release that read the old name as stale can never take a claim made after the fence.
 * Claims are made only while the last heartbeat is younger than `CLAIM_WITHIN`.
 *
 * A heartbeat that cannot be written (the database restarting) is logged once and tried again
 * every `HEARTBEAT_EVERY`: the instance resumes claiming by itself as soon as it is written.
 *
 * SQLite: one process owns the file; its claimant is never fenced, writes no heartbeat, and
 * releases every claim at start (those of the process before it, which died with it).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { repeatedly } from "../Runtime/Background.js"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { Ids } from "../Domain/Ids.js"

export const HEARTBEAT_EVERY = Duration.seconds(2)
/** The longest a heartbeat statement is waited for (then it counts as failed, and the next is sent). */
const HEARTBEAT_TIMEOUT = Duration.seconds(4)
/** A claimant with no heartbeat written for this long stops (see the top). */
export const FENCE_AFTER = Duration.seconds(6)
/** New claims only while the last heartbeat written is younger than this. */
const CLAIM_WITHIN = Duration.seconds(4)
/** A claimant whose heartbeat is older than this (by the database's clock) has its claims released by anyone. */
export const STALE_AFTER = Duration.seconds(15)
/** How often the fence is checked. */
const FENCE_CHECK = Duration.millis(250)
/** A claimant's row is deleted once its heartbeat is this old and no claim names it. */
const FORGET_AFTER = Duration.hours(1)

/** This instance under one name: what its claims carry, and the signal that it stopped. */
export interface Claimant {
  readonly id: string
  /** Done once the claimant is fenced: its attempts in flight are interrupted. Never done on SQLite. */
  readonly fenced: Deferred.Deferred<void>
}

export interface ClaimantShape {
  /** The claimant to claim under now; undefined while it may not claim (its heartbeat not fresh). */
  readonly current: Effect.Effect<Claimant | undefined>
  /** At start, before the first claim: SQLite releases every claim (its predecessor's). */
  readonly atStart: Effect.Effect<void, SqlError>
  /** Now and again: PostgreSQL releases the claims of stale claimants (see the top). */
  readonly releaseAbandoned: Effect.Effect<void, SqlError>
}

/** The outbox's claimant for the scope: its heartbeat on PostgreSQL, owned by the scope. */
export const outboxClaimant = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const direct = yield* DirectSql
  const ids = yield* Ids
  const d = dialectOf(sql)
  const named: Effect.Effect<Claimant> = Effect.all({ id: ids.uuid, fenced: Deferred.make<void>() })
  let claimant = yield* named

  if (!d.shared) {
    const shape: ClaimantShape = {
      current: Effect.succeed(claimant),
      atStart: direct.run(sql`UPDATE outbox_deliveries SET claimed_until = NULL, claimed_by = NULL WHERE claimed_until IS NOT NULL`),
      releaseAbandoned: Effect.void
    }
    return shape
  }

  /** When the last heartbeat of `claimant` that was written had been sent (this process's clock); none yet: undefined. */
  let beatSentAt: number | undefined
  let failing = false
  const beat = Effect.gen(function*() {
    const mine = claimant
    const sentAt = yield* Clock.currentTimeMillis
    yield* direct.run(
      sql`INSERT INTO outbox_instances (id, heartbeat_at) VALUES (${mine.id}, ${d.clockMillis})
          ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`
    ).pipe(Effect.timeoutFail({ duration: HEARTBEAT_TIMEOUT, onTimeout: () => new Error("no answer") }))
    if (mine === claimant) beatSentAt = sentAt
    if (failing) {
      failing = false
      yield* Effect.logInfo("Outbox: this instance's heartbeat is written again")
    }
  }).pipe(Effect.catchAllCause((cause) => {
    if (failing) return Effect.void
    failing = true
    return Effect.logWarning(
      `Outbox: this instance's heartbeat could not be written; it claims nothing until it is, tried every ${Duration.format(HEARTBEAT_EVERY)}`,
      cause
    )
  }))

  const fence = Effect.gen(function*() {
    if (beatSentAt === undefined) return
    const now = yield* Clock.currentTimeMillis
    if (now - beatSentAt <= Duration.toMillis(FENCE_AFTER)) return
    const stopped = claimant
    claimant = yield* named
    beatSentAt = undefined
    yield* Deferred.succeed(stopped.fenced, undefined)
    yield* Effect.logWarning(
      `Outbox: no heartbeat written for ${Duration.format(FENCE_AFTER)}; attempts in flight are interrupted (uncounted), ` +
        "and this instance claims again, under a new name, once its heartbeat is written"
    )
  })

  // the first heartbeat before the first claim
  yield* beat
  yield* repeatedly("outbox heartbeat", beat, HEARTBEAT_EVERY)
  yield* repeatedly("outbox fence", fence, FENCE_CHECK)

  const current = Effect.map(Clock.currentTimeMillis, (now) =>
    beatSentAt !== undefined && now - beatSentAt <= Duration.toMillis(CLAIM_WITHIN) ? claimant : undefined)

  /**
   * Releases the claims of stale claimants (their attempts have stopped: see the top), and forgets
   * the claimants long gone that no claim names. A claimant's row is written before its first
   * claim, so a claim never names a claimant this statement does not know.
   */
  const releaseAbandoned = Effect.zipRight(
    direct.run(sql`UPDATE outbox_deliveries SET claimed_until = NULL, claimed_by = NULL
      WHERE claimed_by IN (SELECT id FROM outbox_instances WHERE heartbeat_at < ${d.clockMillis} - ${Duration.toMillis(STALE_AFTER)})`),
    direct.run(sql`DELETE FROM outbox_instances
      WHERE heartbeat_at < ${d.clockMillis} - ${Duration.toMillis(FORGET_AFTER)}
        AND NOT EXISTS (SELECT 1 FROM outbox_deliveries d WHERE d.claimed_by = outbox_instances.id)`)
  )

  const shape: ClaimantShape = { current, atStart: Effect.void, releaseAbandoned }
  return shape
})
