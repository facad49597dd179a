/**
 * The change feed, `GET /changes`: every write to a person, an event or a guest records a change
 * in its own transaction, read back in commit order through opaque cursors of one organization;
 * a refused write records nothing; retention answers 410 `cursor_expired`. And the resync helpers
 * a client fetches what a page names with: `GET /person?ids=` and `GET /event/:id/guestlist?personIds=`.
 * Each test works in an organization of its own, so that its feed holds only its own writes.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../support/TestServer.js"
import { answerRsvp, createEvent, createPerson, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { TestServer, testServer, type TestServerShape } from "../support/TestServer.js"

interface Change {
  readonly cursor: string
  readonly type: string
  readonly action: string
  readonly id: string
  readonly eventId?: string
  readonly occurredAt: string
}

/** What a change says, without its cursor and time. */
const what = (c: Change) => (c.eventId === undefined ? [c.type, c.action, c.id] : [c.type, c.action, c.id, c.eventId])

/** Every change after `after`, paging with `nextCursor` at `limit` per page; answers them and the last cursor. */
const readAll = (server: TestServerShape, token: string, options: { after?: string; limit?: number; types?: string } = {}) =>
  Effect.gen(function*() {
    const seen: Array<Change> = []
    let after = options.after
    let pages = 0
    for (;;) {
      const query = new URLSearchParams()
      if (after !== undefined) query.set("after", after)
      if (options.limit !== undefined) query.set("limit", String(options.limit))
      if (options.types !== undefined) query.set("types", options.types)
      const page = expectStatus(yield* server.request("GET", `/changes?${query}`, { token }), 200).body
      expect(Object.keys(page).sort()).toEqual(["changes", "hasMore", "nextCursor"])
      seen.push(...page.changes)
      after = page.nextCursor
      pages++
      if (!page.hasMore) return { changes: seen, cursor: after!, pages }
    }
  })

layer(testServer(), { excludeTestServices: true })("change feed", (it) => {
  describe("GET /changes", () => {
    it.effect("records every write to persons, events and guests once, in commit order; a refused write records nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("feed-writes")
        const empty = expectStatus(yield* server.request("GET", "/changes", { token }), 200).body
        expect(empty).toEqual({ changes: [], nextCursor: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), hasMore: false })
        const start = empty.nextCursor as string

        const ada = yield* createPerson(server, {}, token)
        expectStatus(yield* server.request("PUT", `/person/${ada}`, { token, body: { personId: ada, city: "Paris" } }), 200)
        expectStatus(yield* server.request("DELETE", `/person/${ada}`, { token }), 200)
        expectStatus(yield* server.request("POST", `/person/${ada}/unarchive`, { token }), 200)
        const event = (yield* createEvent(server, {}, token)).eventId as string
        expectStatus(yield* server.request("PATCH", `/event/${event}`, { token, body: { name: "Renamed" } }), 200)
        const added = expectStatus(
          yield* server.request("POST", `/event/${event}/guestlist`, {
            token,
            body: { guests: [{ personId: ada }, { email: uniqueEmail("walkin"), firstName: "Walk", lastName: "In" }] }
          }),
          200
        ).body
        const walkIn = (added.guests as Array<{ personId: string }>).find((g) => g.personId !== ada)!.personId
        expectStatus(yield* server.request("PUT", `/event/${event}/guestlist`, { token, body: { guests: [{ personId: ada, rsvpStatus: "Accepted" }] } }), 200)
        expectStatus(yield* server.request("DELETE", `/event/${event}/guestlist`, { token, body: { guests: [{ personId: walkIn }] } }), 200)
        expectStatus(
          yield* server.request("PUT", "/persons", { token, body: { persons: [{ personId: ada, city: "Oslo" }, { personId: walkIn, city: "Rome" }] } }),
          200
        )
        // refused writes: a bad field, a batch naming an unknown person, an unknown event
        expectError(yield* server.request("PUT", `/person/${ada}`, { token, body: { personId: ada, birthday: "yesterday" } }), 400, "invalid_request")
        expectError(
          yield* server.request("POST", `/event/${event}/guestlist`, {
            token,
            body: { guests: [{ email: uniqueEmail("never"), firstName: "N", lastName: "V" }, { personId: "00000000-0000-4000-8000-000000000000" }] }
          }),
          400,
          "invalid_request"
        )
        expectError(yield* server.request("PATCH", "/event/00000000-0000-4000-8000-000000000000", { token, body: { name: "X" } }), 404, "not_found")

        const expected = [
          ["person", "created", ada],
          ["person", "updated", ada],
          ["person", "archived", ada],
          ["person", "unarchived", ada],
          ["event", "created", event],
          ["event", "updated", event],
          ["person", "created", walkIn],
          ["guest", "created", ada, event],
          ["guest", "created", walkIn, event],
          ["guest", "updated", ada, event],
          ["guest", "removed", walkIn, event],
          ["person", "updated", ada],
          ["person", "updated", walkIn]
        ]
        const all = yield* readAll(server, token, { after: start })
        expect(all.changes.map(what)).toEqual(expected)
        for (const change of all.changes) {
          expect(change.cursor).toMatch(/^[A-Za-z0-9_-]{22}$/)
          expect(new Date(change.occurredAt).toISOString()).toBe(change.occurredAt)
        }
        // without after: from the oldest change kept, the same changes
        expect((yield* readAll(server, token)).changes.map(what)).toEqual(expected)

        // paging two at a time sees each once, in the same order; the last cursor is where the feed stands
        const paged = yield* readAll(server, token, { after: start, limit: 2 })
        expect(paged.changes.map(what)).toEqual(expected)
        expect(paged.pages).toBe(Math.ceil(expected.length / 2))
        const caughtUp = expectStatus(yield* server.request("GET", `/changes?after=${paged.cursor}`, { token }), 200).body
        expect(caughtUp).toEqual({ changes: [], nextCursor: paged.cursor, hasMore: false })
        // a change's own cursor continues right after it
        const fromFifth = yield* readAll(server, token, { after: all.changes[4]!.cursor })
        expect(fromFifth.changes.map(what)).toEqual(expected.slice(5))

        // types: only those, still in order
        const guests = yield* readAll(server, token, { after: start, types: "guest" })
        expect(guests.changes.map(what)).toEqual(expected.filter((c) => c[0] === "guest"))
        const notGuests = yield* readAll(server, token, { after: start, types: "event, person" })
        expect(notGuests.changes.map(what)).toEqual(expected.filter((c) => c[0] !== "guest"))
        expect(guests.cursor).toBe(all.cursor)

        // a later write comes after the stored cursor
        const grace = yield* createPerson(server, {}, token)
        expect((yield* readAll(server, token, { after: all.cursor })).changes.map(what)).toEqual([["person", "created", grace]])
      }))

    it.effect("bulk writes and imports record one change per row, in order", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("feed-bulk")
        const start = expectStatus(yield* server.request("GET", "/changes", { token }), 200).body.nextCursor as string
        const event = (yield* createEvent(server, {}, token)).eventId as string
        const guests = Array.from({ length: 500 }, (_, i) => ({ email: uniqueEmail(`bulk${i}`), firstName: "Bulk", lastName: `Guest ${i}` }))
        const added = expectStatus(yield* server.request("POST", `/event/${event}/guestlist`, { token, body: { guests } }), 200).body
        const ids = (added.guests as Array<{ personId: string }>).map((g) => g.personId)
        expect(ids).toHaveLength(500)
        const csv = ["email,firstName,lastName", ...Array.from({ length: 1200 }, (_, i) => `${uniqueEmail(`csv${i}`)},Csv,Row ${i}`)].join("\n")
        const imported = expectStatus(
          yield* server.request("POST", "/person/import", { token, rawBody: csv, headers: { "content-type": "text/csv" } }),
          200
        ).body
        expect(imported.created).toBe(1200)

        const all = (yield* readAll(server, token, { after: start, limit: 1000 })).changes
        expect(all[0]).toMatchObject({ type: "event", action: "created", id: event })
        expect(all.slice(1, 501).map(what)).toEqual(ids.map((id) => ["person", "created", id]))
        expect(all.slice(501, 1001).map(what)).toEqual(ids.map((id) => ["guest", "created", id, event]))
        const fromCsv = all.slice(1001)
        expect(fromCsv).toHaveLength(1200)
        expect(new Set(fromCsv.map((c) => `${c.type} ${c.action}`))).toEqual(new Set(["person created"]))
        expect(new Set(fromCsv.map((c) => c.id)).size).toBe(1200)
      }))

    it.effect("cursors belong to one organization and cannot be made up; parameters are checked", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* server.organization("feed-owner")
        const b = yield* server.organization("feed-other")
        const person = yield* createPerson(server, {}, a.token)
        const ownCursor = (yield* readAll(server, a.token)).changes[0]!.cursor
        // the other organization sees nothing of it, and cannot use its cursors
        expect((yield* readAll(server, b.token)).changes).toEqual([])
        const foreign = expectError(yield* server.request("GET", `/changes?after=${ownCursor}`, { token: b.token }), 400, "invalid_request")
        expect(foreign.body.issues[0].path).toBe("after")
        // a changed character, made-up text, a cursor spelled otherwise
        const flipped = ownCursor.slice(0, 5) + (ownCursor[5] === "A" ? "B" : "A") + ownCursor.slice(6)
        for (const after of [flipped, "MTIz", "0".repeat(22), `${ownCursor}=`, ownCursor.slice(0, 21) + "B"]) {
          if (after === ownCursor) continue
          expectError(yield* server.request("GET", `/changes?after=${encodeURIComponent(after)}`, { token: a.token }), 400, "invalid_request")
        }
        for (const query of ["limit=0", "limit=1001", "limit=ten", "types=persons", "types=", "types=person,,guest"]) {
          expectError(yield* server.request("GET", `/changes?${query}`, { token: a.token }), 400, "invalid_request")
        }
        expect(expectStatus(yield* server.request("GET", "/changes?limit=1000&types=person", { token: a.token }), 200).body.changes[0].id)
          .toBe(person)
        expectError(yield* server.request("GET", "/changes", { token: null }), 401, "unauthorized")
      }))

    it.effect("a Viewer reads the feed; dashboard and RSVP page writes are in it too", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
        const email = uniqueEmail("viewer")
        expectStatus(
          yield* server.request("POST", "/member", {
            token: null,
            headers: owner.headers,
            body: { email, password: "viewer password", firstName: "V", lastName: "R", role: "Viewer" }
          }),
          200
        )
        const viewer = yield* login(server, email, "viewer password", "acme")
        const start = expectStatus(yield* server.request("GET", "/changes", { token: null, headers: viewer.headers }), 200).body.nextCursor
        const event = yield* createEvent(server, { primarySlug: `feed-rsvp-${process.pid}` })
        const personId = yield* createPerson(server)
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } }), 200)
        const link = (yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${personId}&generateRsvpLinks=true`))
          .body.guests[0].rsvpLink as string
        const answered = yield* answerRsvp(server.url, link, "Accepted")
        expect(answered.status).toBe(303)
        const page2 = expectStatus(yield* server.request("GET", `/changes?after=${start}`, { token: null, headers: viewer.headers }), 200).body
        expect((page2.changes as Array<Change>).map(what)).toEqual([
          ["event", "created", event.eventId],
          ["person", "created", personId],
          ["guest", "created", personId, event.eventId],
          // the RSVP link made for the guest, then the guest's own answer
          ["guest", "updated", personId, event.eventId],
          ["guest", "updated", personId, event.eventId]
        ])
        const guest = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist?personIds=${personId}`), 200).body.guests[0]
        expect(guest.rsvpStatus).toBe("Accepted")
      }))
  })

  describe("resync helpers", () => {
    it.effect("GET /person?ids= answers those persons, archived included, and leaves unknown ids out", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("feed-resync")
        const other = yield* server.organization("feed-resync-other")
        const first = yield* createPerson(server, { city: "One" }, token)
        const second = yield* createPerson(server, {}, token)
        const foreign = yield* createPerson(server, {}, other.token)
        expectStatus(yield* server.request("DELETE", `/person/${second}`, { token }), 200)
        const unknown = "00000000-0000-4000-8000-000000000000"
        const found = expectStatus(yield* server.request("GET", `/person?ids=${second},${unknown},${foreign}, ${first},${first}`, { token }), 200).body
        expect(found.persons.map((p: { personId: string }) => p.personId)).toEqual([first, second])
        expect(found.persons[0]).toMatchObject({ city: "One" })
        expect(found.persons[1]).toMatchObject({ archived: true })
        // the same fields as the list's persons
        const listed = expectStatus(yield* server.request("GET", "/person", { token }), 200).body.persons
        expect(Object.keys(found.persons[0]).sort()).toEqual(Object.keys(listed[0]).sort())
        const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`).join(",")
        for (const query of [`ids=${many}`, "ids=", "ids=,", `ids=${first}&limit=5`, `ids=${first}&skip=0`]) {
          expectError(yield* server.request("GET", `/person?${query}`, { token }), 400, "invalid_request")
        }
      }))

    it.effect("GET /event/:id/guestlist?personIds= answers those guests, and leaves out who is not on the list", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("feed-resync-guests")
        const event = (yield* createEvent(server, {}, token)).eventId as string
        const [kept, removed, never] = [yield* createPerson(server, {}, token), yield* createPerson(server, {}, token), yield* createPerson(server, {}, token)]
        expectStatus(yield* server.request("POST", `/event/${event}/guestlist`, { token, body: { guests: [{ personId: kept }, { personId: removed }] } }), 200)
        expectStatus(yield* server.request("PUT", `/event/${event}/guestlist`, { token, body: { guests: [{ personId: kept, rsvpStatus: "Maybe" }] } }), 200)
        expectStatus(yield* server.request("DELETE", `/event/${event}/guestlist`, { token, body: { guests: [{ personId: removed }] } }), 200)
        const found = expectStatus(yield* server.request("GET", `/event/${event}/guestlist?personIds=${never},${removed},${kept}`, { token }), 200).body
        expect(found.guests.map((g: { personId: string }) => g.personId)).toEqual([kept])
        expect(found.guests[0].rsvpStatus).toBe("Maybe")
        const whole = expectStatus(yield* server.request("GET", `/event/${event}/guestlist`, { token }), 200).body
        expect(found.guests).toEqual(whole.guests)
        const many = Array.from({ length: 101 }, (_, i) => `p${i}`).join(",")
        expectError(yield* server.request("GET", `/event/${event}/guestlist?personIds=${many}`, { token }), 400, "invalid_request")
        expectError(yield* server.request("GET", `/event/${event}/guestlist?personIds=`, { token }), 400, "invalid_request")
      }))
  })
})

layer(testServer({ CHANGES_RETENTION: "300 millis" }), { excludeTestServices: true })("change feed retention", (it) => {
  it.effect("deletes changes older than CHANGES_RETENTION; a cursor before them answers 410 cursor_expired", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization("feed-retention")
      const start = (yield* readAll(server, token)).cursor
      const old = yield* createPerson(server, {}, token)
      const first = yield* readAll(server, token)
      expect(first.changes.map(what)).toEqual([["person", "created", old]])
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1_200)))
      const fresh = yield* createPerson(server, {}, token)
      // the old change is gone: a cursor from before it missed it, and is told so
      expectError(yield* server.request("GET", `/changes?after=${start}`, { token }), 410, "cursor_expired")
      // a cursor at the deleted change itself missed nothing: it reads on
      expect((yield* readAll(server, token, { after: first.cursor })).changes.map(what)).toEqual([["person", "created", fresh]])
      // starting again without after: from the oldest change kept
      expect((yield* readAll(server, token)).changes.map(what)).toEqual([["person", "created", fresh]])
      // and the person itself is still there: only the record of the change went
      expectStatus(yield* server.request("GET", `/person/${old}`, { token }), 200)
    }))
})
