/**
 * Door mode and door links (CONTRACT §17): the door's JSON writes (the counter, the confirmation of
 * a status other than Accepted, a guest checked in once, Idempotency-Key), and door links made,
 * listed and revoked by an Admin, opening only their event's guests without emails, 404 once
 * revoked or expired (TestClock).
 */
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer, TestClock } from "effect"
import type { Role } from "../../src/Domain/Role.js"
import { addMember, type DashboardClient, dashboardClient, signIn, textOf } from "../support/Dashboard.js"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

const ORIGIN = "https://convene.test"
let counter = 0
const next = () => `${process.pid}-${++counter}`
const JSON_WRITE = { accept: "application/json" }

const organization = <const R extends ReadonlyArray<Role>>(label: string, roles: R) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const signedIn: Array<DashboardClient> = []
    for (const role of roles) {
      const added = yield* addMember({ id: created.id, slug, name: slug }, role, { email: uniqueEmail(`${slug}-${role.replace(" ", "").toLowerCase()}`) })
      signedIn.push(yield* signIn(server.url, added, { origin: ORIGIN, next: "/app/account" }))
    }
    return { token: created.token, members: signedIn }
  })

/** An event with Ada (Accepted) and Dan (Declined). */
const eventWithGuests = (token: string, at?: { readonly date: string; readonly timezone: string }) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const event = yield* createEvent(server, at === undefined ? {} : { primaryDate: at.date, timezone: at.timezone }, token)
    const added = expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
      token,
      body: { guests: [{ firstName: "Ada", lastName: "Lovelace", email: uniqueEmail("ada") }, { firstName: "Dan", lastName: "Declined", email: uniqueEmail("dan") }] }
    }), 200).body.guests as Array<{ personId: string; email: string }>
    const [ada, dan] = added
    expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
      token,
      body: { guests: [{ personId: ada!.personId, rsvpStatus: "Accepted" }, { personId: dan!.personId, rsvpStatus: "Declined" }] }
    }), 200)
    return { event, ada: ada!, dan: dan! }
  })

const json = (reply: { html: string }) => JSON.parse(reply.html)

layer(testServer(), { excludeTestServices: true })("door mode (JSON) and door links", (it) => {
  describe("the door's JSON writes", () => {
    it.effect("counts only Accepted guests as expected, confirms another status first, checks in once, and replays a key", () =>
      Effect.gen(function*() {
        const { members, token } = yield* organization("door-json", ["Team Member"])
        const member = members[0]!
        const { ada, dan, event } = yield* eventWithGuests(token)
        const door = `/app/events/${event.eventId}/checkin`

        const list = json(yield* member.get(`${door}/guests.json`))
        expect(list.counts).toEqual({ checkedIn: 0, expected: 1, extra: 0 })
        expect(list.entries.map((e: any) => e.name)).toEqual(["Ada Lovelace", "Dan Declined"])

        const declined = json(yield* member.post(`${door}/${dan.personId}`, [], { headers: JSON_WRITE }))
        expect(declined).toMatchObject({ outcome: "NeedsConfirmation", tone: "confirm", counts: { checkedIn: 0, expected: 1, extra: 0 } })
        expect(declined.message).toContain("Declined")

        const key = { ...JSON_WRITE, "idempotency-key": `door-${next()}` }
        const first = yield* member.post(`${door}/${ada.personId}`, [], { headers: key })
        expect(json(first)).toMatchObject({ outcome: "CheckedIn", tone: "done", counts: { checkedIn: 1, expected: 1, extra: 0 } })
        const again = json(yield* member.post(`${door}/${ada.personId}`, [], { headers: JSON_WRITE }))
        expect(again).toMatchObject({ outcome: "AlreadyIn", tone: "refused", counts: { checkedIn: 1, expected: 1, extra: 0 } })

        const confirmed = json(yield* member.post(`${door}/${dan.personId}`, [["confirm", "1"]], { headers: JSON_WRITE }))
        // the declined guest let in does not count as an expected one who came
        expect(confirmed).toMatchObject({ outcome: "CheckedIn", counts: { checkedIn: 1, expected: 1, extra: 1 } })

        // undone, then the first request sent again with its key: its first answer, nothing done again
        expect(json(yield* member.post(`${door}/${ada.personId}/undo`, [], { headers: JSON_WRITE }))).toMatchObject({ outcome: "Undone" })
        const replay = yield* member.post(`${door}/${ada.personId}`, [], { headers: key })
        expect(replay.headers.get("idempotent-replayed")).toBe("true")
        expect(json(replay)).toEqual(json(first))
        expect(json(yield* member.get(`${door}/guests.json`)).counts).toEqual({ checkedIn: 0, expected: 1, extra: 1 })
        // the same key with another request
        expect((yield* member.post(`${door}/${dan.personId}/undo`, [], { headers: key })).status).toBe(422)
      }))

    it.effect("a Viewer's door: attendance without write controls, no ticket codes, 403 on a forged check-in", () =>
      Effect.gen(function*() {
        const { members, token } = yield* organization("door-viewer", ["Viewer", "Team Member"])
        const [viewer, member] = [members[0]!, members[1]!]
        const { ada, event } = yield* eventWithGuests(token)
        const door = `/app/events/${event.eventId}/checkin`
        // Ada's RSVP page gives her a ticket
        const server = yield* TestServer
        const [linked] = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${ada.personId}&generateRsvpLinks=true`, { token }), 200).body.guests
        const rsvp = new URL(linked.rsvpLink)
        expect((yield* Effect.promise(() => server.fetch(rsvp.pathname + rsvp.search))).status).toBe(200)
        const page = yield* viewer.get(door)
        expect(page.status).toBe(200)
        expect(page.html).not.toContain("data-write")
        expect(page.html).not.toContain(`Check in Ada Lovelace`)
        const list = json(yield* viewer.get(`${door}/guests.json`))
        expect(list.entries.map((e: any) => e.code)).toEqual([null, null])
        // a Team Member's list has it
        expect(json(yield* member.get(`${door}/guests.json`)).entries[0].code).toMatch(/^[0-9A-Z]{10}$/)
        expect((yield* viewer.post(`${door}/${ada.personId}`, [], { headers: JSON_WRITE })).status).toBe(403)
      }))

    it.effect("without JavaScript: a declined guest's tap answers a confirmation naming the status; the search is a GET form", () =>
      Effect.gen(function*() {
        const { members, token } = yield* organization("door-form", ["Team Member"])
        const member = members[0]!
        const { ada, dan, event } = yield* eventWithGuests(token)
        const door = `/app/events/${event.eventId}/checkin`
        const page = yield* member.get(`${door}?q=lovelace`)
        expect(page.html).toMatch(/<input id="door-q" type="search" name="q" value="lovelace" autofocus/)
        expect(page.html).not.toContain("Dan Declined")
        expect(page.html).not.toContain("class=\"nav")
        const tap = yield* member.post(`${door}/${dan.personId}`, [])
        expect(tap.status).toBe(200)
        expect(textOf(tap.html)).toContain("Dan Declined answered Declined, not Accepted. Check them in anyway?")
        expect(tap.html).toContain("Check in anyway (Declined)")
        const done = yield* member.post(`${door}/${ada.personId}`, [["q", "ada"]])
        expect(done.location).toBe(`${door}?q=ada&done=CheckedIn&who=${ada.personId}`)
        expect(textOf((yield* member.get(done.location!)).html)).toContain("Ada Lovelace checked in.")
      }))
  })

  describe("door links", () => {
    it.effect("an Admin makes, lists and revokes a link; it shows names only, checks in, and answers 404 once revoked", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members, token } = yield* organization("door-links", ["Admin", "Team Member"])
        const [admin, teamMember] = members
        const { ada, dan, event } = yield* eventWithGuests(token)
        const other = yield* eventWithGuests(token)
        const eventPage = `/app/events/${event.eventId}`

        expect((yield* teamMember!.post(`${eventPage}/door-links`, { name: "Side door" })).status).toBe(403)
        expect((yield* teamMember!.get(eventPage)).html).not.toContain("Make a door link")
        const made = yield* admin!.post(`${eventPage}/door-links`, { name: "North entrance" })
        expect(made.status).toBe(303)
        const shown = textOf((yield* admin!.get(made.location!)).html)
        const link = /https:\/\/convene\.test(\/door\/[A-Za-z0-9_-]{43})/.exec(shown)?.[1]
        expect(link).toBeDefined()
        expect(shown).toContain("North entrance")
        expect(shown).toContain("Active")

        const volunteer = dashboardClient(server.url, { origin: ORIGIN })
        const page = yield* volunteer.get(link!)
        expect(page.status).toBe(200)
        expect(page.html).toContain("Ada Lovelace")
        expect(page.html).not.toContain(ada.email)
        expect(page.html).not.toContain("@")
        const entries = json(yield* volunteer.get(`${link}/guests.json`)).entries
        expect(entries).toHaveLength(2)
        for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(["code", "id", "in", "name", "rsvp"])

        const checkedIn = yield* volunteer.post(`${link}/${ada.personId}`, [], { csrf: null, headers: JSON_WRITE })
        expect(json(checkedIn)).toMatchObject({ outcome: "CheckedIn", counts: { checkedIn: 1, expected: 1, extra: 0 } })
        expect(checkedIn.html).not.toContain("@")
        // another event's guest is not this door's
        expect(json(yield* volunteer.post(`${link}/${other.ada.personId}`, [], { csrf: null, headers: JSON_WRITE })).outcome).toBe("Removed")
        expect(json(yield* volunteer.post(`${link}/${dan.personId}`, [], { csrf: null, headers: JSON_WRITE })).outcome).toBe("NeedsConfirmation")
        // a post from another site
        expect((yield* volunteer.post(`${link}/${dan.personId}`, [["confirm", "1"]], { csrf: null, origin: "https://evil.test" })).status).toBe(403)

        const linkId = /door-links\/([0-9a-f-]{36})\/revoke/.exec((yield* admin!.get(eventPage)).html)?.[1]
        expect((yield* admin!.post(`${eventPage}/door-links/${linkId}/revoke`, [])).status).toBe(303)
        expect((yield* volunteer.get(link!)).status).toBe(404)
        expect((yield* volunteer.post(`${link}/${dan.personId}`, [["confirm", "1"]], { csrf: null, headers: JSON_WRITE })).status).toBe(404)
        expect((yield* volunteer.get(`/door/${"A".repeat(43)}`)).status).toBe(404)
      }))
  })
})

// Asia/Kathmandu is 5 hours 45 minutes ahead of UTC: an event on 15 June 2030 there ends its day at
// 18:15 UTC (a rule on the UTC day would keep the link until midnight UTC). The TestClock is set
// just before that end before the server starts, so that the test moves it by seconds: moving it
// far runs every background pass of the server in between, each a few milliseconds of real time.
const DAY_ENDS = Date.parse("2030-06-15T18:15:00Z")
const startingAt = (millis: number) => Layer.unwrapEffect(TestClock.setTime(millis).pipe(Effect.as(testServer())))

layer(startingAt(DAY_ENDS - 60_000))("door links expire (TestClock)", (it) => {
  it.effect("a link ends at the end of the event's day in its zone, then answers 404", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      // the server's TestClock is this test's, a minute before the event's day ends
      expect(yield* Clock.currentTimeMillis).toBe(DAY_ENDS - 60_000)
      const { members, token } = yield* organization("door-expiry", ["Admin"])
      const admin = members[0]!
      // 11:45 in Kathmandu on 15 June
      const { event } = yield* eventWithGuests(token, { date: "2030-06-15T06:00:00Z", timezone: "Asia/Kathmandu" })
      const made = yield* admin.post(`/app/events/${event.eventId}/door-links`, { name: "Gate" })
      const link = /https:\/\/convene\.test(\/door\/[A-Za-z0-9_-]{43})/.exec(textOf((yield* admin.get(made.location!)).html))?.[1]
      const volunteer = dashboardClient(server.url, { origin: ORIGIN })
      expect((yield* volunteer.get(link!)).status).toBe(200)
      yield* TestClock.setTime(DAY_ENDS - 1_000)
      expect((yield* volunteer.get(link!)).status).toBe(200)
      yield* TestClock.setTime(DAY_ENDS)
      expect((yield* volunteer.get(link!)).status).toBe(404)
    }))
})
