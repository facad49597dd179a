/**
 * Webhooks over a server in process (docs/integrators.md#webhooks): registrations, signed
 * deliveries of real changes only, retries, time-outs, 410 Gone, cancellation, both payload
 * variants and the destinations refused. The pool's fairness in real time:
 * test/slow/webhooks-pool.test.ts.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
// @ts-expect-error: a plain JavaScript example, tested as receivers would use it
import { verify as exampleVerify } from "../../examples/webhook-receiver.mjs"
import { guardedLookup } from "../../src/Webhooks/Destinations.js"
import { createEvent, createPerson, eventually, expectError, expectStatus } from "../support/Fixtures.js"
import { settled } from "../support/Outbox.js"
import { type Received, receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

const fast = {
  WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms",
  WEBHOOK_TIMEOUT: "400ms",
  WEBHOOK_CONCURRENCY: "8"
}

/** Verifies a delivery with the Standard Webhooks reference implementation. */
const verify = (secret: string, received: Received) =>
  new Webhook(secret).verify(received.body, {
    "webhook-id": String(received.headers["webhook-id"]),
    "webhook-timestamp": String(received.headers["webhook-timestamp"]),
    "webhook-signature": String(received.headers["webhook-signature"])
  })

const register = (token: string, webhook: string, type: string) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.map(server.request("POST", "/webhook", { token, body: { webhook, type } }), (r) => expectStatus(r, 200).body.secret as string))

const deliveries = (token: string, query = "") =>
  Effect.flatMap(TestServer, (server) =>
    Effect.map(server.request("GET", `/webhook/deliveries${query}`, { token }), (r) => expectStatus(r, 200).body))

const recordFields = [
  "events", "email3", "eventName", "eventId", "event", "personId", "firstName", "lastName", "name", "email",
  "rsvpStatus", "rsvpStatusHistory", "rsvpHardBlockedAt", "company", "position", "dietaryRestrictions",
  "attendanceStatus", "rsvpQuestionResponses", "rsvpNote", "customColumns", "rsvpLink"
]

layer(testServer(fast), { excludeTestServices: true })("webhooks (records variant)", (it) => {
  describe("registration", () => {
    it.scoped("registers idempotently with a whsec_ secret, and deletes", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("wh-register")
        const first = yield* register(token, "https://hooks.example.com/a", "EventPerson")
        expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
        expect(yield* register(token, "https://hooks.example.com/a", "EventPerson")).toBe(first)
        expect(yield* register(token, "https://hooks.example.com/a", "GuestList")).not.toBe(first)
        for (const body of [
          { webhook: "ftp://hooks.example.com/a", type: "Event" },
          { webhook: "not a url", type: "Event" },
          { webhook: "https://user:pw@hooks.example.com/a", type: "Event" },
          { webhook: "https://hooks.example.com/a", type: "Person" },
          { webhook: "https://hooks.example.com/a" }
        ]) expectError(yield* server.request("POST", "/webhook", { token, body }), 400, "invalid_request")
        expectError(yield* server.request("DELETE", "/webhook", { token, body: { webhook: "https://hooks.example.com/a" } }), 400, "invalid_request")
        expectError(yield* server.request("DELETE", "/webhook", { token, body: { webhook: "https://other.example.com", type: "Event" } }), 404, "not_found")
        expect(expectStatus(yield* server.request("DELETE", "/webhook", { token, body: { webhook: "https://hooks.example.com/a", type: "EventPerson" } }), 200).body).toEqual({ success: true })
        expectError(yield* server.request("DELETE", "/webhook", { token, body: { webhook: "https://hooks.example.com/a", type: "EventPerson" } }), 404, "not_found")
        // registered again after deletion: a new registration with a new secret
        expect(yield* register(token, "https://hooks.example.com/a", "EventPerson")).not.toBe(first)
      }))

    it.scoped("answers GET /webhook with a sample EventPerson payload", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const reply = expectStatus(yield* server.request("GET", "/webhook"), 200).body
        expect(reply.contacts).toHaveLength(1)
        expect(Object.keys(reply.contacts[0])).toEqual(recordFields)
      }))
  })

  describe("delivery", () => {
    it.scoped("sends signed notifications for real changes only, in the records shape", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        const { token } = yield* server.organization("wh-records")
        const secrets = {
          EventPerson: yield* register(token, hook.url("/person"), "EventPerson"),
          GuestList: yield* register(token, hook.url("/list"), "GuestList"),
          Event: yield* register(token, hook.url("/event"), "Event")
        }
        const event = yield* createEvent(server, { name: "Launch", customColumns: ["Table"], locationCity: "Paris" }, token)
        const personId = yield* createPerson(server, { company: "Acme", position: "CTO" }, token)
        const put = (guest: Record<string, unknown>) =>
          server.request("PUT", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId, ...guest }] } })

        yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId }] } })
        const added = yield* hook.next()
        expect(added.path).toBe("/list")
        expect(added.json).toHaveLength(1)
        expect(Object.keys(added.json[0])).toEqual(recordFields.slice(2))
        expect(added.json[0]).toMatchObject({
          eventName: "Launch",
          eventId: event.eventId,
          personId,
          rsvpStatus: "Invited",
          company: "Acme",
          position: "CTO",
          rsvpHardBlockedAt: null,
          attendanceStatus: null,
          rsvpLink: null
        })
        expect(added.json[0].event).toMatchObject({ _id: event.eventId, id: event.eventId, name: "Launch", locationCity: "Paris", type: "event" })
        expect(added.json[0].rsvpStatusHistory).toEqual([
          expect.objectContaining({ status: "Invited", actorType: "apiKey", actionType: "added" })
        ])

        expectStatus(yield* put({ rsvpStatus: "Accepted" }), 200)
        const changed = [yield* hook.next(), yield* hook.next()].sort((a, b) => a.path.localeCompare(b.path))
        expect(changed.map((r) => r.path)).toEqual(["/list", "/person"])
        const [list, person] = changed as [Received, Received]
        expect(person.json).toHaveLength(1)
        expect(Object.keys(person.json[0])).toEqual(recordFields)
        expect(person.json[0]).toMatchObject({
          events: ["Launch", event.primaryDate],
          email3: person.json[0].email,
          rsvpStatus: "Accepted"
        })
        expect(person.json[0].rsvpStatusHistory.map((h: Received["json"]) => [h.status, h.actionType])).toEqual([
          ["Invited", "added"],
          ["Accepted", "updated"]
        ])
        expect(list.json[0].rsvpStatus).toBe("Accepted")

        // the same status again: a history entry (GuestList), but no EventPerson change
        yield* put({ rsvpStatus: "Accepted" })
        expect((yield* hook.next()).path).toBe("/list")
        // attendance is an EventPerson change
        yield* put({ attendanceStatus: "Attended" })
        expect([(yield* hook.next()).path, (yield* hook.next()).path].sort()).toEqual(["/list", "/person"])
        // an event update that changes something
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Launch Party", locationCity: "Paris" } })
        const updated = yield* hook.next()
        expect(updated.path).toBe("/event")
        expect(updated.json).toMatchObject({
          eventId: event.eventId,
          action: "event_updated",
          data: { name: "Launch Party", primaryDate: event.primaryDate, updatedFields: ["name"] }
        })
        expect(typeof updated.json.data.timestamp).toBe("string")
        // and one that changes nothing
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Launch Party" } })
        yield* settled
        expect(hook.received).toHaveLength(7)

        for (const r of hook.received) {
          const type = r.path === "/person" ? "EventPerson" : r.path === "/list" ? "GuestList" : "Event"
          expect(verify(secrets[type], r)).toEqual(r.json)
          expect(exampleVerify(secrets[type], r.headers, r.body)).toBe(true)
          expect(exampleVerify(secrets[type], r.headers, r.body.replace("Launch", "Lunch"))).toBe(false)
          expect(r.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/)
          expect(r.headers["content-type"]).toBe("application/json")
          expect(() => verify(secrets[type === "Event" ? "GuestList" : "Event"], r)).toThrow()
        }
        // the last answer may reach the log a moment after the receiver has the notification
        const log = yield* eventually(deliveries(token), (l) => l.deliveries.every((d: Received["json"]) => d.status === "delivered"))
        expect(log).toMatchObject({ total: 7, limit: 50, skip: 0 })
        expect(log.deliveries.every((d: Received["json"]) => d.status === "delivered" && d.attempts === 1 && d.lastStatusCode === 200)).toBe(true)
        expect(new Set(log.deliveries.map((d: Received["json"]) => d.webhookId))).toEqual(new Set(hook.received.map((r) => r.headers["webhook-id"])))
      }))

    it.scoped("sends one GuestList notification per write with the affected guests, removed ones as they were", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        const { token } = yield* server.organization("wh-guestlist")
        yield* register(token, hook.url(), "GuestList")
        const event = yield* createEvent(server, {}, token)
        const [a, b, c] = [yield* createPerson(server, {}, token), yield* createPerson(server, {}, token), yield* createPerson(server, {}, token)]
        yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: a }, { personId: b }] } })
        expect((yield* hook.next()).json.map((g: Received["json"]) => g.personId)).toEqual([a, b])
        // a re-post of a guest already on the list is no change
        yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: a }, { personId: c }] } })
        expect((yield* hook.next()).json.map((g: Received["json"]) => g.personId)).toEqual([c])
        yield* server.request("PUT", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: b, rsvpStatus: "Declined" }] } })
        yield* hook.next()
        yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: b }] } })
        const removed = yield* hook.next()
        expect(removed.json).toHaveLength(1)
        expect(removed.json[0]).toMatchObject({ personId: b, rsvpStatus: "Declined" })
        // writes that change nothing send nothing; a rolled-back batch sends nothing
        yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: a }] } })
        yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: b }, { personId: "unknown" }] } })
        yield* settled
        expect(hook.received).toHaveLength(4)
      }))

    it.scoped("retries a failing receiver with the same webhook-id until it answers 2xx", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        hook.answer = (_, n) => (n <= 2 ? 500 : 204)
        const { token } = yield* server.organization("wh-retry")
        const secret = yield* register(token, hook.url(), "Event")
        const event = yield* createEvent(server, {}, token)
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Retried" } })
        const attempts = [yield* hook.next(), yield* hook.next(), yield* hook.next()]
        expect(new Set(attempts.map((a) => a.headers["webhook-id"])).size).toBe(1)
        for (const a of attempts) expect(verify(secret, a)).toEqual(attempts[0]!.json)
        // the schedule, with jitter: ~100 ms, then ~200 ms
        expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(80)
        expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(170)
        const log = yield* eventually(deliveries(token), (l) => l.deliveries[0]?.status === "delivered")
        expect(log.deliveries[0]).toMatchObject({ status: "delivered", attempts: 3, lastStatusCode: 204, lastError: null, nextAttemptAt: null })
      }))

    it.scoped("gives up on a receiver that hangs past the timeout, then retries it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        hook.answer = (_, n) => (n === 1 ? "hang" : 200)
        const { token } = yield* server.organization("wh-timeout")
        yield* register(token, hook.url(), "Event")
        const event = yield* createEvent(server, {}, token)
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Slow" } })
        const first = yield* hook.next()
        const second = yield* hook.next()
        expect(second.at - first.at).toBeGreaterThanOrEqual(400)
        expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"])
        const log = yield* eventually(deliveries(token), (l) => l.deliveries[0]?.status === "delivered")
        expect(log.deliveries[0]).toMatchObject({ status: "delivered", attempts: 2 })
      }))

    it.scoped("marks a delivery failed once the schedule is exhausted; the log retries it on request", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        hook.answer = () => 503
        const { token } = yield* server.organization("wh-exhaust")
        yield* register(token, hook.url(), "Event")
        const event = yield* createEvent(server, {}, token)
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Doomed" } })
        for (let i = 0; i < 4; i++) yield* hook.next()
        const log = yield* eventually(deliveries(token, "?status=failed"), (l) => l.total === 1)
        expect(log.deliveries[0]).toMatchObject({ status: "failed", attempts: 4, lastStatusCode: 503, lastError: "HTTP 503", nextAttemptAt: null, registration: "active" })
        yield* settled
        expect(hook.received).toHaveLength(4)
        const id = log.deliveries[0].deliveryId
        expect(expectStatus(yield* server.request("POST", `/webhook/deliveries/${id}/retry`, { token }), 200).body).toEqual({ success: true })
        yield* hook.next()
        const again = yield* eventually(deliveries(token, "?status=failed"), (l) => l.deliveries[0]?.attempts === 5)
        expect(again.deliveries[0]).toMatchObject({ status: "failed", attempts: 5 })
        hook.answer = () => 200
        yield* server.request("POST", `/webhook/deliveries/${id}/retry`, { token })
        yield* hook.next()
        yield* eventually(deliveries(token, "?status=delivered"), (l) => l.total === 1)
        expectError(yield* server.request("POST", `/webhook/deliveries/${id}/retry`, { token }), 409, "conflict")
        expectError(yield* server.request("POST", "/webhook/deliveries/unknown/retry", { token }), 404, "not_found")
        expect((yield* deliveries(token, "?status=pending")).total).toBe(0)
        expectError(yield* server.request("GET", "/webhook/deliveries?status=lost", { token }), 400, "invalid_request")
      }))

    it.scoped("disables a registration whose receiver answers 410 Gone", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        hook.answer = () => 410
        const { token } = yield* server.organization("wh-gone")
        yield* register(token, hook.url(), "Event")
        const event = yield* createEvent(server, {}, token)
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Gone 1" } })
        yield* hook.next()
        const log = yield* eventually(deliveries(token), (l) => l.deliveries[0]?.status === "failed")
        expect(log.deliveries[0]).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 410, registration: "disabled" })
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Gone 2" } })
        yield* settled
        expect(hook.received).toHaveLength(1)
        expect((yield* deliveries(token)).total).toBe(1)
        // registering again re-enables it
        hook.answer = () => 200
        yield* register(token, hook.url(), "Event")
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Back" } })
        expect((yield* hook.next()).json.data.name).toBe("Back")
      }))

    it.scoped("cancels pending deliveries when their registration is deleted", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        hook.answer = () => 500
        const { token } = yield* server.organization("wh-cancel")
        yield* register(token, hook.url(), "Event")
        const event = yield* createEvent(server, {}, token)
        yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Cancel me" } })
        yield* hook.next()
        yield* server.request("DELETE", "/webhook", { token, body: { webhook: hook.url(), type: "Event" } })
        const log = yield* eventually(deliveries(token), (l) => l.deliveries[0]?.status === "cancelled")
        expect(log.deliveries[0]).toMatchObject({ status: "cancelled", registration: "deleted" })
        yield* settled
        expect(hook.received).toHaveLength(1)
        // a retry on request gives it one more attempt, with the same webhook-id, and no more
        hook.answer = () => 200
        expect(expectStatus(yield* server.request("POST", `/webhook/deliveries/${log.deliveries[0].deliveryId}/retry`, { token }), 200).body)
          .toEqual({ success: true })
        const again = yield* hook.next()
        expect(again.headers["webhook-id"]).toBe(hook.received[0]!.headers["webhook-id"])
        const done = yield* eventually(deliveries(token), (l) => l.deliveries[0]?.status === "delivered")
        expect(done.deliveries[0]).toMatchObject({ attempts: 2, lastStatusCode: 200 })
        yield* settled
        expect(hook.received).toHaveLength(2)
      }))
  })
})

layer(testServer({ ...fast, WEBHOOK_PAYLOAD_VARIANT: "envelopes" }), { excludeTestServices: true })("webhooks (envelopes variant)", (it) => {
  it.scoped("sends action envelopes", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const hook = yield* receiver
      const { token } = yield* server.organization("wh-envelopes")
      yield* register(token, hook.url("/person"), "EventPerson")
      yield* register(token, hook.url("/list"), "GuestList")
      const event = yield* createEvent(server, {}, token)
      const [a, b] = [yield* createPerson(server, {}, token), yield* createPerson(server, {}, token)]
      yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: a }, { personId: b }] } })
      const added = yield* hook.next()
      expect(added.json).toMatchObject({ eventId: event.eventId, action: "guestlist_updated", data: { addedCount: 2, removedCount: 0, updatedCount: 0 } })
      yield* server.request("PUT", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: a, rsvpStatus: "Maybe" }] } })
      const two = [yield* hook.next(), yield* hook.next()].sort((x, y) => x.path.localeCompare(y.path))
      expect(two[0]!.json).toMatchObject({ action: "guestlist_updated", data: { addedCount: 0, removedCount: 0, updatedCount: 1 } })
      expect(two[1]!.json).toMatchObject({
        eventId: event.eventId,
        personId: a,
        action: "rsvp_updated",
        data: { rsvpStatus: "Maybe", previousStatus: "Invited" }
      })
      expect(typeof two[1]!.json.data.timestamp).toBe("string")
      const sample = expectStatus(yield* server.request("GET", "/webhook"), 200).body
      expect(sample.contacts[0]).toMatchObject({ action: "rsvp_updated", data: { rsvpStatus: "Accepted", previousStatus: "Invited" } })
    }))
})

layer(testServer({ WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "false" }), { excludeTestServices: true })("webhooks (public destinations only)", (it) => {
  it.scoped("refuses loopback, private and link-local destinations at registration", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (const webhook of [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://LOCALHOST./hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://172.20.0.1/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[fe80::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook"
      ]) {
        const reply = expectError(yield* server.request("POST", "/webhook", { body: { webhook, type: "Event" } }), 400, "invalid_request")
        expect(reply.body.issues[0].path).toBe("webhook")
      }
      expectStatus(yield* server.request("POST", "/webhook", { body: { webhook: "https://hooks.example.com/x", type: "Event" } }), 200)
    }))

  it.effect("refuses names that resolve to non-public addresses when connecting", () =>
    Effect.gen(function*() {
      const resolveTo = (address: string, family: number) => (_: string, __: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) =>
        cb(null, [{ address, family }])
      const lookup = (allow: boolean, address: string, family = 4) =>
        Effect.async<string>((resume) => {
          guardedLookup(allow, resolveTo(address, family) as never)("hooks.example.com", { all: false }, (error, result) =>
            resume(Effect.succeed(error ? `refused: ${error.message}` : String(result))))
        })
      expect(yield* lookup(false, "10.0.0.7")).toMatch(/^refused: hooks\.example\.com resolves to 10\.0\.0\.7/)
      expect(yield* lookup(false, "::1", 6)).toMatch(/^refused/)
      expect(yield* lookup(false, "93.184.216.34")).toBe("93.184.216.34")
      expect(yield* lookup(true, "10.0.0.7")).toBe("10.0.0.7")
    }))
})
