/**
 * The limits on emails (CONTRACT §18, docs/integrators.md#email-invitations) over a real server
 * on a clock the test moves (support/JumpClock.ts: it stands still between jumps, so times compare
 * to the second as under TestClock, and a jump of minutes costs nothing, where a TestClock runs
 * every background pass of the server in between, one by one): an organization's daily quota (`EMAIL_DAILY_LIMIT`: past it, 429 with the exact
 * `Retry-After` and nothing queued; a request for more than the limit can never go; a 429 is not
 * kept under its Idempotency-Key), one invitation per guest and event in ten minutes (the others
 * skipped and counted), and the dashboard saying what is left and when the limit is reached.
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { signIn, textOf } from "../support/Dashboard.js"
import { queryDatabase } from "../support/Engine.js"
import { createEvent, expectError, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { makeJumpClock, serverWith } from "../support/JumpClock.js"
import { type SmtpSink, smtpSink } from "../support/SmtpSink.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

class Sink extends Context.Tag("test/QuotaSink")<Sink, SmtpSink>() {}

type Server = TestServer["Type"]

const LIMIT = 5
const DAY_SECONDS = 24 * 60 * 60

const clock = makeJumpClock({ still: true })
const jump = clock.advance

const withSmtp = Layer.unwrapScoped(Effect.map(smtpSink(), (sink) =>
  Layer.merge(
    testServer({ SMTP_URL: sink.url, MAIL_FROM: "Acme Events <events@acme.test>", EMAIL_DAILY_LIMIT: String(LIMIT) }).pipe(
      Layer.provide(serverWith(clock))
    ),
    Layer.succeed(Sink, sink)
  )))

/** An event (of the token's organization) with `count` new guests; their person ids in list order. */
const eventWithGuests = (server: Server, count: number, token?: string) =>
  Effect.gen(function*() {
    const event = yield* createEvent(server, {}, token)
    const guests = Array.from({ length: count }, (_, i) => ({ email: uniqueEmail(`quota${i}`), firstName: `Guest${i}`, lastName: "Quota" }))
    const auth = token === undefined ? {} : { token }
    expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests }, ...auth }), 200)
    const list = (yield* server.request("GET", `/event/${event.eventId}/guestlist`, auth)).body.guests as Array<{ personId: string; email: string }>
    const byEmail = new Map(list.map((g) => [g.email, g.personId]))
    return { eventId: event.eventId as string, personIds: guests.map((g) => byEmail.get(g.email)!) }
  })

const invite = (server: Server, eventId: string, body: unknown, options: { token?: string; headers?: Record<string, string> } = {}) =>
  server.request("POST", `/event/${eventId}/invitations`, { body, ...options })

const emailDeliveries = (server: Server) =>
  Effect.map(
    Effect.promise(() => queryDatabase<{ n: number }>(server.databaseEnv, "SELECT count(*) AS n FROM outbox_deliveries WHERE channel = 'email'")),
    (rows) => Number(rows[0]!.n)
  )

/**
 * Waits until no email attempt is in flight, so that the server can close: its shutdown waits for
 * attempts in flight on the test's clock, which no one moves then. The sends take real time; the
 * outbox's next look for due emails, the clock's time (moved a second per look). Done when every
 * email is sent, or when the outbox stopped claiming and holds no claim: on PostgreSQL, a
 * jump past the 5 seconds its lease-slot check may take makes the outbox believe its
 * slot lost (OutboxRepo.leaseSlot), and /readyz says so.
 */
const settled = (server: Server) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const [row] = yield* Effect.promise(() =>
        queryDatabase<{ pending: number; claimed: number }>(
          server.databaseEnv,
          `SELECT count(*) AS pending, count(claimed_until) AS claimed FROM outbox_deliveries WHERE status = 'pending'`
        )
      )
      if (Number(row!.pending) === 0) return
      if (Number(row!.claimed) === 0 && (yield* server.request("GET", "/readyz", { token: null })).status === 503) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      yield* jump("1 second")
    }
    return yield* Effect.dieMessage("email attempts still in flight after 400 looks")
  })

layer(withSmtp, { excludeTestServices: true, timeout: 120_000 })("email limits (a clock the test moves)", (it) => {
  it.effect("past EMAIL_DAILY_LIMIT in 24 hours: 429 with the seconds until the quota allows the request, and nothing queued", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { eventId, personIds } = yield* eventWithGuests(server, 8)
      const owner = yield* signIn(server.url, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, { origin: "https://convene.test" })
      const quotaLine = Effect.map(owner.get(`/app/events/${eventId}/invitations`), (page) => textOf(page.html))

      expect(yield* quotaLine).toContain(`${LIMIT} of ${LIMIT} emails left today`)
      expect(expectStatus(yield* invite(server, eventId, { personIds: personIds.slice(0, 3) }), 202).body).toEqual({ queued: 3, skipped: 0 })
      expect(yield* quotaLine).toContain(`2 of ${LIMIT} emails left today`)
      yield* jump("10 minutes")
      expect(expectStatus(yield* invite(server, eventId, { personIds: personIds.slice(3, 5) }), 202).body).toEqual({ queued: 2, skipped: 0 })

      // two more need the two oldest of the five to leave the window: they were queued 10 minutes ago
      const before = yield* emailDeliveries(server)
      const refused = expectError(yield* invite(server, eventId, { personIds: personIds.slice(5, 7) }), 429, "rate_limited")
      const expected = DAY_SECONDS - 10 * 60
      expect(refused.headers.get("retry-after")).toBe(String(expected))
      expect(refused.body).toEqual({ message: `Too Many Requests. Retry after ${expected} seconds.`, code: "rate_limited" })
      expect(yield* emailDeliveries(server)).toBe(before)
      expect((yield* server.request("GET", `/event/${eventId}/invitations`)).body.total).toBe(5)

      // more than the limit itself: never, whatever the wait; said in an issue
      const never = expectError(yield* invite(server, eventId, { statuses: ["Invited"] }), 429, "rate_limited")
      expect(never.headers.get("retry-after")).toBe(String(DAY_SECONDS))
      expect(never.body.message).toBe(`Too Many Requests. Retry after ${DAY_SECONDS} seconds.`)
      expect(never.body.issues[0].message).toMatch(/EMAIL_DAILY_LIMIT, 5\): send in parts/)

      // the dashboard: the invitation screens and the event page say the limit is reached
      const log = yield* quotaLine
      expect(log).toContain("Daily email limit reached")
      expect(log).toContain("no invitation can be sent, and confirmation, reminder and status emails to guests are not sent")
      expect(textOf((yield* owner.get(`/app/events/${eventId}`)).html)).toContain("Daily email limit reached")
      const form = yield* owner.post(`/app/events/${eventId}/invitations`, [["audience", "selected"], ["personId", personIds[5]!]])
      expect(form.status).toBe(429)
      expect(form.headers.get("retry-after")).toBe(String(expected))
      expect(textOf(form.html)).toContain("The daily email limit is reached: no invitation can be sent now. Try again in 23 hours 50 minutes.")
      expect(yield* emailDeliveries(server)).toBe(before)

      // a 429 is not kept under its Idempotency-Key: once the window has passed (the emails' times
      // moved back two days, as a jump would), the same request with the same key goes
      const headers = { "idempotency-key": `quota-${eventId}` }
      expectError(yield* invite(server, eventId, { personIds: personIds.slice(5, 7) }, { headers }), 429, "rate_limited")
      const daysAgo = new Date(clock.now() - 2 * DAY_SECONDS * 1000).toISOString()
      yield* Effect.promise(() =>
        queryDatabase(server.databaseEnv, `UPDATE outbox_deliveries SET created_at = '${daysAgo}' WHERE channel = 'email'`)
      )
      expect(yield* quotaLine).toContain(`${LIMIT} of ${LIMIT} emails left today`)
      const sent = expectStatus(yield* invite(server, eventId, { personIds: personIds.slice(5, 7) }, { headers }), 202)
      expect(sent.body).toEqual({ queued: 2, skipped: 0 })
      expect(sent.headers.get("idempotent-replayed")).toBeNull()
      yield* settled(server)
    }), 120_000)

  it.effect("requests at once never go past the quota together: the count and the emails are one write transaction", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization(`together-${process.pid}`)
      const { eventId, personIds } = yield* eventWithGuests(server, 9, token)
      // three requests of three emails each, against a quota of five: exactly one goes
      const replies = yield* Effect.all(
        [0, 3, 6].map((from) => invite(server, eventId, { personIds: personIds.slice(from, from + 3) }, { token })),
        { concurrency: "unbounded" }
      )
      expect(replies.map((r) => r.status).sort()).toEqual([202, 429, 429])
      expect((yield* server.request("GET", `/event/${eventId}/invitations`, { token })).body.total).toBe(3)
      yield* settled(server)
    }), 120_000)

  it.effect("one invitation per guest and event in 10 minutes: the others are skipped and counted, then sent again", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      // an organization of its own: its own quota
      const { token } = yield* server.organization(`window-${process.pid}`)
      const { eventId, personIds } = yield* eventWithGuests(server, 3, token)
      const [first, second, third] = personIds as [string, string, string]
      const other = (yield* createEvent(server, {}, token)).eventId as string
      expectStatus(yield* server.request("POST", `/event/${other}/guestlist`, { token, body: { guests: [{ personId: first }] } }), 200)

      expect(expectStatus(yield* invite(server, eventId, { personIds: [first] }, { token }), 202).body).toEqual({ queued: 1, skipped: 0 })
      expect(expectStatus(yield* invite(server, eventId, { personIds: [first, second] }, { token }), 202).body).toEqual({ queued: 1, skipped: 1 })
      expect(expectStatus(yield* invite(server, eventId, { statuses: ["Invited"] }, { token }), 202).body).toEqual({ queued: 1, skipped: 2 })
      // per event: the same guest is invited to another event at once
      expect(expectStatus(yield* invite(server, other, { personIds: [first] }, { token }), 202).body).toEqual({ queued: 1, skipped: 0 })
      // everyone skipped: nothing queued, and no quota needed
      expect(expectStatus(yield* invite(server, eventId, { personIds: [first, second, third] }, { token }), 202).body).toEqual({ queued: 0, skipped: 3 })

      yield* jump("9 minutes")
      expect(expectStatus(yield* invite(server, eventId, { personIds: [first] }, { token }), 202).body).toEqual({ queued: 0, skipped: 1 })
      // ten minutes after the first: the window has passed
      yield* jump("1 minute")
      expect(expectStatus(yield* invite(server, eventId, { personIds: [first] }, { token }), 202).body).toEqual({ queued: 1, skipped: 0 })
      const log = (yield* server.request("GET", `/event/${eventId}/invitations`, { token })).body
      expect(log.total).toBe(4)
      expect(log.invitations.filter((i: { personId: string }) => i.personId === first)).toHaveLength(2)
      yield* settled(server)
    }), 120_000)
})
