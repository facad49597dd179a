import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createEvent, createPerson, expectError, expectStatus } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

type Guest = Record<string, any>

const setup = Effect.gen(function*() {
  const server = yield* TestServer
  const event = yield* createEvent(server, { ticketingEnabled: true })
  const [alice, bob, carol] = [yield* createPerson(server), yield* createPerson(server), yield* createPerson(server)]
  yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
    body: { guests: [{ personId: alice }, { personId: bob }, { personId: carol }] }
  })
  const guests = Effect.map(server.request("GET", `/event/${event.eventId}/guestlist`), (r) =>
    Object.fromEntries((r.body.guests as Array<Guest>).map((g) => [g.personId, g])))
  const purchase = (body: Record<string, unknown>) =>
    Effect.map(server.request("POST", `/event/${event.eventId}/purchase`, { body }), (r) => expectStatus(r, 200).body)
  return { server, event, alice: alice!, bob: bob!, carol: carol!, guests, purchase }
})

const item = (personId: string, type: string, subtotal: number, extra: Record<string, unknown> = {}) => ({
  personId,
  type,
  subtotal,
  tax: Math.round(subtotal / 10),
  serviceFee: 100,
  ...extra
})

layer(testServer(), { excludeTestServices: true })("payments", (it) => {
  describe("purchases", () => {
    it.effect("computes status and amounts per guest from their own items, never summed across guests", () =>
      Effect.gen(function*() {
        const { alice, bob, carol, guests, purchase } = yield* setup
        const shared = yield* purchase({
          invoiceNumber: "INV-1001",
          items: [item(alice, "TICKET", 5000, { promoCode: "EARLY" }), item(alice, "DONATION", 1000), item(bob, "TICKET", 5000)]
        })
        expect(shared.invoiceNumber).toBe("INV-1001")
        expect(shared.items.map((i: Guest) => [i.type, i.total])).toEqual([["TICKET", 5600], ["DONATION", 1200], ["TICKET", 5600]])
        const g = yield* guests
        expect(g[alice]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5600, donationAmount: 1200 })
        expect(g[bob]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5600, donationAmount: null })
        expect(g[carol]).toMatchObject({ paymentStatus: "none", paymentAmount: 0, donationAmount: null, payments: [] })
        expect(g[alice].payments).toHaveLength(1)
        expect(g[alice].payments[0]).toMatchObject({
          purchaseId: shared.purchaseId,
          invoiceNumber: "INV-1001",
          total: 12400,
          refundedAmount: 0,
          refundCount: 0,
          disputedAt: null
        })
        expect(g[alice].payments[0].items.map((i: Guest) => [i.itemId, i.type, i.subtotal, i.tax, i.serviceFee, i.total, i.promoCode])).toEqual([
          [shared.items[0].itemId, "TICKET", 5000, 500, 100, 5600, "EARLY"],
          [shared.items[1].itemId, "DONATION", 1000, 100, 100, 1200, null]
        ])
        // bob sees the same purchase total, but only his own item
        expect(g[bob].payments[0].total).toBe(12400)
        expect(g[bob].payments[0].items).toHaveLength(1)
      }))

    it.effect("deducts item-level refunds only; whole-purchase refunds leave amounts, and refund everyone when complete", () =>
      Effect.gen(function*() {
        const { alice, bob, event, guests, purchase, server } = yield* setup
        const p = yield* purchase({ items: [item(alice, "TICKET", 5000), item(bob, "TICKET", 5000)] })
        expect(p.invoiceNumber).toMatch(/^INV-[0-9A-F]{8}$/)
        const refund = (body: Record<string, unknown>) => server.request("POST", `/event/${event.eventId}/purchase/${p.purchaseId}/refund`, { body })
        const partial = expectStatus(yield* refund({ amount: 600, itemId: p.items[0].itemId }), 200).body
        expect(partial).toMatchObject({ success: true })
        expect(typeof partial.refundId).toBe("string")
        let g = yield* guests
        expect(g[alice]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5000 })
        expect(g[alice].payments[0]).toMatchObject({ total: 11200, refundedAmount: 600, refundCount: 1 })
        expectStatus(yield* refund({ amount: 1000 }), 200)
        g = yield* guests
        expect(g[alice]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5000 })
        expect(g[bob]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5600 })
        expect(g[bob].payments[0]).toMatchObject({ refundedAmount: 1600, refundCount: 2 })
        // refund the rest of alice's item: she is refunded, bob still paid
        expectStatus(yield* refund({ amount: 5000, itemId: p.items[0].itemId }), 200)
        g = yield* guests
        expect(g[alice]).toMatchObject({ paymentStatus: "refunded", paymentAmount: 0 })
        expect(g[bob]).toMatchObject({ paymentStatus: "paid" })
        // too much: 400, nothing recorded
        expectError(yield* refund({ amount: 10_000 }), 400, "invalid_request")
        expectError(yield* refund({ amount: 1, itemId: p.items[0].itemId }), 400, "invalid_request")
        expectError(yield* refund({ amount: 1, itemId: "nope" }), 400, "invalid_request")
        expectError(yield* refund({ amount: 0 }), 400, "invalid_request")
        // whole-purchase refunds reaching the purchase total refund everyone's items
        expectStatus(yield* refund({ amount: 11200 - 600 - 1000 - 5000 }), 200)
        g = yield* guests
        expect(g[bob]).toMatchObject({ paymentStatus: "refunded", paymentAmount: 5600 })
        expect(g[bob].payments[0]).toMatchObject({ refundedAmount: 11200, refundCount: 4 })
      }))

    it.effect("marks disputed purchases as chargeback", () =>
      Effect.gen(function*() {
        const { alice, bob, event, guests, purchase, server } = yield* setup
        const p = yield* purchase({ items: [item(alice, "TICKET", 3000)] })
        yield* purchase({ items: [item(bob, "TICKET", 3000)] })
        expect(expectStatus(yield* server.request("POST", `/event/${event.eventId}/purchase/${p.purchaseId}/dispute`), 200).body).toEqual({ success: true })
        const g = yield* guests
        expect(g[alice].paymentStatus).toBe("chargeback")
        expect(typeof g[alice].payments[0].disputedAt).toBe("string")
        expect(g[bob].paymentStatus).toBe("paid")
        expectError(yield* server.request("POST", `/event/${event.eventId}/purchase/unknown/dispute`), 404, "not_found")
      }))

    it.effect("refuses purchases for events without ticketing, guests not on the list, and bad amounts", () =>
      Effect.gen(function*() {
        const { alice, event, server } = yield* setup
        const plain = yield* createEvent(server)
        yield* server.request("POST", `/event/${plain.eventId}/guestlist`, { body: { guests: [{ personId: alice }] } })
        expectError(yield* server.request("POST", `/event/${plain.eventId}/purchase`, { body: { items: [item(alice, "TICKET", 100)] } }), 400, "invalid_request")
        const guest = (yield* server.request("GET", `/event/${plain.eventId}/guestlist`)).body.guests[0]
        expect(guest).toMatchObject({ paymentStatus: null, paymentAmount: null, donationAmount: null, payments: null })
        const stranger = yield* createPerson(server)
        const notOnList = expectError(
          yield* server.request("POST", `/event/${event.eventId}/purchase`, { body: { items: [item(alice, "TICKET", 100), item(stranger, "TICKET", 100)] } }),
          400,
          "invalid_request"
        )
        expect(notOnList.body.issues[0].path).toBe("items.1.personId")
        for (const bad of [item(alice, "TICKET", -1), item(alice, "ticket", 100), item(alice, "TICKET", 1.5), { personId: alice, type: "TICKET" }]) {
          expectError(yield* server.request("POST", `/event/${event.eventId}/purchase`, { body: { items: [bad] } }), 400, "invalid_request")
        }
        expectError(yield* server.request("POST", `/event/${event.eventId}/purchase`, { body: { items: [] } }), 400, "invalid_request")
        const other = yield* server.organization("payments-other")
        expectError(
          yield* server.request("POST", `/event/${event.eventId}/purchase`, { token: other.token, body: { items: [item(alice, "TICKET", 100)] } }),
          404,
          "not_found"
        )
      }))
  })
})
