/**
 * Invitations by email from a test's side (test/api/invitations.test.ts,
 * test/slow/invitations-restart.test.ts): events with guests to invite, the invitations log, and
 * the emails an SMTP sink received.
 */
import { Effect } from "effect"
import { createEvent, expectStatus, uniqueEmail } from "./Fixtures.js"
import type { SmtpSink } from "./SmtpSink.js"
import type { TestServerShape } from "./TestServer.js"

type Server = Pick<TestServerShape, "request">

export const MAIL_FROM = "Acme Events <events@acme.test>"

/** An event with these guests (new persons), and their person ids and emails. */
export const eventWithGuests = (server: Server, count: number, fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const event = yield* createEvent(server, { timezone: "Europe/Paris", locationName: "Grand Hall", ...fields })
    const guests = Array.from({ length: count }, (_, i) => ({ email: uniqueEmail(`guest${i}`), firstName: `Guest${i}`, lastName: "Test" }))
    for (let i = 0; i < guests.length; i += 500) {
      expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: guests.slice(i, i + 500) } }), 200)
    }
    const list = (yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests as Array<{ personId: string; email: string }>
    const byEmail = new Map(list.map((g) => [g.email, g.personId]))
    return { event, guests: guests.map((g) => ({ ...g, personId: byEmail.get(g.email)! })) }
  })

export const invite = (server: Server, eventId: string, body: unknown, options: { token?: string | null; headers?: Record<string, string> } = {}) =>
  server.request("POST", `/event/${eventId}/invitations`, { body, ...options })

export const invitations = (server: Server, eventId: string, query = "") =>
  Effect.map(server.request("GET", `/event/${eventId}/invitations${query}`), (reply) => expectStatus(reply, 200).body)

/** The emails the sink accepted for these addresses. */
export const emailsTo = (sink: SmtpSink, addresses: ReadonlyArray<string>) =>
  sink.received.filter((mail) => mail.to.some((to) => addresses.includes(to)))

export const waitForEmails = (sink: SmtpSink, addresses: ReadonlyArray<string>, timeoutMs = 20_000) =>
  Effect.gen(function*() {
    const started = Date.now()
    while (emailsTo(sink, addresses).length < addresses.length) {
      if (Date.now() - started > timeoutMs) {
        return yield* Effect.dieMessage(`${emailsTo(sink, addresses).length} of ${addresses.length} emails arrived`)
      }
      yield* Effect.sleep("25 millis")
    }
    return emailsTo(sink, addresses)
  })
