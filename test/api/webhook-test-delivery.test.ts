/**
 * `POST /webhook/test` (docs/integrators.md#test-deliveries, also sent from the dashboard): a sample notification of the
 * registration's type goes through the outbox and the dispatcher like any other, signed, retried
 * and logged, marked as a test; only the caller's organization's active registrations get one.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { Webhook } from "standardwebhooks"
import type { Role } from "../../src/Domain/Role.js"
import type { OrganizationRowId } from "../../src/Domain/RowIds.js"
import { Members } from "../../src/Organizations/Members.js"
import { createEvent, eventually, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { settled } from "../support/Outbox.js"
import { type Received, receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

const fast = {
  WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms",
  WEBHOOK_TIMEOUT: "400ms",
  WEBHOOK_CONCURRENCY: "8"
}

let counter = 0
const next = () => `${process.pid}-${++counter}`

/** Verifies a delivery with the Standard Webhooks reference implementation; answers its body. */
const verify = (secret: string, received: Received) =>
  new Webhook(secret).verify(received.body, {
    "webhook-id": String(received.headers["webhook-id"]),
    "webhook-timestamp": String(received.headers["webhook-timestamp"]),
    "webhook-signature": String(received.headers["webhook-signature"])
  })

const register = (token: string, webhook: string, type: string) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.map(server.request("POST", "/webhook", { token, body: { webhook, type } }), (r) => expectStatus(r, 200).body.secret as string))

const sendTest = (token: string, webhook: string, type: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.map(server.request("POST", "/webhook/test", { token, body: { webhook, type }, headers }), (r) => {
      expectStatus(r, 200)
      expect(Object.keys(r.body).sort()).toEqual(["deliveryId", "success"])
      expect(r.body.success).toBe(true)
      return r.body.deliveryId as string
    }))

const deliveries = (token: string, query = "") =>
  Effect.flatMap(TestServer, (server) =>
    Effect.map(server.request("GET", `/webhook/deliveries${query}`, { token }), (r) => expectStatus(r, 200).body))


const deliveryOf = (token: string, deliveryId: string) =>
  Effect.map(deliveries(token, "?limit=100"), (log) => log.deliveries.find((d: { deliveryId: string }) => d.deliveryId === deliveryId))

/** A member of the organization with `role`, logged in over the legacy scheme. */
const memberOf = (org: { id: OrganizationRowId; slug: string }, role: Role) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const email = uniqueEmail(`${org.slug}-${role.replace(" ", "").toLowerCase()}`)
    const password = `password of ${email}`
    yield* (yield* Members).addDirectly({ id: org.id, slug: org.slug, name: org.slug }, {
      email,
      password: Option.some(Redacted.make(password)),
      firstName: "Pat",
      lastName: role,
      role
    }).pipe(Effect.orDie)
    return (yield* login(server, email, password, org.slug)).headers
  })

const organization = (label: string) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    return { id: created.id, slug, token: created.token }
  })

layer(testServer(fast), { excludeTestServices: true })("test deliveries (records variant)", (it) => {
  describe("delivery", () => {
    it.scoped("sends a signed sample of each type to that registration alone, logged as a test", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        const org = yield* organization("test-send")
        const secrets = {
          EventPerson: yield* register(org.token, hook.url("/person"), "EventPerson"),
          GuestList: yield* register(org.token, hook.url("/list"), "GuestList"),
          Event: yield* register(org.token, hook.url("/event"), "Event")
        }
        // another registration of the same type elsewhere gets nothing from a test of this one
        yield* register(org.token, hook.url("/other"), "EventPerson")

        const personDelivery = yield* sendTest(org.token, hook.url("/person"), "EventPerson")
        const person = yield* hook.next()
        expect(person.path).toBe("/person")
        // the body is the sample GET /webhook shows, signed with this registration's secret
        const sample = expectStatus(yield* server.request("GET", "/webhook", { token: org.token }), 200).body
        expect(verify(secrets.EventPerson, person)).toEqual(sample.contacts)
        expect(person.headers["webhook-id"]).toMatch(/^msg_test_[0-9a-f]{32}$/)
        expect(person.headers["content-type"]).toBe("application/json")
        expect(() => verify(secrets.GuestList, person)).toThrow()

        yield* sendTest(org.token, hook.url("/list"), "GuestList")
        const list = yield* hook.next()
        expect(list.path).toBe("/list")
        const guests = verify(secrets.GuestList, list) as Array<Record<string, unknown>>
        expect(guests).toHaveLength(1)
        // a GuestList record: the guest fields of an EventPerson record, without events and email3
        expect(Object.keys(guests[0]!)).toEqual(Object.keys(sample.contacts[0]).slice(2))
        expect(guests[0]).toMatchObject({ firstName: "Jane", lastName: "Doe", rsvpStatus: "Accepted", eventName: "Sample Summer Gala" })

        yield* sendTest(org.token, hook.url("/event"), "Event")
        const event = yield* hook.next()
        expect(event.path).toBe("/event")
        expect(verify(secrets.Event, event)).toEqual({
          eventId: "00000000-0000-4000-8000-000000000001",
          action: "event_updated",
          data: { name: "Sample Summer Gala", primaryDate: "2030-06-01T20:00:00+02:00", updatedFields: ["name", "primaryDate"], timestamp: "2030-05-01T17:30:00.000Z" }
        })

        yield* settled
        expect(hook.received.map((r) => r.path)).toEqual(["/person", "/list", "/event"])

        const log = yield* eventually(deliveries(org.token), (l) => l.deliveries.every((d: { status: string }) => d.status === "delivered"))
        expect(log.total).toBe(3)
        expect(log.deliveries.map((d: { type: string }) => d.type)).toEqual(["Event", "GuestList", "EventPerson"])
        const logged = log.deliveries.find((d: { deliveryId: string }) => d.deliveryId === personDelivery)
        expect(logged).toEqual({
          deliveryId: personDelivery,
          webhookId: person.headers["webhook-id"],
          type: "EventPerson",
          webhook: hook.url("/person"),
          status: "delivered",
          attempts: 1,
          lastStatusCode: 200,
          lastError: null,
          lastResponse: "ok",
          createdAt: expect.any(String),
          nextAttemptAt: null,
          registration: "active",
          test: true
        })
        expect(log.deliveries.every((d: { test: boolean }) => d.test)).toBe(true)

        // a notification of a real change is not a test
        const real = yield* createEvent(server, { name: "Real" }, org.token)
        yield* server.request("PATCH", `/event/${real.eventId}`, { token: org.token, body: { name: "Really real" } })
        const notified = yield* hook.next()
        expect(notified.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/)
        const after = yield* eventually(deliveries(org.token), (l) => l.total === 4 && l.deliveries[0].status === "delivered")
        expect(after.deliveries[0]).toMatchObject({ type: "Event", test: false, webhookId: notified.headers["webhook-id"] })
      }))

    it.scoped("retries a test delivery like any other while the receiver fails, with one webhook-id", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        hook.answer = (_, n) => (n <= 2 ? 503 : 200)
        const org = yield* organization("test-retry")
        const secret = yield* register(org.token, hook.url(), "GuestList")
        const id = yield* sendTest(org.token, hook.url(), "GuestList")
        const done = yield* eventually(deliveryOf(org.token, id), (d) => d?.status === "delivered")
        expect(done).toMatchObject({ status: "delivered", attempts: 3, lastStatusCode: 200, test: true })
        expect(hook.received).toHaveLength(3)
        expect(new Set(hook.received.map((r) => r.headers["webhook-id"])).size).toBe(1)
        for (const r of hook.received) expect(verify(secret, r)).toEqual(hook.received[0]!.json)

        // always failing: given up after 1 + the schedule's length, then retried on request
        hook.answer = () => 500
        const failing = yield* sendTest(org.token, hook.url(), "GuestList")
        const failed = yield* eventually(deliveryOf(org.token, failing), (d) => d?.status === "failed")
        expect(failed).toMatchObject({ status: "failed", attempts: 4, lastStatusCode: 500, lastError: "HTTP 500", test: true })
        hook.answer = () => 200
        expect(expectStatus(yield* server.request("POST", `/webhook/deliveries/${failing}/retry`, { token: org.token }), 200).body).toEqual({ success: true })
        expect(yield* eventually(deliveryOf(org.token, failing), (d) => d?.status === "delivered")).toMatchObject({ attempts: 5, test: true })
        expect((yield* deliveries(org.token, "?status=failed")).total).toBe(0)
      }))

    it.scoped("sends once per Idempotency-Key", () =>
      Effect.gen(function*() {
        const hook = yield* receiver
        const org = yield* organization("test-idem")
        yield* register(org.token, hook.url(), "Event")
        const key = { "idempotency-key": `test-delivery-${next()}` }
        const first = yield* sendTest(org.token, hook.url(), "Event", key)
        expect(yield* sendTest(org.token, hook.url(), "Event", key)).toBe(first)
        yield* hook.next()
        yield* settled
        expect(hook.received).toHaveLength(1)
        expect((yield* deliveries(org.token)).total).toBe(1)
      }))
  })

  describe("refusals", () => {
    it.scoped("404 for a URL and type not registered, deleted, disabled, or another organization's", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        const org = yield* organization("test-404")
        const other = yield* organization("test-404-other")
        const test = (token: string, webhook: string, type: string) =>
          server.request("POST", "/webhook/test", { token, body: { webhook, type } })
        yield* register(org.token, hook.url("/mine"), "EventPerson")
        yield* register(other.token, hook.url("/theirs"), "EventPerson")

        expectError(yield* test(org.token, hook.url("/unknown"), "EventPerson"), 404, "not_found")
        // registered for another type only
        expectError(yield* test(org.token, hook.url("/mine"), "GuestList"), 404, "not_found")
        // another organization's registration is an unknown one
        expectError(yield* test(org.token, hook.url("/theirs"), "EventPerson"), 404, "not_found")
        // deleted
        yield* register(org.token, hook.url("/gone"), "Event")
        expectStatus(yield* server.request("DELETE", "/webhook", { token: org.token, body: { webhook: hook.url("/gone"), type: "Event" } }), 200)
        expectError(yield* test(org.token, hook.url("/gone"), "Event"), 404, "not_found")
        // disabled by a 410 Gone answer, until registered again
        hook.answer = () => 410
        yield* register(org.token, hook.url("/tired"), "Event")
        const first = yield* sendTest(org.token, hook.url("/tired"), "Event")
        yield* eventually(deliveryOf(org.token, first), (d) => d?.registration === "disabled")
        expectError(yield* test(org.token, hook.url("/tired"), "Event"), 404, "not_found")
        hook.answer = () => 200
        yield* register(org.token, hook.url("/tired"), "Event")
        yield* sendTest(org.token, hook.url("/tired"), "Event")

        yield* settled
        expect(hook.received.map((r) => r.path)).toEqual(["/tired", "/tired"])
        expect((yield* deliveries(other.token)).total).toBe(0)
      }))

    it.scoped("403 below Admin, 401 without credentials, 400 for a bad body", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hook = yield* receiver
        const org = yield* organization("test-roles")
        yield* register(org.token, hook.url(), "EventPerson")
        const body = { webhook: hook.url(), type: "EventPerson" }
        for (const role of ["Team Member", "Viewer"] as const) {
          const headers = yield* memberOf(org, role)
          expectError(yield* server.request("POST", "/webhook/test", { token: null, headers, body }), 403, "forbidden")
        }
        const admin = yield* memberOf(org, "Admin")
        expectStatus(yield* server.request("POST", "/webhook/test", { token: null, headers: admin, body }), 200)
        expectError(yield* server.request("POST", "/webhook/test", { token: null, body }), 401, "unauthorized")

        for (const bad of [
          { webhook: hook.url(), type: "Person" },
          { webhook: hook.url() },
          { type: "EventPerson" },
          { webhook: "not a url", type: "EventPerson" },
          { webhook: "javascript:alert(1)", type: "EventPerson" }
        ]) {
          const reply = expectError(yield* server.request("POST", "/webhook/test", { token: org.token, body: bad }), 400, "invalid_request")
          expect(reply.body.issues.length).toBeGreaterThan(0)
        }
        expectError(yield* server.request("POST", "/webhook/test", { token: org.token, rawBody: "{", headers: { "content-type": "application/json" } }), 400, "invalid_request")

        yield* hook.next()
        yield* settled
        expect(hook.received).toHaveLength(1)
      }))
  })

  it.effect("/openapi.json documents POST /webhook/test with every status, and the test flag of deliveries", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const spec = expectStatus(yield* server.request("GET", "/openapi.json", { token: null }), 200).body
      const operation = spec.paths["/webhook/test"].post
      expect(operation.summary).toMatch(/test delivery/i)
      expect(operation.description).toContain("msg_test_")
      expect(Object.keys(operation.responses).sort()).toEqual(["200", "400", "401", "403", "404", "409", "413", "422", "429", "500"])
      expect(operation.security).toEqual([{ apiKey: [] }, { bearer: [] }])
      expect(operation.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key")
      const request = spec.components.schemas[operation.requestBody.content["application/json"].schema.$ref.split("/").pop()]
      expect(request.required.sort()).toEqual(["type", "webhook"])
      expect(request.properties.type.enum ?? request.properties.type.anyOf).toBeDefined()
      expect(request.examples).toEqual([{ webhook: "https://crm.example.com/hooks/convene", type: "EventPerson" }])
      const answer = spec.components.schemas[operation.responses["200"].content["application/json"].schema.$ref.split("/").pop()]
      expect(answer.required.sort()).toEqual(["deliveryId", "success"])
      expect(answer.examples?.[0]).toMatchObject({ success: true })
      expect(JSON.stringify(operation.responses["404"])).toContain("NotFound")
      expect(spec.components.schemas["WebhookDelivery"].properties.test).toMatchObject({ type: "boolean" })
      expect(spec.components.schemas["WebhookDelivery"].required).toContain("test")
    }))
})

layer(testServer({ ...fast, WEBHOOK_PAYLOAD_VARIANT: "envelopes" }), { excludeTestServices: true })("test deliveries (envelopes variant)", (it) => {
  it.scoped("sends the samples in the envelopes shape", () =>
    Effect.gen(function*() {
      const hook = yield* receiver
      const org = yield* organization("test-envelopes")
      const secrets = {
        EventPerson: yield* register(org.token, hook.url("/person"), "EventPerson"),
        GuestList: yield* register(org.token, hook.url("/list"), "GuestList")
      }
      yield* sendTest(org.token, hook.url("/person"), "EventPerson")
      expect(verify(secrets.EventPerson, yield* hook.next())).toEqual({
        eventId: "00000000-0000-4000-8000-000000000001",
        personId: "00000000-0000-4000-8000-000000000002",
        action: "rsvp_updated",
        data: { rsvpStatus: "Accepted", previousStatus: "Invited", timestamp: "2030-05-01T17:30:00.000Z" }
      })
      yield* sendTest(org.token, hook.url("/list"), "GuestList")
      expect(verify(secrets.GuestList, yield* hook.next())).toEqual({
        eventId: "00000000-0000-4000-8000-000000000001",
        action: "guestlist_updated",
        data: { addedCount: 0, removedCount: 0, updatedCount: 1, timestamp: "2030-05-01T17:30:00.000Z" }
      })
    }))
})
