/**
 * Notifications of bulk writes: a guest-list import's GuestList notification carries every
 * affected guest, megabytes for a large file. Its body is stored in parts as it is built and sent
 * part by part (never whole in memory); the receiver must still get one JSON array, byte for byte
 * what was signed. Small notifications keep flowing beside it.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { createEvent, eventually, expectStatus } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

layer(testServer(), { excludeTestServices: true })("bulk notifications", (it) => {
  it.scoped("a 20,000-guest import's GuestList notification arrives whole, in file order, signed over every byte", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const hook = yield* receiver
      const { token } = yield* server.organization(`bulk-hooks-${process.pid}`)
      const secretOf = (path: string, type: string) =>
        Effect.map(server.request("POST", "/webhook", { token, body: { webhook: hook.url(path), type } }), (r) => expectStatus(r, 200).body.secret as string)
      const listSecret = yield* secretOf("/list", "GuestList")
      const eventSecret = yield* secretOf("/event", "Event")
      const event = yield* createEvent(server, { name: "Bulk" }, token)
      const tag = `bulk.${process.pid}`
      const lines = ["email,firstName,lastName,rsvpStatus,dietaryRestrictions,rsvpNote"]
      for (let i = 0; i < 20_000; i++) lines.push(`${tag}.${i}@example.com,Bulk,Guest ${i},Accepted,Vegan;Nuts,"Arrives late, row ${i}"`)
      const imported = yield* Effect.promise(() =>
        fetch(`${server.url}/event/${event.eventId}/guestlist/import`, {
          method: "POST",
          headers: { "content-type": "text/csv", "x-api-key": token },
          body: `${lines.join("\n")}\n`
        }).then((r) => r.json())
      )
      expect(imported).toMatchObject({ rows: 20_000, created: 20_000, errors: [] })
      // a small notification made after it is not held up behind it for good
      expectStatus(yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Bulk, renamed" } }), 200)

      const arrived = [yield* hook.next(60_000), yield* hook.next(60_000)]
      const list = arrived.find((r) => r.path === "/list")!
      const renamed = arrived.find((r) => r.path === "/event")!
      expect(Buffer.byteLength(list.body)).toBeGreaterThan(4 * 1024 * 1024)
      expect(Number(list.headers["content-length"])).toBe(Buffer.byteLength(list.body))
      // the signature covers the whole body as received
      const verify = (secret: string, received: typeof list) =>
        new Webhook(secret).verify(received.body, {
          "webhook-id": received.headers["webhook-id"] as string,
          "webhook-timestamp": received.headers["webhook-timestamp"] as string,
          "webhook-signature": received.headers["webhook-signature"] as string
        })
      expect(() => verify(listSecret, list)).not.toThrow()
      expect(() => verify(eventSecret, renamed)).not.toThrow()
      const guests = list.json as Array<{ email: string; rsvpStatus: string; rsvpNote: string }>
      expect(guests).toHaveLength(20_000)
      expect(guests.map((g) => g.email)).toEqual(Array.from({ length: 20_000 }, (_, i) => `${tag}.${i}@example.com`))
      expect(guests[12_345]).toMatchObject({ rsvpStatus: "Accepted", rsvpNote: "Arrives late, row 12345" })

      // the delivery log shows it delivered, like any other; the dispatcher records a delivery
      // after the receiver's answer, so the log may lag what has arrived by a moment
      const delivered = (log: Array<{ status: string }>) => log.filter((d) => d.status === "delivered")
      const deliveries = yield* eventually(
        Effect.map(server.request("GET", "/webhook/deliveries?limit=10", { token }), (r) => expectStatus(r, 200).body.deliveries as Array<{ status: string }>),
        (log) => delivered(log).length >= 2,
        30_000
      )
      expect(delivered(deliveries)).toHaveLength(2)
    }), 120_000)
})
