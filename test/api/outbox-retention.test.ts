/**
 * The outbox's retention (CONTRACT §18, src/Outbox/Retention.ts), on both engines: delivered,
 * failed and cancelled deliveries that ended more than `OUTBOX_RETENTION` ago are deleted, with
 * the webhook messages no delivery refers to any more, and an email delivery's message and
 * invitation; newer ones, pending ones (however old) and the messages they refer to stay. A pass
 * is run at a chosen time (`TestClock`), in batches of two to cross batch boundaries; then the
 * server's own fiber is seen deleting with a short retention; and a bad value stops start-up.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, TestClock, TestContext } from "effect"
import { pruneOutbox } from "../../src/Outbox/Retention.js"
import { queryDatabase } from "../support/Engine.js"
import { createEvent, eventually, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { type SmtpSink, smtpSink } from "../support/SmtpSink.js"
import { configFrom, TestServer, testEnvironment, testServer } from "../support/TestServer.js"

class Sink extends Context.Tag("test/Sink")<Sink, SmtpSink>() {}

/** A server that sends emails to a fresh SMTP server; failed webhook attempts retried in an hour. */
const server = (env: Record<string, string> = {}) =>
  Layer.unwrapScoped(Effect.map(smtpSink(), (sink) =>
    Layer.merge(
      testServer({ SMTP_URL: sink.url, MAIL_FROM: "Acme <events@acme.test>", WEBHOOK_RETRY_SCHEDULE: "1h", ...env }),
      Layer.succeed(Sink, sink)
    )))

interface Row {
  readonly id: number
  readonly channel: string
  readonly status: string
  readonly webhook: string | null
  readonly message: string | null
  readonly updated_at: string
}

const rows = (env: TestServer["Type"]["databaseEnv"]) =>
  Effect.promise(() =>
    queryDatabase<Row>(
      env,
      `SELECT d.id, d.channel, d.status, w.url AS webhook, m.public_id AS message, d.updated_at
       FROM outbox_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id LEFT JOIN webhook_messages m ON m.id = d.message_id
       ORDER BY d.id`
    )
  )

const count = (env: TestServer["Type"]["databaseEnv"], table: string) =>
  Effect.promise(() => queryDatabase<{ n: number }>(env, `SELECT count(*) AS n FROM ${table}`)).pipe(Effect.map((r) => Number(r[0]!.n)))

layer(server(), { timeout: 60_000, excludeTestServices: true })("outbox retention", (it) => {
  it.scoped("deletes what ended before the retention, with what only it referred to; keeps newer and pending deliveries", () =>
    Effect.gen(function*() {
      const app = yield* TestServer
      const sink = yield* Sink
      sink.answer = () => "accept"
      const hook = yield* receiver
      hook.answer = (request) => (request.path === "/ok" ? 200 : request.path === "/gone" ? 410 : 500)
      const db = app.databaseEnv
      for (const [path, type] of [["/ok", "GuestList"], ["/later", "GuestList"], ["/cancel", "Event"], ["/gone", "EventPerson"]]) {
        expectStatus(yield* app.request("POST", "/webhook", { body: { webhook: hook.url(path), type } }), 200)
      }
      const event = yield* createEvent(app)
      const guest = (n: string) =>
        Effect.gen(function*() {
          const email = uniqueEmail(`kept${n}`)
          const reply = expectStatus(yield* app.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ firstName: n, lastName: "Guest", email }] } }), 200)
          return { personId: reply.body.guests.find((g: any) => g.email === email).personId as string, email }
        })
      const settled = (want: (all: ReadonlyArray<Row>) => boolean) =>
        eventually(rows(db), want, 15_000).pipe(Effect.tap((all) => expect(want(all), JSON.stringify(all)).toBe(true)))

      /** Every delivery ended but those to /later, which stay pending (a 500, retried in an hour). */
      const quiet = (all: ReadonlyArray<Row>) => all.every((r) => r.webhook?.endsWith("/later") ? r.status === "pending" : r.status !== "pending")

      // ended before the cut-off: GuestList deliveries delivered (their messages also pending to
      // /later, so they stay), an EventPerson one failed (410), an Event one cancelled (its
      // registration deleted), an invitation email sent
      const x = yield* guest("X")
      expectStatus(yield* app.request("PUT", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId: x.personId, rsvpStatus: "Accepted" }] } }), 200)
      expectStatus(yield* app.request("PATCH", `/event/${event.eventId}`, { body: { name: "Renamed" } }), 200)
      yield* eventually(Effect.sync(() => hook.received.filter((r) => r.path === "/cancel").length), (n) => n > 0)
      expectStatus(yield* app.request("DELETE", "/webhook", { body: { webhook: hook.url("/cancel"), type: "Event" } }), 200)
      expectStatus(yield* app.request("POST", `/event/${event.eventId}/invitations`, { body: { personIds: [x.personId] } }), 202)
      const old = yield* settled((all) => quiet(all) && all.some((r) => r.channel === "email" && r.status === "delivered"))
      const cutoff = Math.max(...old.filter((r) => r.status !== "pending").map((r) => Date.parse(r.updated_at))) + 1
      yield* Effect.sleep("20 millis")

      // ended after it: GuestList deliveries, an invitation email
      const y = yield* guest("Y")
      expectStatus(yield* app.request("POST", `/event/${event.eventId}/invitations`, { body: { personIds: [y.personId] } }), 202)
      const all = yield* settled((all) => quiet(all) && all.length > old.length && all.filter((r) => r.channel === "email" && r.status === "delivered").length === 2)
      const ended = (r: Row) => r.status !== "pending" && Date.parse(r.updated_at) < cutoff
      const gone = all.filter(ended)
      expect(gone.filter((r) => r.webhook?.endsWith("/ok")).map((r) => r.status)).toContain("delivered")
      expect(gone.filter((r) => r.webhook?.endsWith("/gone")).map((r) => r.status)).toEqual(["failed"])
      expect(gone.filter((r) => r.webhook?.endsWith("/cancel")).map((r) => r.status)).toEqual(["cancelled"])
      expect(gone.filter((r) => r.channel === "email").map((r) => r.status)).toEqual(["delivered"])
      expect(all.filter((r) => r.status !== "pending" && !ended(r)).map((r) => r.channel).sort()).toEqual(expect.arrayContaining(["email", "webhook"]))
      const pendingMessages = new Set(all.filter((r) => r.status === "pending").map((r) => r.message))
      expect(gone.some((r) => pendingMessages.has(r.message))).toBe(true)
      const messagesBefore = yield* count(db, "webhook_messages")

      // a pass 30 days (the default retention) after the cut-off, in batches of two
      const deleted = yield* Effect.gen(function*() {
        yield* TestClock.setTime(cutoff + Duration.toMillis(Duration.days(30)))
        return yield* pruneOutbox(Duration.days(30), 2)
      }).pipe(Effect.provide(TestContext.TestContext))
      expect(deleted).toBe(gone.length)

      const left = yield* rows(db)
      expect(left.map((r) => r.id)).toEqual(all.filter((r) => !ended(r)).map((r) => r.id))
      expect(left.filter((r) => r.status === "pending").map((r) => r.webhook)).toEqual(all.filter((r) => r.status === "pending").map((r) => r.webhook))
      // the messages only deleted deliveries referred to are gone (the failed one's and the
      // cancelled one's among them); those a pending or a newer delivery refers to stay
      const kept = new Set(left.flatMap((r) => (r.message === null ? [] : [r.message])))
      const remaining = yield* Effect.promise(() => queryDatabase<{ public_id: string }>(db, "SELECT public_id FROM webhook_messages"))
      expect(new Set(remaining.map((m) => m.public_id))).toEqual(kept)
      expect(messagesBefore - kept.size).toBeGreaterThanOrEqual(2)
      for (const r of gone.filter((r) => r.status === "failed" || r.status === "cancelled")) expect(kept.has(r.message!)).toBe(false)
      // the old email went with its invitation; the new one is listed
      expect(yield* count(db, "outbox_emails")).toBe(1)
      const invitations = expectStatus(yield* app.request("GET", `/event/${event.eventId}/invitations`), 200).body
      expect(invitations.invitations.map((i: any) => i.email)).toEqual([y.email])
      const log = expectStatus(yield* app.request("GET", "/webhook/deliveries"), 200).body
      expect(log.total).toBe(left.filter((r) => r.channel === "webhook").length)

      // a pass at the same time again finds nothing
      const again = yield* Effect.gen(function*() {
        yield* TestClock.setTime(cutoff + Duration.toMillis(Duration.days(30)))
        return yield* pruneOutbox(Duration.days(30), 2)
      }).pipe(Effect.provide(TestContext.TestContext))
      expect(again).toBe(0)
    }))
})

layer(server({ OUTBOX_RETENTION: "300 millis" }), { timeout: 30_000, excludeTestServices: true })("the server's own retention", (it) => {
  it.scoped("deletes a delivered delivery and its message once OUTBOX_RETENTION has passed", () =>
    Effect.gen(function*() {
      const app = yield* TestServer
      const hook = yield* receiver
      expectStatus(yield* app.request("POST", "/webhook", { body: { webhook: hook.url("/ok"), type: "GuestList" } }), 200)
      const event = yield* createEvent(app)
      expectStatus(yield* app.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ firstName: "Brief", lastName: "Guest", email: uniqueEmail("brief") }] } }), 200)
      yield* hook.next()
      const left = yield* eventually(
        Effect.zip(count(app.databaseEnv, "outbox_deliveries"), count(app.databaseEnv, "webhook_messages")),
        ([deliveries, messages]) => deliveries === 0 && messages === 0,
        10_000
      )
      expect(left).toEqual([0, 0])
    }))
})

describe("OUTBOX_RETENTION", () => {
  it.effect("defaults to 30 days; a value that is not a duration stops start-up", () =>
    Effect.gen(function*() {
      const config = yield* configFrom(testEnvironment("/tmp/retention.db"))
      expect(Duration.toMillis(config.outboxRetention)).toBe(Duration.toMillis(Duration.days(30)))
      const bad = yield* configFrom({ ...testEnvironment("/tmp/retention.db"), OUTBOX_RETENTION: "soon" }).pipe(
        Effect.as("started"),
        Effect.catchAllDefect((defect) => Effect.succeed(String(defect)))
      )
      expect(bad).toContain("OUTBOX_RETENTION")
    }))
})
