/**
 * The outbox dispatcher alone (src/Outbox/Dispatcher.ts), over an outbox held in memory and
 * channels of the test's own, under TestClock (stub layers: test/support/TestLayer.ts): the
 * fairness shares (a destination at most a quarter of the slots, an organization at most half,
 * whatever their backlog), the claimer waking when a retry falls due (Outbox/Retry.ts: the
 * schedule, its jitter, and `failed` when attempts run out or the failure is permanent), and a
 * shutdown that gives back what it claimed and did not finish. The same over the database and
 * real receivers: test/repo/outbox.test.ts, test/slow/webhooks-pool.test.ts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Layer, Option, Scope, TestClock } from "effect"
import { AppConfig } from "../../src/Config/AppConfig.js"
import * as Sqlite from "../../src/Db/Sqlite.js"
import { Ids } from "../../src/Domain/Ids.js"
import type { Attempt, Channel, DeliveryChannel, Outcome } from "../../src/Outbox/Channel.js"
import { dispatch } from "../../src/Outbox/Dispatcher.js"
import { perDestination, perOrganization } from "../../src/Outbox/Fairness.js"
import { type AtTheirShare, type Lease, OutboxRepo } from "../../src/Outbox/OutboxRepo.js"
import { afterFailure, maxAttemptsOf } from "../../src/Outbox/Retry.js"
import { OutboxWakeups } from "../../src/Outbox/Wakeups.js"
import { makeTestLayer } from "../support/TestLayer.js"
import { configFrom } from "../support/TestServer.js"

interface Row {
  readonly id: number
  readonly channel: DeliveryChannel
  readonly destination: string
  readonly organizationId: number
  readonly maxAttempts: number
  dueAt: number
  lease: Lease | null
  status: "pending" | "delivered" | "failed"
  attempts: number
}

/** An outbox in memory, answering as OutboxRepo answers over the database (SQLite: one process). */
const memoryOutbox = () => {
  const rows: Array<Row> = []
  const released: Array<number> = []
  const free = (row: Row, now: number) => row.status === "pending" && row.dueAt <= now && (row.lease === null || row.lease.until < now)
  const shown = (row: Row, skip: AtTheirShare) => !skip.destinations.includes(row.destination) && !skip.organizationIds.includes(row.organizationId)
  const under = (row: Row | undefined, lease: Lease) =>
    row !== undefined && row.lease !== null && row.lease.until === lease.until && row.lease.claimant === lease.claimant
  const layer = makeTestLayer(OutboxRepo)({
    due: (channel, now, limit, _large, skip) =>
      Effect.sync(() =>
        rows.filter((r) => r.channel === channel && free(r, now) && shown(r, skip))
          .sort((a, b) => a.dueAt - b.dueAt || a.id - b.id)
          .slice(0, limit)
          .map((r) => ({ id: r.id, channel: r.channel, destination: r.destination, organizationId: r.organizationId, dueAt: r.dueAt, large: false }))
      ),
    nextDue: (now, _large, skip) =>
      Effect.sync(() => {
        const waiting = rows.filter((r) => r.status === "pending" && (r.lease === null || r.lease.until < now) && shown(r, skip))
        return waiting.length === 0 ? null : Math.min(...waiting.map((r) => r.dueAt))
      }),
    claim: (ids, now, lease) =>
      Effect.sync(() => {
        const claimed = rows.filter((r) => ids.includes(r.id) && free(r, now))
        for (const row of claimed) row.lease = lease
        return new Set(claimed.map((r) => r.id))
      }),
    release: (id, lease) =>
      Effect.sync(() => {
        const row = rows.find((r) => r.id === id)
        if (under(row, lease)) {
          row!.lease = null
          released.push(id)
        }
      }) as never,
    record: (outcome, lease) =>
      Effect.sync(() => {
        const row = rows.find((r) => r.id === outcome.deliveryId)
        if (row?.status !== "pending" || !under(row, lease)) return false
        row.status = outcome.status
        row.attempts++
        row.dueAt = outcome.nextAttemptAt ?? row.dueAt
        row.lease = null
        return true
      }),
    state: (id) =>
      Effect.sync(() => {
        const row = rows.find((r) => r.id === id)
        return row === undefined
          ? Option.none()
          : Option.some({ status: row.status, attempts: row.attempts, max_attempts: row.maxAttempts, message_id: null, webhook_id: null })
      })
  })
  return {
    rows,
    released,
    layer,
    add: (destination: string, organizationId: number, count: number, dueAt = 0, maxAttempts = 3) => {
      for (let i = 0; i < count; i++) {
        rows.push({ id: rows.length + 1, channel: "webhook", destination, organizationId, maxAttempts, dueAt, lease: null, status: "pending", attempts: 0 })
      }
    }
  }
}

/** An outcome as a channel records it. */
const outcome = (attempt: Attempt, status: Outcome["status"], nextAttemptAt: number | null = null): Outcome => ({
  deliveryId: attempt.id,
  status,
  statusCode: status === "delivered" ? 200 : 500,
  error: status === "delivered" ? null : "HTTP 500",
  response: null,
  nextAttemptAt
})

/**
 * What the dispatcher runs on beside the outbox: its wake-ups, ids, the configuration, and the SQL
 * its claimant asks of the database at start (src/Outbox/Instances.ts: on SQLite, every claim of
 * the process before is released), here an empty table in an in-memory SQLite database.
 */
const environment = (outbox: ReturnType<typeof memoryOutbox>, env: Record<string, string>) =>
  Layer.mergeAll(
    outbox.layer,
    OutboxWakeups.Default,
    Ids.Default,
    Layer.effectDiscard(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE outbox_deliveries (claimed_until INTEGER, claimed_by TEXT)`))
      .pipe(Layer.provideMerge(Sqlite.layer({ filename: ":memory:" })), Layer.orDie),
    Layer.effect(AppConfig, configFrom({ LOG_LEVEL: "None", ...env }))
  )

/** Attempts in flight now, by destination and by organization. */
const inFlight = (attempts: ReadonlyMap<number, Row>) => {
  const byDestination = new Map<string, number>()
  const byOrganization = new Map<number, number>()
  for (const row of attempts.values()) {
    byDestination.set(row.destination, (byDestination.get(row.destination) ?? 0) + 1)
    byOrganization.set(row.organizationId, (byOrganization.get(row.organizationId) ?? 0) + 1)
  }
  return { byDestination, byOrganization }
}

describe("the outbox dispatcher (TestClock, an outbox in memory)", () => {
  it("shares: a quarter of the slots per destination, half per organization, at least one", () => {
    expect([1, 2, 4, 8, 16, 17].map(perDestination)).toEqual([1, 1, 1, 2, 4, 5])
    expect([1, 2, 4, 8, 16, 17].map(perOrganization)).toEqual([1, 1, 2, 4, 8, 9])
  })

  it.scoped("a slow organization's receivers, however many and however old their backlog, leave the other half of the pool to the others", () =>
    Effect.gen(function*() {
      const outbox = memoryOutbox()
      // organization 1: four receivers that never answer, forty deliveries older than anyone's
      for (const n of [1, 2, 3, 4]) outbox.add(`webhook:${n}`, 1, 10, 0)
      // organization 2: one receiver with five deliveries, due later
      outbox.add("webhook:9", 2, 5, 1_000)
      const started = new Map<number, Row>()
      const done: Array<number> = []
      const hang = yield* Deferred.make<void>()
      const channel: Channel = {
        name: "webhook",
        deliver: (attempt) =>
          Effect.gen(function*() {
            const row = outbox.rows.find((r) => r.id === attempt.id)!
            started.set(attempt.id, row)
            if (row.organizationId === 1) yield* Deferred.await(hang)
            yield* attempt.record(outcome(attempt, "delivered"))
            started.delete(attempt.id)
            done.push(attempt.id)
          })
      }
      yield* dispatch([channel]).pipe(Effect.provide(environment(outbox, { WEBHOOK_CONCURRENCY: "8" })))
      yield* TestClock.adjust("100 millis")
      let now = inFlight(started)
      // eight slots: a destination holds two, an organization four, whatever it has waiting
      expect([...now.byDestination.values()].every((n) => n <= 2)).toBe(true)
      expect(now.byOrganization.get(1)).toBe(4)
      expect(done).toEqual([])
      // once the other organization's deliveries are due, they go at once beside the stuck ones
      yield* TestClock.adjust("1 second")
      now = inFlight(started)
      expect(now.byOrganization.get(1)).toBe(4)
      expect(done.sort((a, b) => a - b)).toEqual([41, 42, 43, 44, 45])
      // the stuck receivers answer at last: their backlog goes, four at a time
      yield* Deferred.succeed(hang, undefined)
      yield* TestClock.adjust("100 millis")
      expect(outbox.rows.filter((r) => r.status === "pending")).toHaveLength(0)
    }))

  it.scoped("the claimer wakes when a retry falls due, on the schedule with its jitter; a delivery fails once its attempts run out", () =>
    Effect.gen(function*() {
      const outbox = memoryOutbox()
      const schedule = [Duration.seconds(5), Duration.seconds(30)]
      outbox.add("webhook:1", 1, 1, 0, maxAttemptsOf(schedule))
      const attemptsAt: Array<number> = []
      const channel: Channel = {
        name: "webhook",
        // a receiver that always fails, recorded as the webhook channel records it
        deliver: (attempt) =>
          Effect.gen(function*() {
            attemptsAt.push(yield* TestClock.currentTimeMillis)
            const next = yield* afterFailure({ attempts: attempt.attempts, max_attempts: attempt.maxAttempts }, schedule, false)
            yield* attempt.record(outcome(attempt, next.status, next.nextAttemptAt))
          })
      }
      yield* dispatch([channel]).pipe(Effect.provide(environment(outbox, { WEBHOOK_CONCURRENCY: "4" })))
      yield* TestClock.adjust("1 second")
      expect(attemptsAt).toEqual([0])
      yield* TestClock.adjust("3 seconds")
      expect(attemptsAt).toHaveLength(1)
      // 5 s ± 10%
      yield* TestClock.adjust("2 seconds")
      expect(attemptsAt).toHaveLength(2)
      expect(attemptsAt[1]!).toBeGreaterThanOrEqual(4_500)
      expect(attemptsAt[1]!).toBeLessThanOrEqual(5_500 + 1_000)
      yield* TestClock.adjust("40 seconds")
      expect(attemptsAt).toHaveLength(3)
      expect(attemptsAt[2]! - attemptsAt[1]!).toBeGreaterThanOrEqual(27_000)
      expect(outbox.rows[0]).toMatchObject({ status: "failed", attempts: 3 })
      yield* TestClock.adjust("5 minutes")
      expect(attemptsAt).toHaveLength(3)
    }))

  it.effect("after a failure: the next delay of the schedule with ±10% jitter, or failed when permanent or out of attempts", () =>
    Effect.gen(function*() {
      const schedule = [Duration.seconds(10), Duration.minutes(1)]
      yield* TestClock.setTime(1_000_000)
      for (let i = 0; i < 20; i++) {
        const first = yield* afterFailure({ attempts: 0, max_attempts: 3 }, schedule, false)
        expect(first.status).toBe("pending")
        expect(first.nextAttemptAt! - 1_000_000).toBeGreaterThanOrEqual(9_000)
        expect(first.nextAttemptAt! - 1_000_000).toBeLessThanOrEqual(11_000)
      }
      const second = yield* afterFailure({ attempts: 1, max_attempts: 3 }, schedule, false)
      expect(second.nextAttemptAt! - 1_000_000).toBeGreaterThanOrEqual(54_000)
      expect(yield* afterFailure({ attempts: 2, max_attempts: 3 }, schedule, false)).toEqual({ status: "failed", nextAttemptAt: null })
      expect(yield* afterFailure({ attempts: 0, max_attempts: 3 }, schedule, true)).toEqual({ status: "failed", nextAttemptAt: null })
    }))

  it.effect("a shutdown lets attempts finish within the grace period, then interrupts them and gives their claims back", () =>
    Effect.gen(function*() {
      const outbox = memoryOutbox()
      outbox.add("webhook:1", 1, 1, 0)
      outbox.add("webhook:2", 2, 1, 0)
      const finished: Array<number> = []
      const channel: Channel = {
        name: "webhook",
        deliver: (attempt) =>
          Effect.gen(function*() {
            // the first finishes within the grace period, the second never
            yield* Effect.sleep(attempt.id === 1 ? "500 millis" : "1 hour")
            yield* attempt.record(outcome(attempt, "delivered"))
            finished.push(attempt.id)
          })
      }
      const scope = yield* Scope.make()
      yield* dispatch([channel]).pipe(Effect.provide(environment(outbox, { WEBHOOK_CONCURRENCY: "4", SHUTDOWN_GRACE_PERIOD: "1 second" })), Scope.extend(scope))
      yield* TestClock.adjust("100 millis")
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("2 seconds")
      yield* closing.await
      expect(finished).toEqual([1])
      expect(outbox.released).toEqual([2])
      expect(outbox.rows.find((r) => r.id === 2)).toMatchObject({ status: "pending", lease: null })
    }))
})
