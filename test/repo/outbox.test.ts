/**
 * The outbox's rows over the database, on the suite's engine (the API's proof: test/api/webhooks.test.ts,
 * test/slow/webhooks-crash.test.ts, test/slow/pg/multi-instance.test.ts): notifications written in
 * the writing transaction become due deliveries, each destination's and organization's as the
 * fairness shares name them; claims racing for the same rows take each row once (PostgreSQL: `FOR
 * UPDATE SKIP LOCKED` on many connections; SQLite: its one writer); an outcome is recorded, and a
 * lease given back, only under the lease it was claimed with (its end and its claimant); and a dead
 * process's leases are released (SQLite: all at start; PostgreSQL: those of a claimant whose
 * heartbeat is stale, src/Outbox/Instances.ts).
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent, UpdateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { Deliveries } from "../../src/Outbox/Deliveries.js"
import { outboxClaimant, STALE_AFTER } from "../../src/Outbox/Instances.js"
import { type Lease, OutboxRepo } from "../../src/Outbox/OutboxRepo.js"
import { Registration } from "../../src/Webhooks/Domain.js"
import { Registrations } from "../../src/Webhooks/Registrations.js"
import { TestDatabase, testDatabase } from "../support/Database.js"
import { onPostgres } from "../support/Engine.js"

const none = { destinations: [], organizationIds: [] }

const email = (caller: Caller, n: number, dueAt: number) =>
  Effect.flatMap(Deliveries, (deliveries) =>
    deliveries.insert({
      publicId: `email-${caller.organizationId}-${n}-${dueAt}`,
      channel: "email",
      organizationId: caller.organizationId,
      maxAttempts: 3,
      dueAt,
      at: new Date(dueAt).toISOString()
    }))

/** A lease of claimant `claimant` running until `until`. */
const lease = (until: number, claimant = "test-claimant"): Lease => ({ until, claimant })

const outcome = (deliveryId: number) => ({
  deliveryId,
  status: "delivered" as const,
  statusCode: 250,
  error: null,
  response: "250 OK",
  nextAttemptAt: null
})

layer(Layer.merge(OutboxRepo.Default, Deliveries.Default).pipe(Layer.provideMerge(testDatabase())), { excludeTestServices: true, timeout: 60_000 })("the outbox over the database", (it) => {
  it.effect("a write's notification is a due webhook delivery of its registration and organization, left out at their share", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("outbox-webhooks")
      const repo = yield* OutboxRepo
      const events = yield* Events
      yield* (yield* Registrations).register(caller, Schema.decodeUnknownSync(Registration)({ webhook: "http://127.0.0.1:9/hook", type: "Event" }))
      const [hook] = yield* db.query<{ id: number }>("SELECT id FROM webhooks WHERE organization_id = ?", [caller.organizationId])
      const before = Date.now()
      const gala = yield* events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00" }))
      yield* events.update(caller, gala.eventId, Schema.decodeUnknownSync(UpdateEvent)({ name: "Gala 2" }))
      const due = yield* repo.due("webhook", Date.now() + 1_000, 10, false, none)
      const mine = due.filter((d) => d.organizationId === caller.organizationId)
      expect(mine.length).toBeGreaterThanOrEqual(1)
      for (const delivery of mine) {
        expect(delivery).toMatchObject({ channel: "webhook", destination: `webhook:${hook!.id}`, large: false })
        expect(delivery.dueAt).toBeGreaterThanOrEqual(before - 1_000)
      }
      // left out once their destination, or their organization, is at its share
      expect((yield* repo.due("webhook", Date.now() + 1_000, 10, false, { destinations: [`webhook:${hook!.id}`], organizationIds: [] }))
        .filter((d) => d.organizationId === caller.organizationId)).toEqual([])
      expect((yield* repo.due("webhook", Date.now() + 1_000, 10, false, { destinations: [], organizationIds: [caller.organizationId] }))
        .filter((d) => d.organizationId === caller.organizationId)).toEqual([])
      expect(yield* repo.nextDue(Date.now() + 1_000, false, none)).toBeLessThanOrEqual(Date.now() + 1_000)
    }))

  it.effect("claims racing for the same rows take each row once; outcomes and releases apply under their own lease only", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("outbox-claims")
      const repo = yield* OutboxRepo
      const now = Date.now()
      const ids: Array<number> = []
      for (let n = 0; n < 60; n++) ids.push(yield* email(caller, n, now - 60_000 + n))
      // not yet due: neither looked up nor claimed
      const later = yield* email(caller, 99, now + 60_000)
      const due = (yield* repo.due("email", now, 100, false, none)).filter((d) => d.organizationId === caller.organizationId)
      expect(due.map((d) => d.id)).toEqual(ids)
      expect(due[0]).toMatchObject({ destination: "email", large: false })

      // eight claimers at once, each for every row, each with a lease of its own
      const claims = yield* Effect.forEach(
        Array.from({ length: 8 }, (_, i) => i),
        (i) => repo.claim([...ids, later], now, lease(now + 30_000 + i, `claimant-${i}`)),
        { concurrency: "unbounded" }
      )
      const taken = claims.flatMap((set) => [...set])
      expect(taken.sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b))
      // claimed rows are not due again while their lease runs
      expect((yield* repo.due("email", now, 100, false, none)).filter((d) => d.organizationId === caller.organizationId)).toEqual([])

      const leaseOf = (id: number) => {
        const i = claims.findIndex((set) => set.has(id))
        return lease(now + 30_000 + i, `claimant-${i}`)
      }
      const [first, second, third] = ids as [number, number, number]
      // another lease's outcome or release changes nothing: another end, or another claimant
      expect(yield* repo.record(outcome(first), lease(leaseOf(first).until + 1_000, leaseOf(first).claimant), new Date().toISOString())).toBe(false)
      expect(yield* repo.record(outcome(first), lease(leaseOf(first).until, "someone else"), new Date().toISOString())).toBe(false)
      yield* repo.release(second, lease(leaseOf(second).until + 1_000, leaseOf(second).claimant))
      yield* repo.release(second, lease(leaseOf(second).until, "someone else"))
      expect((yield* repo.claim([second], now, lease(now + 90_000))).size).toBe(0)
      // its own: recorded once, released and claimable again
      expect(yield* repo.record(outcome(first), leaseOf(first), new Date().toISOString())).toBe(true)
      expect(yield* repo.record(outcome(first), leaseOf(first), new Date().toISOString())).toBe(false)
      yield* repo.release(second, leaseOf(second))
      expect([...(yield* repo.claim([first, second], now, lease(now + 90_000)))]).toEqual([second])
      // a lease that ran out is claimable by a later look, and the late finisher records nothing
      expect([...(yield* repo.claim([third], now + 40_000, lease(now + 120_000)))]).toEqual([third])
      expect(yield* repo.record(outcome(third), leaseOf(third), new Date().toISOString())).toBe(false)
      const [row] = yield* db.query<{ status: string; attempts: number; delivered_at: string | null }>(
        "SELECT status, attempts, delivered_at FROM outbox_deliveries WHERE id = ?",
        [first]
      )
      expect(row).toMatchObject({ status: "delivered", attempts: 1 })
      expect(row!.delivered_at).not.toBeNull()
    }))

  it.effect("a dead process's leases are released: all at start on SQLite, those of a claimant whose heartbeat is stale on PostgreSQL", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("outbox-abandoned")
      const repo = yield* OutboxRepo
      const now = Date.now()
      const a = yield* email(caller, 1, now - 1_000)
      const b = yield* email(caller, 2, now - 1_000)
      const claimant = yield* outboxClaimant
      const mine = yield* claimant.current
      expect(mine).toBeDefined()
      if (onPostgres) {
        // a claimant whose last heartbeat, by the database's clock, is older than STALE_AFTER
        const stale = `stale-${process.pid}-${now}`
        const staleFor = Duration.toMillis(STALE_AFTER) + 60_000
        yield* db.query(
          "",
          [],
          `INSERT INTO outbox_instances (id, heartbeat_at) VALUES ('${stale}', (extract(epoch FROM clock_timestamp()) * 1000)::bigint - ${staleFor})`
        )
        expect((yield* repo.claim([a], now, lease(now + 60_000, mine!.id))).size).toBe(1)
        expect((yield* repo.claim([b], now, lease(now + 60_000, stale))).size).toBe(1)
        yield* claimant.releaseAbandoned
        const rows = yield* db.query<{ id: number; claimed_by: string | null }>(
          "SELECT id, claimed_by FROM outbox_deliveries WHERE id IN (?, ?) ORDER BY id",
          [a, b],
          "SELECT id, claimed_by FROM outbox_deliveries WHERE id IN ($1, $2) ORDER BY id"
        )
        expect(rows.map((r) => r.claimed_by)).toEqual([mine!.id, null])
      } else {
        yield* repo.claim([a, b], now, lease(now + 60_000, mine!.id))
        // nothing to release while the process lives
        yield* claimant.releaseAbandoned
        expect((yield* repo.due("email", now, 1_000, false, none)).filter((d) => d.organizationId === caller.organizationId)).toEqual([])
        // the next process's start releases them all
        yield* claimant.atStart
        expect((yield* repo.due("email", now, 1_000, false, none)).filter((d) => d.organizationId === caller.organizationId).map((d) => d.id))
          .toEqual([a, b])
      }
    }).pipe(Effect.scoped))
})
