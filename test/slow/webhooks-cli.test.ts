/**
 * The admin CLI's webhook commands (`convene webhook list|disable|enable|delete`) on the database
 * of a running server, a process of its own: what they change is what the running server does
 * (pending deliveries cancelled, nothing sent while disabled, sent again once enabled), and a
 * registration of another organization is as unknown as one that does not exist. Moved out of
 * webhook-receivers.test.ts, which runs alone (it measures memory and latency); this measures nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { cli } from "../support/Cli.js"
import { createEvent, expectStatus } from "../support/Fixtures.js"
import { startServer } from "../support/Process.js"
import { alive, client, deliveryLog, until } from "../support/ProcessClient.js"
import { receiver } from "../support/Receiver.js"
import { temporaryDirectory, testEnvironment } from "../support/TestServer.js"

describe("webhook registrations through the admin CLI", () => {
  it.scopedLive("the admin CLI lists, disables, enables and deletes registrations while the server runs", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const env: Record<string, string> = {
        ...testEnvironment(join(dir, "convene.db")),
        WEBHOOK_TIMEOUT: "1500 millis",
        WEBHOOK_RETRY_SCHEDULE: Array(50).fill("300ms").join(","),
        LOG_LEVEL: "Error"
      }
      const server = yield* startServer(env)
      const api = client(server)
      // the server's database, on either engine
      const cliEnv = {
        DATABASE_PATH: env["DATABASE_PATH"]!,
        ...(env["DATABASE_URL"] === undefined ? {} : { DATABASE_URL: env["DATABASE_URL"] }),
        LOG_LEVEL: "None"
      }
      const hook = yield* receiver
      hook.answer = () => 500
      expectStatus(yield* api("POST", "/webhook", { body: { webhook: hook.url(), type: "Event" } }), 200)
      const event = yield* createEvent({ request: api })
      expectStatus(yield* api("PATCH", `/event/${event.eventId}`, { body: { name: "One" } }), 200)
      expectStatus(yield* api("PATCH", `/event/${event.eventId}`, { body: { name: "Two" } }), 200)
      yield* hook.next()

      const listed = yield* cli(cliEnv, "webhook", "list", "--org", "acme")
      expect(listed.code, listed.stderr).toBe(0)
      const line = listed.stdout.split("\n").find((l) => l.endsWith(hook.url()))!
      expect(line).toMatch(/^[0-9a-f-]{36}  active    Event        pending 2  failed 0  http:\/\/127\.0\.0\.1:\d+\/hook$/)
      const id = line.split(" ")[0]!

      const disabled = yield* cli(cliEnv, "webhook", "disable", "--org", "acme", id)
      expect(disabled.code, disabled.stderr).toBe(0)
      expect(disabled.stdout.trim()).toBe(`Disabled ${id}; 2 pending deliveries cancelled`)
      const cancelled = yield* deliveryLog(server)
      expect(cancelled.map((d) => [d.status, d.lastError])).toEqual([
        ["cancelled", "registration disabled by the operator"],
        ["cancelled", "registration disabled by the operator"]
      ])
      // an attempt already in flight may still land; after that, nothing more, new notifications
      // included. The CLI runs that need no particular order run meanwhile (each is a process start).
      yield* Effect.sleep("300 millis")
      const seen = hook.received.length
      expectStatus(yield* api("PATCH", `/event/${event.eventId}`, { body: { name: "Three" } }), 200)
      const [listedDisabled, unknown, globex] = yield* Effect.all([
        cli(cliEnv, "webhook", "list", "--org", "acme"),
        cli(cliEnv, "webhook", "disable", "--org", "acme", "no-such-id"),
        cli(cliEnv, "org", "create", "--slug", "globex", "--name", "Globex"),
        Effect.sleep("1500 millis")
      ], { concurrency: "unbounded" })
      expect(hook.received).toHaveLength(seen)
      expect(listedDisabled.stdout).toContain(`${id}  disabled  Event        pending 0  failed 0`)
      expect(unknown.code).toBe(1)
      expect(unknown.stderr.trim()).toBe("convene: Webhook registration no-such-id not found")
      expect(globex.code, globex.stderr).toBe(0)

      // a registration of another organization is as unknown as one that does not exist
      const [enabled, foreign] = yield* Effect.all([
        cli(cliEnv, "webhook", "enable", "--org", "acme", id),
        cli(cliEnv, "webhook", "delete", "--org", "globex", id)
      ], { concurrency: "unbounded" })
      expect(foreign.code).toBe(1)
      expect(foreign.stderr.trim()).toBe(`convene: Webhook registration ${id} not found`)
      expect(enabled.code, enabled.stderr).toBe(0)
      expectStatus(yield* api("PATCH", `/event/${event.eventId}`, { body: { name: "Four" } }), 200)
      yield* until(() => hook.received.some((r) => r.json?.data?.name === "Four"))

      const deleted = yield* cli(cliEnv, "webhook", "delete", "--org", "acme", id)
      expect(deleted.code, deleted.stderr).toBe(0)
      expect(deleted.stdout.trim()).toBe(`Deleted ${id}; 1 pending delivery cancelled`)
      expect((yield* cli(cliEnv, "webhook", "list", "--org", "acme")).stdout.trim()).toBe("No webhook registrations in acme")
      const log = yield* deliveryLog(server)
      expect(log.filter((d) => d.status === "pending")).toEqual([])
      expect(log[0]).toMatchObject({ status: "cancelled", lastError: "registration deleted", lastStatusCode: 500, lastResponse: "ok" })
      expect(alive(server)).toBe(true)
    }), 60_000)
})
