/**
 * Payments over the database, on the suite's engine (the API's proof: test/api/payments.test.ts):
 * a purchase's totals, a guest's status and amounts from their own items only, item refunds
 * deducted and whole-purchase refunds counted, disputes; read back both ways a guest is read (the
 * list's JSON written by the database with its payments appended, and the renderer's guest).
 */
import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, Schema, Stream } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { NewGuest } from "../../src/Guests/Domain.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { NewPurchase, NewRefund } from "../../src/Payments/Domain.js"
import { Payments } from "../../src/Payments/Payments.js"
import { CreatePerson } from "../../src/Persons/Domain.js"
import { Persons } from "../../src/Persons/Persons.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

type Guest = Record<string, any>

const setup = (slug: string) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase
    const { caller } = yield* db.organization(slug)
    const event = yield* (yield* Events).create(
      caller,
      Schema.decodeUnknownSync(CreateEvent)({ name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00", ticketingEnabled: true })
    )
    const persons = yield* Persons
    const ids: Array<string> = []
    for (const name of ["alice", "bob", "carol"]) {
      ids.push((yield* persons.create(caller, Schema.decodeUnknownSync(CreatePerson)({ firstName: name, lastName: "P", email: `${name}@${slug}.test` }))).personId)
    }
    yield* (yield* GuestLists).add(caller, event.eventId, ids.map((personId) => Schema.decodeUnknownSync(NewGuest)({ personId })))
    const [alice, bob, carol] = ids as [string, string, string]
    return { caller, eventId: event.eventId, alice, bob, carol }
  })

/** Every guest as the list reads it (JSON from the database, payments appended) and as the renderer does: both the same. */
const guests = (caller: Caller, eventId: string) =>
  Effect.gen(function*() {
    const lists = yield* GuestLists
    const texts = yield* Effect.scoped(Effect.flatMap(lists.list(caller, eventId), Stream.runCollect))
    const listed = Chunk.toReadonlyArray(texts).flat().map((text) => JSON.parse(String(text)) as Guest)
    for (const guest of listed) {
      expect(guest).toEqual(JSON.parse(JSON.stringify((yield* lists.guest(caller, eventId, guest["personId"])).guest)))
    }
    return Object.fromEntries(listed.map((g) => [g["personId"], g])) as Record<string, Guest>
  })

const item = (personId: string, type: string, subtotal: number, extra: Record<string, unknown> = {}) => ({
  personId,
  type,
  subtotal,
  tax: Math.round(subtotal / 10),
  serviceFee: 100,
  ...extra
})

const purchase = (caller: Caller, eventId: string, body: Record<string, unknown>) =>
  Effect.flatMap(Payments, (payments) => payments.purchase(caller, eventId, Schema.decodeUnknownSync(NewPurchase)(body)))

const refund = (caller: Caller, eventId: string, purchaseId: string, body: Record<string, unknown>) =>
  Effect.flatMap(Payments, (payments) => payments.refund(caller, eventId, purchaseId, Schema.decodeUnknownSync(NewRefund)(body)))

layer(testDatabase(), { excludeTestServices: true })("payments over the database", (it) => {
  it.effect("a guest's status and amounts come from their own items, never summed across guests", () =>
    Effect.gen(function*() {
      const { alice, bob, caller, carol, eventId } = yield* setup("pay-own")
      const shared = yield* purchase(caller, eventId, {
        invoiceNumber: "INV-1001",
        items: [item(alice, "TICKET", 5000, { promoCode: "EARLY" }), item(alice, "DONATION", 1000), item(bob, "TICKET", 5000)]
      })
      expect(shared.items.map((i) => [i.type, i.total])).toEqual([["TICKET", 5600], ["DONATION", 1200], ["TICKET", 5600]])
      const g = yield* guests(caller, eventId)
      expect(g[alice]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5600, donationAmount: 1200 })
      expect(g[bob]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5600, donationAmount: null })
      expect(g[carol]).toMatchObject({ paymentStatus: "none", paymentAmount: 0, donationAmount: null, payments: [] })
      expect(g[alice]!["payments"]).toEqual([expect.objectContaining({
        purchaseId: shared.purchaseId,
        invoiceNumber: "INV-1001",
        total: 12400,
        refundedAmount: 0,
        refundCount: 0,
        disputedAt: null
      })])
      expect(g[alice]!["payments"][0].items.map((i: Guest) => [i["type"], i["subtotal"], i["tax"], i["serviceFee"], i["total"], i["promoCode"]])).toEqual([
        ["TICKET", 5000, 500, 100, 5600, "EARLY"],
        ["DONATION", 1000, 100, 100, 1200, null]
      ])
      expect(g[bob]!["payments"][0].total).toBe(12400)
      expect(g[bob]!["payments"][0].items).toHaveLength(1)
    }))

  it.effect("item refunds are deducted, whole-purchase ones counted; reaching the total refunds everyone; disputes are chargebacks", () =>
    Effect.gen(function*() {
      const { alice, bob, caller, carol, eventId } = yield* setup("pay-refunds")
      const p = yield* purchase(caller, eventId, { items: [item(alice, "TICKET", 5000), item(bob, "TICKET", 5000)] })
      expect(p.invoiceNumber).toMatch(/^INV-[0-9A-F]{8}$/)
      yield* refund(caller, eventId, p.purchaseId, { amount: 600, itemId: p.items[0]!.itemId })
      let g = yield* guests(caller, eventId)
      expect(g[alice]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5000 })
      expect(g[alice]!["payments"][0]).toMatchObject({ total: 11200, refundedAmount: 600, refundCount: 1 })
      yield* refund(caller, eventId, p.purchaseId, { amount: 1000 })
      g = yield* guests(caller, eventId)
      expect(g[bob]).toMatchObject({ paymentStatus: "paid", paymentAmount: 5600 })
      expect(g[bob]!["payments"][0]).toMatchObject({ refundedAmount: 1600, refundCount: 2 })
      yield* refund(caller, eventId, p.purchaseId, { amount: 5000, itemId: p.items[0]!.itemId })
      g = yield* guests(caller, eventId)
      expect(g[alice]).toMatchObject({ paymentStatus: "refunded", paymentAmount: 0 })
      // more than is left: refused, nothing recorded
      expect((yield* Effect.either(refund(caller, eventId, p.purchaseId, { amount: 10_000 })))._tag).toBe("Left")
      expect((yield* Effect.either(refund(caller, eventId, p.purchaseId, { amount: 1, itemId: p.items[0]!.itemId })))._tag).toBe("Left")
      yield* refund(caller, eventId, p.purchaseId, { amount: 11200 - 600 - 1000 - 5000 })
      g = yield* guests(caller, eventId)
      expect(g[bob]).toMatchObject({ paymentStatus: "refunded", paymentAmount: 5600 })
      expect(g[bob]!["payments"][0]).toMatchObject({ refundedAmount: 11200, refundCount: 4 })

      const disputed = yield* purchase(caller, eventId, { items: [item(carol, "TICKET", 3000)] })
      yield* (yield* Payments).dispute(caller, eventId, disputed.purchaseId)
      g = yield* guests(caller, eventId)
      expect(g[carol]!["paymentStatus"]).toBe("chargeback")
      expect(typeof g[carol]!["payments"][0].disputedAt).toBe("string")
    }))
})
