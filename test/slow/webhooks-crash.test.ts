import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { databaseEnvOf } from "../support/Engine.js"
import { createEvent, eventually, expectStatus } from "../support/Fixtures.js"
import { ageDeadHeartbeats } from "../support/Heartbeats.js"
import { startServer } from "../support/Process.js"
import { receiver } from "../support/Receiver.js"
import { API_TOKEN, send, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

describe("webhooks across a crash", () => {
  it.scopedLive("delivers a notification whose attempt was cut by SIGKILL once the server is back", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const env = {
        ...testEnvironment(join(dir, "convene.db")),
        WEBHOOK_TIMEOUT: "30 seconds",
        WEBHOOK_RETRY_SCHEDULE: "100ms",
        LOG_LEVEL: "Error"
      }
      const hook = yield* receiver
      hook.answer = (_, n) => (n === 1 ? "hang" : 200)

      const first = yield* startServer(env)
      const api = send(first.url)
      expectStatus(yield* api("POST", "/webhook", { body: { webhook: hook.url(), type: "Event" } }), 200)
      const event = yield* createEvent({ request: api })
      expectStatus(yield* api("PATCH", `/event/${event.eventId}`, { body: { name: "Survives a crash" } }), 200)
      const cut = yield* hook.next()
      expect(cut.json.data.name).toBe("Survives a crash")
      yield* first.kill("SIGKILL")

      // SQLite: the new process releases its predecessor's claims at start. PostgreSQL: another
      // instance may be running them, so the claim is released once the killed instance's
      // heartbeat is stale (15 s: src/Outbox/Instances.ts), long before its lease runs out (60 s);
      // its heartbeat is aged here as 15 s would (support/Heartbeats.ts: the delay itself is
      // measured in test/slow/pg/database-outage.test.ts), so the lease alone would not do
      yield* ageDeadHeartbeats(databaseEnvOf(env))
      const second = yield* startServer(env)
      const again = yield* hook.next(15_000)
      expect(again.headers["webhook-id"]).toBe(cut.headers["webhook-id"])
      expect(again.body).toBe(cut.body)
      // the attempt's answer reaches the log a moment after the receiver has the notification
      const log = yield* eventually(
        Effect.map(send(second.url)("GET", "/webhook/deliveries", { token: API_TOKEN }), (r) => r.body),
        (l) => l.deliveries?.[0]?.status === "delivered"
      )
      expect(log.total).toBe(1)
      // the attempt cut by the crash was never recorded; the one after the restart was
      expect(log.deliveries[0]).toMatchObject({ status: "delivered", attempts: 1 })
      expect(hook.received).toHaveLength(2)
    }), 90_000)
})
