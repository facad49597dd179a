import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Guests, GuestSearchResult } from "../../src/Guests/Api.js"
import { PersonDetail } from "../../src/Persons/Domain.js"
import { createEvent, createPerson, expectStatus } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

/** The body decodes with the declared schema, and encoding it again gives the body back. */
const conforms = <A, I>(schema: Schema.Schema<A, I>, body: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema, { onExcessProperty: "error" })(body)
  expect(Schema.encodeSync(schema)(decoded)).toEqual(body)
}

layer(testServer(), { excludeTestServices: true })("responses sent without the encoder", (it) => {
  it.effect("match the schemas /openapi.json documents, field for field", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server, { ticketingEnabled: true, customColumns: ["Table"], primarySlug: `conf-${process.pid}` })
      const a = yield* createPerson(server, { phone: "+1 555 7000" })
      const b = yield* createPerson(server)
      yield* server.request("PUT", `/person/${a}`, { body: { personId: a, smsConsent: "optedIn" } })
      const added = expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId: a }, { personId: b }] } }), 200).body
      conforms(Guests, added)
      const updated = expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
        body: { guests: [{ personId: a, rsvpStatus: "Accepted", attendanceStatus: "Attended", dietaryRestrictions: ["vegan"], rsvpNote: "hi", customColumns: { Table: 4 } }] }
      }), 200).body
      conforms(Guests, updated)
      const purchase = expectStatus(yield* server.request("POST", `/event/${event.eventId}/purchase`, {
        body: { items: [{ personId: a, type: "TICKET", subtotal: 1000, tax: 100, serviceFee: 50, promoCode: "X" }, { personId: a, type: "DONATION", subtotal: 500, tax: 0, serviceFee: 0 }] }
      }), 200).body
      yield* server.request("POST", `/event/${event.eventId}/purchase/${purchase.purchaseId}/refund`, { body: { amount: 100, itemId: purchase.items[0].itemId } })
      const list = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist`), 200).body
      expect(list.guests[0].payments).toHaveLength(1)
      conforms(Guests, list)
      const search = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${a},${b}&generateRsvpLinks=true`), 200).body
      expect(search.guests[0].rsvpLink).not.toBeNull()
      conforms(GuestSearchResult, search)
      expectStatus(yield* server.request("POST", "/custom-field", { body: { fieldName: `Size ${process.pid}`, fieldType: "text" } }), 200)
      yield* server.request("PUT", `/person/${a}`, { body: { personId: a, customFields: { [`Size ${process.pid}`]: "L" } } })
      const person = expectStatus(yield* server.request("GET", `/person/${a}`), 200).body
      expect(person.eventHistory[0].rsvpStatusHistory.length).toBeGreaterThan(0)
      expect(person.customFieldsDetailed).toHaveLength(1)
      conforms(PersonDetail, person)
    }))
})
