/**
 * The webhook pool's fairness in real time (moved from test/api/webhooks.test.ts, which holds the
 * rest): a slow receiver, a slow receiver's old backlog, or one organization's many slow receivers
 * never hold up another's deliveries past a second or so. (The same shares, step by step under
 * TestClock: test/unit/dispatcher.test.ts.)
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createEvent, expectStatus } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

const fast = {
  WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,300ms",
  WEBHOOK_TIMEOUT: "400ms",
  WEBHOOK_CONCURRENCY: "8"
}

const register = (token: string, webhook: string, type: string) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.map(server.request("POST", "/webhook", { token, body: { webhook, type } }), (r) => expectStatus(r, 200).body.secret as string))

/**
 * Another organization's notification, written now, reaches its receiver within 1.5 s, whatever
 * the pool is busy with.
 */
const arrivesPromptly = (slug: string) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const quick = yield* receiver
    const other = yield* server.organization(slug)
    yield* register(other.token, quick.url(), "Event")
    const event = yield* createEvent(server, {}, other.token)
    const sent = Date.now()
    yield* server.request("PATCH", `/event/${event.eventId}`, { token: other.token, body: { name: "Quick" } })
    const arrived = yield* quick.next(10_000)
    expect(arrived.json.data.name).toBe("Quick")
    expect(arrived.at - sent).toBeLessThan(1_500)
  })

layer(testServer({ ...fast, WEBHOOK_CONCURRENCY: "4", WEBHOOK_TIMEOUT: "5 seconds" }), { excludeTestServices: true })("webhooks (pool)", (it) => {
  it.scoped("keeps a slow receiver from holding up the others", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const slow = yield* receiver
      const quick = yield* receiver
      slow.answer = () => "hang"
      const { token } = yield* server.organization("wh-pool")
      yield* register(token, slow.url(), "Event")
      const event = yield* createEvent(server, {}, token)
      for (let i = 0; i < 6; i++) yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: `Busy ${i}` } })
      yield* slow.next()
      yield* register(token, quick.url(), "Event")
      const sent = Date.now()
      yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Quick" } })
      const arrived = yield* quick.next(2_000)
      expect(arrived.json.data.name).toBe("Quick")
      expect(arrived.at - sent).toBeLessThan(1_000)
      // the slow receiver holds one slot of four, not all
      expect(slow.received.length).toBe(1)
    }))

  it.scoped("keeps a slow receiver's backlog, however old, from holding up another organization's deliveries", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const slow = yield* receiver
      slow.answer = () => "hang"
      const busy = yield* server.organization("wh-backlog")
      yield* register(busy.token, slow.url(), "Event")
      const event = yield* createEvent(server, {}, busy.token)
      // more due deliveries than a look for due ones reads (4 per free slot), all older than the other's
      for (let i = 0; i < 60; i++) yield* server.request("PATCH", `/event/${event.eventId}`, { token: busy.token, body: { name: `Busy ${i}` } })
      yield* slow.next()
      yield* arrivesPromptly("wh-backlog-other")
    }), 30_000)

  it.scoped("keeps one organization's slow receivers to half of the pool", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const busy = yield* server.organization("wh-greedy")
      // four registrations: each within its own quarter, together all eight slots
      const slows = [yield* receiver, yield* receiver, yield* receiver, yield* receiver]
      for (const slow of slows) {
        slow.answer = () => "hang"
        yield* register(busy.token, slow.url(), "Event")
      }
      const event = yield* createEvent(server, {}, busy.token)
      for (let i = 0; i < 15; i++) yield* server.request("PATCH", `/event/${event.eventId}`, { token: busy.token, body: { name: `Busy ${i}` } })
      for (const slow of slows) yield* slow.next()
      yield* arrivesPromptly("wh-greedy-other")
    }), 30_000)
})
