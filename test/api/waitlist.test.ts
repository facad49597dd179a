/**
 * Waitlist promotion through every path that frees a place (CONTRACT §16): a PUT, a DELETE, the
 * guest's own "No, I can't make it" on the RSVP page, the dashboard's guest actions, a CSV
 * import, and a raised or disabled capacity on `PATCH /event/:id`. Each time, the guest waiting
 * longest becomes `Accepted` in the same request, with a history entry by `system` (the event's
 * id), the `EventPerson` and `GuestList` notifications a PUT of that status sends, and a change of
 * the guest in the feed. And `Pending`, a status like the others, which a guest's own "yes" on the
 * RSVP page does not turn into a place. The rule itself:
 * test/unit/waitlist.test.ts; its order and concurrency on both engines: test/repo/waitlist.test.ts.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addMember, signIn, textOf } from "../support/Dashboard.js"
import { importGuestsCsv } from "../support/Csv.js"
import { answerRsvp, createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { type Received, receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

const ORIGIN = "https://convene.test"
let counter = 0

type Hook = Effect.Effect.Success<typeof receiver>

/**
 * An organization of its own with a webhook of each type, an event with one place and a public
 * slug, its holder `Accepted` and two guests `Waitlisted` (`first` before `second`, though added
 * after it), and the feed's cursor after all that.
 */
const scenario = (label: string, capacity = 1) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `wl-${label}-${process.pid}-${++counter}`
    const org = yield* server.organization(slug)
    const request = (method: string, path: string, body?: unknown) =>
      Effect.map(server.request(method, path, { token: org.token, ...(body === undefined ? {} : { body }) }), (r) => expectStatus(r, 200).body)
    const event = yield* createEvent(server, { capacityEnabled: true, capacity, primarySlug: slug }, org.token)
    const emails = ["holder", "second", "first"].map((name) => uniqueEmail(`${label}-${name}`))
    const added = yield* request("POST", `/event/${event.eventId}/guestlist`, {
      guests: emails.map((email, i) => ({ email, firstName: ["Holder", "Second", "First"][i], lastName: "Guest" }))
    })
    const [holder, second, first] = (added.guests as Array<{ personId: string }>).map((g) => g.personId as string)
    yield* request("PUT", `/event/${event.eventId}/guestlist`, { guests: [{ personId: holder, rsvpStatus: "Accepted" }] })
    yield* request("PUT", `/event/${event.eventId}/guestlist`, { guests: [{ personId: first, rsvpStatus: "Waitlisted" }] })
    yield* request("PUT", `/event/${event.eventId}/guestlist`, { guests: [{ personId: second, rsvpStatus: "Waitlisted" }] })
    const hook = yield* receiver
    for (const [path, type] of [["/person", "EventPerson"], ["/list", "GuestList"]]) {
      yield* request("POST", "/webhook", { webhook: hook.url(path), type })
    }
    const cursor = (yield* request("GET", "/changes")).nextCursor as string
    const statuses = Effect.map(request("GET", `/event/${event.eventId}/guestlist`), (body) => {
      const of = (id: string) => (body.guests as Array<Record<string, any>>).find((g) => g.personId === id)
      return { holder: of(holder!), first: of(first!), second: of(second!) }
    })
    return { server, org, request, event, emails, holder: holder!, first: first!, second: second!, hook, cursor, statuses, slug }
  })

/** The deliveries until the `EventPerson` notification of `personId` becoming `Accepted` (and the GuestList one naming them). */
const promotionNotices = (hook: Hook, personId: string) =>
  Effect.gen(function*() {
    const seen: Array<Received> = []
    const personNotice = (r: Received) => r.path === "/person" && r.json[0]?.personId === personId && r.json[0]?.rsvpStatus === "Accepted"
    const listNotice = (r: Received) => r.path === "/list" && r.json.length === 1 && r.json[0]?.personId === personId
    while (!(seen.some(personNotice) && seen.some(listNotice))) seen.push(yield* hook.next(8_000))
    const person = seen.find(personNotice)!.json[0]
    return { person, list: seen.find(listNotice)!.json[0] }
  })

/** What a promotion leaves: `first` Accepted by system, `second` still waiting, both notified and in the feed. */
const expectPromoted = (s: Effect.Effect.Success<ReturnType<typeof scenario>>, who: "first" | "second" = "first") =>
  Effect.gen(function*() {
    const now = yield* s.statuses
    const promoted = now[who]!
    expect(promoted.rsvpStatus).toBe("Accepted")
    expect(promoted.rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "system", actorId: s.event.eventId })
    const notices = yield* promotionNotices(s.hook, promoted.personId)
    expect(notices.person.rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "system", actionType: "updated" })
    expect(notices.list.rsvpStatus).toBe("Accepted")
    const feed = yield* s.request("GET", `/changes?after=${s.cursor}`)
    expect((feed.changes as Array<Record<string, string>>).map((c) => [c.type, c.action, c.id])).toContainEqual(["guest", "updated", promoted.personId])
    return now
  })

layer(testServer({ WEBHOOK_RETRY_SCHEDULE: "100ms" }), { excludeTestServices: true })("waitlist promotion", (it) => {
  describe("a freed place goes to the guest waiting longest, in the request that frees it", () => {
    it.scoped("PUT /event/:id/guestlist", () =>
      Effect.gen(function*() {
        const s = yield* scenario("put")
        yield* s.request("PUT", `/event/${s.event.eventId}/guestlist`, { guests: [{ personId: s.holder, rsvpStatus: "Declined" }] })
        const now = yield* expectPromoted(s)
        expect(now.second!.rsvpStatus).toBe("Waitlisted")
        const feed = yield* s.request("GET", `/changes?after=${s.cursor}`)
        // the freeing change first, then the promotion, each recorded once
        expect((feed.changes as Array<Record<string, string>>).map((c) => c.id)).toEqual([s.holder, s.first])
      }))

    it.scoped("DELETE /event/:id/guestlist", () =>
      Effect.gen(function*() {
        const s = yield* scenario("delete")
        yield* s.request("DELETE", `/event/${s.event.eventId}/guestlist`, { guests: [{ personId: s.holder }] })
        expect((yield* expectPromoted(s)).second!.rsvpStatus).toBe("Waitlisted")
      }))

    it.scoped("the guest's \"No, I can't make it\" on the RSVP page", () =>
      Effect.gen(function*() {
        const s = yield* scenario("rsvp")
        const link = (yield* s.request("GET", `/event/${s.event.eventId}/guestlist/search?personIds=${s.holder}&generateRsvpLinks=true`))
          .guests[0].rsvpLink as string
        const page = yield* Effect.promise(() => s.server.fetch(new URL(link).pathname + new URL(link).search).then((r) => r.text()))
        expect(textOf(page)).toContain("No, I can't make it")
        expect((yield* answerRsvp(s.server.url, link, "Declined")).status).toBe(303)
        expect((yield* expectPromoted(s)).holder!.rsvpStatus).toBe("Declined")
      }))

    it.scoped("the dashboard's guest actions: one guest's status, and a selection", () =>
      Effect.gen(function*() {
        const s = yield* scenario("dashboard", 2)
        const member = yield* addMember({ id: s.org.id, slug: s.slug, name: s.slug }, "Team Member")
        const browser = yield* signIn(s.server.url, member, { origin: ORIGIN, next: "/app/account" })
        // two places: the holder and `first`; `second` waits
        yield* s.request("PUT", `/event/${s.event.eventId}/guestlist`, { guests: [{ personId: s.first, rsvpStatus: "Accepted" }] })
        const list = `/app/events/${s.event.eventId}/guests`
        const one = yield* browser.post(`${list}/${s.holder}/rsvp`, [["rsvpStatus", "Maybe"]])
        expect(one.status).toBe(303)
        yield* expectPromoted(s, "second")
        const bulk = yield* browser.post(`${list}/bulk`, [["action", "rsvp:Declined"], ["personId", s.second]])
        expect(bulk.status).toBe(303)
        yield* s.request("PUT", `/event/${s.event.eventId}/guestlist`, { guests: [{ personId: s.holder, rsvpStatus: "Waitlisted" }] })
        // the holder, now waiting, had no place freed for it by its own write; the next freed one is its
        yield* browser.post(`${list}/bulk`, [["action", "rsvp:Declined"], ["personId", s.first]])
        const now = yield* s.statuses
        expect([now.holder!.rsvpStatus, now.first!.rsvpStatus, now.second!.rsvpStatus]).toEqual(["Accepted", "Declined", "Declined"])
        expect(now.holder!.rsvpStatusHistory.at(-1)).toMatchObject({ actorType: "system" })
      }))

    it.scoped("a CSV import", () =>
      Effect.gen(function*() {
        const s = yield* scenario("csv")
        const csv = `email,rsvpStatus\r\n${s.emails[0]},Declined\r\n`
        expectStatus(yield* importGuestsCsv(s.server, s.event.eventId, csv, { token: s.org.token }), 200)
        expect((yield* expectPromoted(s)).second!.rsvpStatus).toBe("Waitlisted")
      }))

    it.scoped("PATCH /event/:id: a raised capacity fills its places, a disabled one every place; a lowered one takes none back", () =>
      Effect.gen(function*() {
        const s = yield* scenario("patch")
        yield* s.request("PATCH", `/event/${s.event.eventId}`, { capacity: 0 })
        expect((yield* s.statuses).holder!.rsvpStatus).toBe("Accepted")
        yield* s.request("PATCH", `/event/${s.event.eventId}`, { capacity: 2 })
        expect((yield* expectPromoted(s)).second!.rsvpStatus).toBe("Waitlisted")
        yield* s.request("PATCH", `/event/${s.event.eventId}`, { capacityEnabled: false })
        yield* expectPromoted(s, "second")
      }))
  })

  it.scoped("Pending is an RSVP status like the others: set, counted, filtered, imported", () =>
    Effect.gen(function*() {
      const s = yield* scenario("pending")
      yield* s.request("PUT", `/event/${s.event.eventId}/guestlist`, { guests: [{ personId: s.second, rsvpStatus: "Pending" }] })
      const csv = `email,rsvpStatus\r\n${s.emails[2]},pending\r\n`
      expectStatus(yield* importGuestsCsv(s.server, s.event.eventId, csv, { token: s.org.token }), 200)
      const now = yield* s.statuses
      expect([now.first!.rsvpStatus, now.second!.rsvpStatus]).toEqual(["Pending", "Pending"])
      const member = yield* addMember({ id: s.org.id, slug: s.slug, name: s.slug }, "Viewer")
      const browser = yield* signIn(s.server.url, member, { origin: ORIGIN, next: "/app/account" })
      const page = yield* browser.get(`/app/events/${s.event.eventId}/guests?status=Pending`)
      expect(textOf(page.html)).toContain("2 guests match")
      expect(textOf(page.html)).toContain("Pending (2)")
      // on the RSVP page, a registration awaiting approval stays so when the guest says yes, not when they say no
      const links = (yield* s.request("GET", `/event/${s.event.eventId}/guestlist/search?personIds=${s.first},${s.second}&generateRsvpLinks=true`))
        .guests as Array<Record<string, string>>
      const linkOf = (personId: string) => links.find((g) => g.personId === personId)!.rsvpLink!
      const rsvpPage = yield* Effect.promise(() => s.server.fetch(new URL(linkOf(s.first)).pathname + new URL(linkOf(s.first)).search).then((r) => r.text()))
      expect(textOf(rsvpPage)).toContain("Your registration awaits the host's approval.")
      expect(rsvpPage).not.toContain(`value="Maybe"`)
      expect((yield* answerRsvp(s.server.url, linkOf(s.first), "Accepted")).status).toBe(303)
      expect((yield* answerRsvp(s.server.url, linkOf(s.second), "Declined")).status).toBe(303)
      const after = yield* s.statuses
      expect([after.first!.rsvpStatus, after.second!.rsvpStatus]).toEqual(["Pending", "Declined"])
      expect(after.first!.rsvpStatusHistory.at(-1)).toMatchObject({ status: "Pending", actorType: "eventPerson" })
    }))
})
