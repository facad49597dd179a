/**
 * Tenants never see each other: every route that takes an id, called by another organization with
 * the first one's ids, answers 404 (as an unknown id would) and changes nothing. The table is
 * checked against the API definition, so a new route with an id cannot be left out. Ids of another
 * organization inside a body are refused the same way.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Api } from "../../src/Api.js"
import { databaseDigest } from "../support/Digest.js"
import { createEvent, createPerson, expectError, expectStatus } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

interface Ids {
  readonly personId: string
  readonly eventId: string
  readonly purchaseId: string
  readonly tokenId: string
  readonly deliveryId: string
}

interface Row {
  readonly path: (ids: Ids) => string
  /** A body valid for the caller, so that only the id can be what is refused. */
  readonly body?: (own: { readonly personId: string }, ids: Ids) => unknown
  /** A body that is not JSON, with its content type. */
  readonly raw?: { readonly body: string; readonly contentType: string }
  /** Routes for a Super Admin or a signed-in user, where an API token stops at 403: checked there. */
  readonly coveredIn?: string
}

/** Every route with an id in its path, keyed as the API declares it. */
const ROUTES: Record<string, Row> = {
  "DELETE /api-token/:tokenId": { path: (ids) => `/api-token/${ids.tokenId}` },
  "PATCH /member/:userId": { path: () => "", coveredIn: "test/api/members.test.ts" },
  "DELETE /member/:userId": { path: () => "", coveredIn: "test/api/members.test.ts" },
  "DELETE /member/invitations/:invitationId": { path: () => "", coveredIn: "test/api/members.test.ts" },
  "GET /member/invitations/:token": { path: () => "", coveredIn: "test/api/members.test.ts" },
  "POST /member/invitations/:token/accept": { path: () => "", coveredIn: "test/api/members.test.ts" },
  "GET /person/:id": { path: (ids) => `/person/${ids.personId}` },
  "PUT /person/:id": { path: (ids) => `/person/${ids.personId}`, body: (_, ids) => ({ personId: ids.personId, city: "Elsewhere" }) },
  "DELETE /person/:id": { path: (ids) => `/person/${ids.personId}` },
  "POST /person/:id/unarchive": { path: (ids) => `/person/${ids.personId}/unarchive` },
  "GET /event/:id": { path: (ids) => `/event/${ids.eventId}` },
  "PATCH /event/:id": { path: (ids) => `/event/${ids.eventId}`, body: () => ({ name: "Taken over" }) },
  "GET /event/:id/guestlist": { path: (ids) => `/event/${ids.eventId}/guestlist` },
  "GET /event/:id/guestlist/export": { path: (ids) => `/event/${ids.eventId}/guestlist/export` },
  "POST /event/:id/guestlist/import": {
    path: (ids) => `/event/${ids.eventId}/guestlist/import`,
    raw: { body: "email,firstName,lastName\nnew@stranger.example,New,Guest\n", contentType: "text/csv" }
  },
  "GET /event/:id/invitations": { path: (ids) => `/event/${ids.eventId}/invitations` },
  "POST /event/:id/invitations": { path: (ids) => `/event/${ids.eventId}/invitations`, body: () => ({ statuses: ["Invited"] }) },
  "GET /event/:id/calendar.ics": { path: (ids) => `/event/${ids.eventId}/calendar.ics` },
  "GET /event/:id/guestlist/search": { path: (ids) => `/event/${ids.eventId}/guestlist/search?name=a` },
  "POST /event/:id/guestlist": { path: (ids) => `/event/${ids.eventId}/guestlist`, body: (own) => ({ guests: [{ personId: own.personId }] }) },
  "PUT /event/:id/guestlist": {
    path: (ids) => `/event/${ids.eventId}/guestlist`,
    body: (own) => ({ guests: [{ personId: own.personId, rsvpStatus: "Accepted" }] })
  },
  "DELETE /event/:id/guestlist": { path: (ids) => `/event/${ids.eventId}/guestlist`, body: (own) => ({ guests: [{ personId: own.personId }] }) },
  "POST /event/:id/purchase": {
    path: (ids) => `/event/${ids.eventId}/purchase`,
    body: (own) => ({ items: [{ personId: own.personId, type: "TICKET", subtotal: 100, tax: 0, serviceFee: 0 }] })
  },
  "POST /event/:id/purchase/:purchaseId/refund": { path: (ids) => `/event/${ids.eventId}/purchase/${ids.purchaseId}/refund`, body: () => ({ amount: 1 }) },
  "POST /event/:id/purchase/:purchaseId/dispute": { path: (ids) => `/event/${ids.eventId}/purchase/${ids.purchaseId}/dispute` },
  "POST /webhook/deliveries/:deliveryId/retry": { path: (ids) => `/webhook/deliveries/${ids.deliveryId}/retry` }
}

const methodOf = (key: string) => key.split(" ")[0]!

layer(testServer(), { excludeTestServices: true })("tenancy", (it) => {
  it.effect("the table covers every route with an id", () =>
    Effect.sync(() => {
      const withIds = Object.values(Api.groups).flatMap((group) =>
        Object.values(group.endpoints).filter((e) => e.path.includes(":")).map((e) => `${e.method} ${e.path}`)
      )
      expect(Object.keys(ROUTES).sort()).toEqual(withIds.sort())
    }))

  it.scoped("another organization's ids answer 404 on every route, and change nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const hook = yield* receiver
      // the owner: a person on a ticketed event with a purchase, a token, and a delivered webhook
      expectStatus(yield* server.request("POST", "/webhook", { body: { webhook: hook.url(), type: "Event" } }), 200)
      const personId = yield* createPerson(server)
      const event = yield* createEvent(server, { ticketingEnabled: true })
      expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } }), 200)
      const purchase = expectStatus(
        yield* server.request("POST", `/event/${event.eventId}/purchase`, {
          body: { items: [{ personId, type: "TICKET", subtotal: 100, tax: 0, serviceFee: 0 }] }
        }),
        200
      ).body
      const token = expectStatus(yield* server.request("POST", "/api-token", { body: { name: "owner's" } }), 200).body
      expectStatus(yield* server.request("PATCH", `/event/${event.eventId}`, { body: { name: "Notified" } }), 200)
      yield* hook.next()
      const deliveries = yield* Effect.iterate([] as Array<{ deliveryId: string; status: string }>, {
        while: (list) => list[0]?.status !== "delivered",
        body: () => Effect.map(Effect.zipRight(Effect.sleep(50), server.request("GET", "/webhook/deliveries")), (r) => r.body.deliveries)
      })
      const ids: Ids = { personId, eventId: event.eventId, purchaseId: purchase.purchaseId, tokenId: token.tokenId, deliveryId: deliveries[0]!.deliveryId }

      // the other organization, with a person of its own for bodies
      const stranger = yield* server.organization("tenancy-stranger")
      const own = { personId: yield* createPerson(server, {}, stranger.token) }
      const ownEvent = yield* createEvent(server, { ticketingEnabled: true }, stranger.token)

      const digest = Effect.promise(() => databaseDigest(server.databaseEnv))
      const before = yield* digest
      for (const [key, row] of Object.entries(ROUTES)) {
        if (row.coveredIn !== undefined) continue
        const body = row.body?.(own, ids)
        const reply = yield* server.request(methodOf(key), row.path(ids), {
          token: stranger.token,
          ...(body === undefined ? {} : { body }),
          ...(row.raw === undefined ? {} : { rawBody: row.raw.body, headers: { "content-type": row.raw.contentType } })
        })
        expectError(reply, 404, "not_found")
        expect(reply.text, key).not.toContain("Notified")
      }
      // the purchase under the stranger's own event is still someone else's
      const mixed = `/event/${ownEvent.eventId}/purchase/${ids.purchaseId}`
      expectError(yield* server.request("POST", `${mixed}/refund`, { token: stranger.token, body: { amount: 1 } }), 404, "not_found")
      expectError(yield* server.request("POST", `${mixed}/dispute`, { token: stranger.token }), 404, "not_found")
      // and the owner's ids in a body are unknown ids too
      const foreignGuest = { guests: [{ personId }] }
      expectError(yield* server.request("POST", `/event/${ownEvent.eventId}/guestlist`, { token: stranger.token, body: foreignGuest }), 400, "invalid_request")
      const bulk = expectStatus(yield* server.request("PUT", "/persons", { token: stranger.token, body: { persons: [{ personId, city: "Elsewhere" }] } }), 200)
      expect(bulk.body.results).toEqual([{ personId, success: false, error: expect.objectContaining({ code: "not_found" }) }])
      expect(yield* digest).toBe(before)

      // the same requests by the owner find what they name (so the 404s above came from the tenant check)
      for (const [key, row] of Object.entries(ROUTES)) {
        if (methodOf(key) !== "GET" || row.coveredIn !== undefined) continue
        expectStatus(yield* server.request("GET", row.path(ids)), 200)
      }
      const listed = (yield* server.request("GET", "/person", { token: stranger.token })).body.persons
      expect(listed.map((p: { personId: string }) => p.personId)).toEqual([own.personId])
    }), 60_000)
})
