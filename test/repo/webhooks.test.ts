/**
 * Webhook registrations and their delivery log over the database, on the suite's engine (the API's
 * proof: test/api/webhooks.test.ts, test/api/webhook-test-delivery.test.ts,
 * test/api/dashboard-webhooks.test.ts): registering is idempotent; writes queue deliveries of their
 * notifications, listed by status and page with totals; a test delivery goes to its registration
 * alone; a failed delivery is retried on request; deleting or disabling a registration cancels what
 * is pending; the summaries count pending and failed deliveries.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent, UpdateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { OutboxRepo } from "../../src/Outbox/OutboxRepo.js"
import { Registration } from "../../src/Webhooks/Domain.js"
import { DeliveryLog } from "../../src/Webhooks/DeliveryLog.js"
import { Registrations } from "../../src/Webhooks/Registrations.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const registration = (webhook: string, type: string) => Schema.decodeUnknownSync(Registration)({ webhook, type })

/** `count` changes of an event of the caller's, each an `Event` notification (its creation is none). */
const writes = (caller: Caller, count: number) =>
  Effect.gen(function*() {
    const events = yield* Events
    const created = yield* events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "W0", primaryDate: "2031-06-01T20:00:00+02:00" }))
    for (let i = 1; i <= count; i++) yield* events.update(caller, created.eventId, Schema.decodeUnknownSync(UpdateEvent)({ name: `W${i}` }))
  })

layer(OutboxRepo.Default.pipe(Layer.provideMerge(testDatabase())), { excludeTestServices: true })("webhooks over the database", (it) => {
  it.effect("registrations are idempotent; writes queue deliveries, listed by status and page; a failed one is retried", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("hooks-log")
      const registrations = yield* Registrations
      const deliveryLog = yield* DeliveryLog
      const outbox = yield* OutboxRepo
      const first = yield* registrations.register(caller, registration("http://127.0.0.1:9/hook?a=1&b=ü", "Event"))
      const again = yield* registrations.register(caller, registration("http://127.0.0.1:9/hook?a=1&b=ü", "Event"))
      expect(again.secret).toBe(first.secret)
      expect(first.secret).toMatch(/^whsec_/)
      yield* writes(caller, 7)
      const log = yield* deliveryLog.deliveries(caller, { limit: 3, skip: 2 })
      expect(log.total).toBe(7)
      expect(log.deliveries).toHaveLength(3)
      expect(log.deliveries.every((d) => d.status === "pending")).toBe(true)
      // one fails for good: it is listed as failed, and a retry makes it pending again
      const due = (yield* outbox.due("webhook", Date.now() + 1_000, 100, true, { destinations: [], organizationIds: [] }))
        .filter((d) => d.organizationId === caller.organizationId)
      const lease = { until: Date.now() + 60_000, claimant: "test-claimant" }
      yield* outbox.claim([due[0]!.id], Date.now() + 1_000, lease)
      yield* outbox.record({ deliveryId: due[0]!.id, status: "failed", statusCode: 500, error: "HTTP 500", response: "boom «ü»", nextAttemptAt: null }, lease, new Date().toISOString())
      const failed = yield* deliveryLog.deliveries(caller, { status: "failed" })
      expect(failed.total).toBe(1)
      const one = yield* deliveryLog.delivery(caller, failed.deliveries[0]!.deliveryId)
      expect(one).toMatchObject({ status: "failed", attempts: 1 })
      expect((yield* Effect.either(deliveryLog.retry(caller, log.deliveries[0]!.deliveryId)))._tag).toBe("Left")
      yield* deliveryLog.retry(caller, failed.deliveries[0]!.deliveryId)
      expect((yield* deliveryLog.deliveries(caller, { status: "failed" })).total).toBe(0)
      expect((yield* deliveryLog.deliveries(caller, { status: "pending" })).total).toBe(7)
      // another organization sees none of it
      const other = yield* db.organization("hooks-log-other")
      expect((yield* deliveryLog.deliveries(other.caller, {})).total).toBe(0)
      expect((yield* Effect.either(deliveryLog.delivery(other.caller, one.deliveryId)))._tag).toBe("Left")
    }))

  it.effect("a test delivery goes to its registration alone; disabling or deleting a registration cancels what is pending", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("hooks-cancel")
      const registrations = yield* Registrations
      const deliveryLog = yield* DeliveryLog
      yield* registrations.register(caller, registration("http://127.0.0.1:9/a", "Event"))
      yield* registrations.register(caller, registration("http://127.0.0.1:9/b", "Event"))
      yield* registrations.register(caller, registration("http://127.0.0.1:9/c", "EventPerson"))
      yield* writes(caller, 3)
      const test = yield* registrations.sendTest(caller, registration("http://127.0.0.1:9/c", "EventPerson"))
      expect(typeof test.deliveryId).toBe("string")
      let summaries = yield* registrations.summaries(caller.organizationId)
      expect(summaries.map((s) => [s.url, s.type, s.state, s.pending, s.failed])).toEqual([
        ["http://127.0.0.1:9/a", "Event", "active", 3, 0],
        ["http://127.0.0.1:9/b", "Event", "active", 3, 0],
        ["http://127.0.0.1:9/c", "EventPerson", "active", 1, 0]
      ])
      expect(yield* registrations.setState(caller.organizationId, summaries[0]!.id, "disabled")).toBe(3)
      expect(yield* registrations.remove(caller.organizationId, summaries[1]!.id)).toBe(3)
      yield* registrations.unregister(caller, registration("http://127.0.0.1:9/c", "EventPerson"))
      expect((yield* deliveryLog.deliveries(caller, { status: "cancelled" })).total).toBe(7)
      expect((yield* deliveryLog.deliveries(caller, { status: "pending" })).total).toBe(0)
      summaries = yield* registrations.summaries(caller.organizationId)
      expect(summaries.map((s) => [s.url, s.state])).toEqual([["http://127.0.0.1:9/a", "disabled"]])
      // registering a disabled one again enables it
      yield* registrations.register(caller, registration("http://127.0.0.1:9/a", "Event"))
      expect((yield* registrations.summaries(caller.organizationId))[0]!.state).toBe("active")
    }))
})
