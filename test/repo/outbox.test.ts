/**
 * The outbox's rows over the database, on the suite's engine (the API's proof: test/api/webhooks.test.ts,
 * test/slow/webhooks-crash.test.ts, test/slow/pg/multi-instance.test.ts): notifications written in
 * the writing transaction become due deliveries, each destination's and organization's as the
 * fairness shares name them; claims racing for the same rows take each row once (PostgreSQL: `FOR
 * UPDATE SKIP LOCKED` on many connections; SQLite: its one writer); an outcome is recorded, and a
 * lease given back, only under the lease it was claimed with; and a dead process's leases are
 * released (SQLite: all at start; PostgreSQL: those whose lease slot no session holds).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent, UpdateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { OutboxRepo } from "../../src/Outbox/OutboxRepo.js"
import { Registration } from "../../src/Webhooks/Domain.js"
import { Registrations } from "../../src/Webhooks/Registrations.js"
import { TestDatabase, testDatabase } from "../support/Database.js"
import { onPostgres } from "../support/Engine.js"

const none = { destinations: [], organizationIds: [] }

const email = (caller: Caller, n: number, dueAt: number) =>
  Effect.flatMap(OutboxRepo, (repo) =>
    repo.insert({
      publicId: `email-${caller.organizationId}-${n}-${dueAt}`,
      channel: "email",
      organizationId: caller.organizationId,
      maxAttempts: 3,
      dueAt,
      at: new Date(dueAt).toISOString()
    }))

const outcome = (deliveryId: number) => ({
  deliveryId,
  status: "delivered" as const,
  statusCode: 250,
  error: null,
  response: "250 OK",
  nextAttemptAt: null
})

layer(OutboxRepo.Default.pipe(Layer.provideMerge(testDatabase())), { excludeTestServices: true, timeout: 60_000 })("the outbox over the database", (it) => {
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
        (i) => repo.claim([...ids, later], now, now + 30_000 + i),
        { concurrency: "unbounded" }
      )
      const taken = claims.flatMap((set) => [...set])
      expect(taken.sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b))
      // claimed rows are not due again while their lease runs
      expect((yield* repo.due("email", now, 100, false, none)).filter((d) => d.organizationId === caller.organizationId)).toEqual([])

      const leaseOf = (id: number) => now + 30_000 + claims.findIndex((set) => set.has(id))
      const [first, second, third] = ids as [number, number, number]
      // another lease's outcome or release changes nothing
      expect(yield* repo.record(outcome(first), leaseOf(first) + 1_000, new Date().toISOString())).toBe(false)
      yield* repo.release(second, leaseOf(second) + 1_000)
      expect((yield* repo.claim([second], now, now + 90_000)).size).toBe(0)
      // its own: recorded once, released and claimable again
      expect(yield* repo.record(outcome(first), leaseOf(first), new Date().toISOString())).toBe(true)
      expect(yield* repo.record(outcome(first), leaseOf(first), new Date().toISOString())).toBe(false)
      yield* repo.release(second, leaseOf(second))
      expect([...(yield* repo.claim([first, second], now, now + 90_000))]).toEqual([second])
      // a lease that ran out is claimable by a later look, and the late finisher records nothing
      expect([...(yield* repo.claim([third], now + 40_000, now + 120_000))]).toEqual([third])
      expect(yield* repo.record(outcome(third), leaseOf(third), new Date().toISOString())).toBe(false)
      const [row] = yield* db.query<{ status: string; attempts: number; delivered_at: string | null }>(
        "SELECT status, attempts, delivered_at FROM outbox_deliveries WHERE id = ?",
        [first]
      )
      expect(row).toMatchObject({ status: "delivered", attempts: 1 })
      expect(row!.delivered_at).not.toBeNull()
    }))

  it.effect("a dead process's leases are released: all at start on SQLite, those whose slot nobody holds on PostgreSQL", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("outbox-abandoned")
      const repo = yield* OutboxRepo
      const now = Date.now()
      const a = yield* email(caller, 1, now - 1_000)
      const b = yield* email(caller, 2, now - 1_000)
      const slot = yield* repo.leaseSlot
      if (onPostgres) {
        expect(slot).not.toBeNull()
        expect(yield* slot!.held).toBe(true)
        // a lease of a slot this session holds (≡ slot mod 1024), and one of a slot nobody holds
        const held = now + 60_000 + ((slot!.slot - (now + 60_000)) % 1024 + 1024) % 1024
        const orphan = held + 1
        expect((yield* repo.claim([a], now, held)).size).toBe(1)
        expect((yield* repo.claim([b], now, orphan)).size).toBe(1)
        yield* repo.releaseAbandonedClaims(now, false)
        const rows = yield* db.query<{ id: number; claimed_until: number | null }>("SELECT id, claimed_until FROM outbox_deliveries WHERE id IN (?, ?) ORDER BY id", [a, b])
        expect(rows.map((r) => r.claimed_until)).toEqual([held, null])
      } else {
        expect(slot).toBeNull()
        yield* repo.claim([a, b], now, now + 60_000)
        yield* repo.releaseAbandonedClaims(now, false)
        expect((yield* repo.due("email", now, 1_000, false, none)).filter((d) => d.organizationId === caller.organizationId)).toEqual([])
        yield* repo.releaseAbandonedClaims(now, true)
        expect((yield* repo.due("email", now, 1_000, false, none)).filter((d) => d.organizationId === caller.organizationId).map((d) => d.id))
          .toEqual([a, b])
      }
    }).pipe(Effect.scoped))
})
