/**
 * The dashboard's guest list and door check-in over HTTP (docs/integrators.md#guest-lists, docs/integrators.md#the-dashboard): writes made through
 * the pages are the API's own (history entries by actor `user` with the member's id, the same
 * webhook notifications), roles are enforced on the server, other organizations' events and
 * guests do not exist, refused input changes nothing, and guests' data never becomes markup.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { Role } from "../../src/Domain/Role.js"
import { addMember, type DashboardClient, signIn, textOf } from "../support/Dashboard.js"
import { createEvent, createPerson, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { type Received, receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

/** PUBLIC_BASE_URL of the test server: what the browser sends as `Origin`. */
const ORIGIN = "https://convene.test"

type Server = TestServer["Type"]

let counter = 0
const next = () => `${process.pid}-${++counter}`

/** A new organization with its API token, and members of the given roles signed in to the dashboard. */
const organization = <const R extends ReadonlyArray<Role>>(label: string, roles: R) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const signedIn: Array<{ readonly userId: string; readonly browser: DashboardClient }> = []
    for (const role of roles) {
      const added = yield* addMember({ id: created.id, slug, name: slug }, role, {
        email: uniqueEmail(`${slug}-${role.replace(" ", "").toLowerCase()}`)
      })
      signedIn.push({ userId: added.userId, browser: yield* signIn(server.url, added, { origin: ORIGIN, next: "/app/account" }) })
    }
    return { token: created.token, members: signedIn as { [K in keyof R]: (typeof signedIn)[number] } }
  })

const guestsOf = (server: Server, token: string, eventId: string) =>
  Effect.map(server.request("GET", `/event/${eventId}/guestlist`, { token }), (r) => expectStatus(r, 200).body.guests as Array<Record<string, any>>)

const addGuests = (server: Server, token: string, eventId: string, guests: Array<Record<string, unknown>>) =>
  Effect.map(
    server.request("POST", `/event/${eventId}/guestlist`, { token, body: { guests } }),
    (r) => expectStatus(r, 200).body.guests as Array<Record<string, any>>
  )

const register = (server: Server, token: string, webhook: string, type: string) =>
  Effect.map(server.request("POST", "/webhook", { token, body: { webhook, type } }), (r) => expectStatus(r, 200))

/** The next `n` deliveries, sorted by receiver path (`/list` before `/person`) then by guest. */
const deliveries = (hook: Effect.Effect.Success<typeof receiver>, n: number) =>
  Effect.gen(function*() {
    const got: Array<Received> = []
    for (let i = 0; i < n; i++) got.push(yield* hook.next())
    return got.sort((a, b) => a.path.localeCompare(b.path) || String(a.json[0]?.email).localeCompare(String(b.json[0]?.email)))
  })

/** A notification's guests without what differs between two events and two actors. */
const comparable = (records: Array<Record<string, any>>) =>
  records.map((r) => ({
    ...r,
    event: undefined,
    eventId: undefined,
    eventName: undefined,
    events: undefined,
    personId: undefined,
    rsvpStatusHistory: r["rsvpStatusHistory"].map((h: Record<string, any>) => ({ status: h.status, actionType: h.actionType }))
  }))

const noNewDeliveries = (hook: Effect.Effect.Success<typeof receiver>, count: number) =>
  Effect.gen(function*() {
    yield* Effect.sleep("400 millis")
    expect(hook.received).toHaveLength(count)
  })

layer(testServer({ WEBHOOK_RETRY_SCHEDULE: "100ms", WEBHOOK_TIMEOUT: "2 seconds" }), { excludeTestServices: true })("dashboard: guest list and check-in", (it) => {
  describe("adding guests", () => {
    it.scoped("adds an existing contact and a new one as the API does: history `added` by the member, the GuestList notification", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-add", ["Team Member"])
        const [member] = org.members
        const hook = yield* receiver
        yield* register(server, org.token, hook.url("/list"), "GuestList")
        yield* register(server, org.token, hook.url("/person"), "EventPerson")
        const event = yield* createEvent(server, {}, org.token)
        const contactEmail = uniqueEmail("contact")
        const contactId = yield* createPerson(server, { firstName: "Grace", lastName: "Hopper", email: contactEmail }, org.token)
        const add = `/app/events/${event.eventId}/guests/add`

        // the contact search finds her, not yet on the list
        const search = yield* member.browser.get(`${add}?contact=hopper`)
        expect(search.status).toBe(200)
        expect(search.html).toContain(`value="${contactId}"`)
        expect(textOf(search.html)).not.toContain("Already on the list")

        const picked = yield* member.browser.post(add, [["kind", "contacts"], ["contact", "hopper"], ["personId", contactId]])
        expect(picked.status).toBe(303)
        expect(picked.location).toBe(`${add}?contact=hopper`)
        expect(textOf((yield* member.browser.get(picked.location!)).html)).toContain("Added 1 guest: Grace Hopper.")

        const newEmail = uniqueEmail("new")
        const typed = yield* member.browser.post(add, [["kind", "new"], ["contact", ""], ["email", newEmail], ["firstName", "Katherine"], ["lastName", "Johnson"]])
        expect(typed.status).toBe(303)
        expect(textOf((yield* member.browser.get(typed.location!)).html)).toContain("Katherine Johnson added to the guest list.")

        // over REST: both guests, each with one history entry `Invited` by this member as a user
        const guests = yield* guestsOf(server, org.token, event.eventId)
        expect(guests.map((g) => [g.name, g.email, g.rsvpStatus])).toEqual([
          ["Grace Hopper", contactEmail, "Invited"],
          ["Katherine Johnson", newEmail, "Invited"]
        ])
        for (const guest of guests) {
          expect(guest.rsvpStatusHistory).toEqual([{ status: "Invited", actorType: "user", actorId: member.userId, createdAt: expect.any(String) }])
        }
        const created = (yield* server.request("GET", `/person/search?email=${encodeURIComponent(newEmail)}`, { token: org.token })).body
        expect(created.persons).toHaveLength(1)

        // one GuestList notification per add, no EventPerson one (adding is no status change)
        const [first, second] = yield* deliveries(hook, 2)
        for (const [delivery, email] of [[first!, contactEmail], [second!, newEmail]] as const) {
          expect(delivery.path).toBe("/list")
          expect(delivery.json).toHaveLength(1)
          expect(delivery.json[0]).toMatchObject({ email, rsvpStatus: "Invited", attendanceStatus: null })
          expect(delivery.json[0].rsvpStatusHistory).toEqual([expect.objectContaining({ status: "Invited", actorType: "user", actionType: "added" })])
        }

        // adding someone already listed says so and changes nothing
        const again = yield* member.browser.post(add, [["kind", "contacts"], ["contact", "hopper"], ["personId", contactId]])
        expect(textOf((yield* member.browser.get(again.location!)).html)).toContain("Grace Hopper is already on the list; nothing was changed.")
        const listed = yield* member.browser.get(`${add}?contact=hopper`)
        expect(textOf(listed.html)).toContain("Already on the list")
        const byEmail = yield* member.browser.post(add, [["kind", "new"], ["email", newEmail.toUpperCase()], ["firstName", "K"], ["lastName", "J"]])
        expect(byEmail.status).toBe(409)
        expect(textOf(byEmail.html)).toContain(`Katherine Johnson (${newEmail}) is already on the guest list. Nothing was changed.`)
        expect(byEmail.html).toContain(`value="${newEmail.toUpperCase()}"`)
        const after = yield* guestsOf(server, org.token, event.eventId)
        expect(after).toEqual(guests)
        yield* noNewDeliveries(hook, 2)
      }))

    it.effect("refuses a bad new guest with the errors beside the fields, keeping what was typed, and adds nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-bad", ["Team Member"])
        const [member] = org.members
        const event = yield* createEvent(server, {}, org.token)
        const add = `/app/events/${event.eventId}/guests/add`
        const refused = yield* member.browser.post(add, [["kind", "new"], ["email", "not an email"], ["firstName", "  "], ["lastName", "Lamarr"]])
        expect(refused.status).toBe(400)
        const text = textOf(refused.html)
        expect(text).toContain("Email must be an email address")
        expect(text).toContain("First name must not be empty")
        expect(refused.html).toContain(`value="not an email"`)
        expect(refused.html).toContain(`value="Lamarr"`)
        expect(refused.html).toMatch(/aria-invalid="true"/)
        const none = yield* member.browser.post(add, [["kind", "contacts"]])
        expect(none.status).toBe(303)
        expect(textOf((yield* member.browser.get(none.location!)).html)).toContain("Tick at least one contact to add.")
        expect(yield* guestsOf(server, org.token, event.eventId)).toEqual([])
      }))
  })

  describe("the list", () => {
    it.effect("filters by status, searches name or email, pages by 50, and writes come back to the same place", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-list", ["Team Member"])
        const [member] = org.members
        const event = yield* createEvent(server, {}, org.token)
        const guests = yield* addGuests(
          server,
          org.token,
          event.eventId,
          Array.from({ length: 120 }, (_, i) => ({ firstName: `Guest${String(i).padStart(3, "0")}`, lastName: "Doe", email: `g${i}.${next()}@example.com` }))
        )
        expectStatus(
          yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
            token: org.token,
            body: { guests: guests.slice(0, 70).map((g) => ({ personId: g.personId, rsvpStatus: "Accepted" })) }
          }),
          200
        )
        const list = `/app/events/${event.eventId}/guests`
        const all = yield* member.browser.get(list)
        expect(all.status).toBe(200)
        expect(textOf(all.html)).toContain("120 guests on the list")
        expect(all.html.match(/name="personId"/g)).toHaveLength(50)
        expect(textOf(all.html)).toContain("1–50 of 120 guests")
        // counts per status
        expect(textOf(all.html)).toContain("Accepted (70)")
        expect(textOf(all.html)).toContain("Invited (50)")

        const accepted = yield* member.browser.get(`${list}?status=Accepted&skip=50`)
        expect(textOf(accepted.html)).toContain("70 guests match")
        expect(accepted.html.match(/name="personId"/g)).toHaveLength(20)
        expect(textOf(accepted.html)).toContain("Guest050 Doe")
        expect(textOf(accepted.html)).not.toContain("Guest070 Doe")

        const byName = yield* member.browser.get(`${list}?q=guest11`)
        expect(textOf(byName.html)).toContain("10 guests match")
        const byEmail = yield* member.browser.get(`${list}?q=${encodeURIComponent(guests[7]!.email)}`)
        expect(textOf(byEmail.html)).toContain("1 guest matches")
        expect(textOf(byEmail.html)).toContain("Guest007 Doe")

        // a bulk write keeps the filter, search and page in its redirect
        const state = [["status", "Accepted"], ["q", "guest0"], ["skip", "50"]] as const
        const applied = yield* member.browser.post(`${list}/bulk`, [["action", "rsvp:Maybe"], ["personId", guests[1]!.personId], ...state])
        expect(applied.status).toBe(303)
        expect(applied.location).toBe(`${list}?status=Accepted&q=guest0&skip=50`)
        const nothing = yield* member.browser.post(`${list}/bulk`, [["action", "rsvp:Maybe"], ...state])
        expect(nothing.location).toBe(`${list}?status=Accepted&q=guest0&skip=50`)
        expect(textOf((yield* member.browser.get(nothing.location!)).html)).toContain("Select at least one guest first")
        // so does one guest's check-in from its row, and from the guest's own page
        const row = yield* member.browser.post(`${list}/${guests[2]!.personId}/attendance`, [["attendanceStatus", "Attended"], ...state])
        expect(row.location).toBe(`${list}?status=Accepted&q=guest0&skip=50`)
        expect(textOf((yield* member.browser.get(row.location!)).html)).toContain("Guest002 Doe checked in.")
        const own = yield* member.browser.post(`${list}/${guests[2]!.personId}/attendance`, [["attendanceStatus", "none"], ["from", "guest"], ...state])
        expect(own.location).toBe(`${list}/${guests[2]!.personId}?status=Accepted&q=guest0&skip=50`)
        expect((yield* guestsOf(server, org.token, event.eventId))[2]!.attendanceStatus).toBeNull()
      }))

    it.effect("says why a guest with a full RSVP history keeps its status, from its page and from a selection", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-history-full", ["Team Member"])
        const [member] = org.members
        const event = yield* createEvent(server, {}, org.token)
        const [guest] = yield* addGuests(server, org.token, event.eventId, [{ firstName: "Full", lastName: "History", email: `full.${next()}@example.com` }])
        const path = `/event/${event.eventId}/guestlist`
        // Invited, then 999 more: 1,000, the most a guest keeps
        for (const n of [500, 499]) {
          const items = Array.from({ length: n }, (_, i) => ({ personId: guest!.personId, rsvpStatus: i % 2 === 0 ? "Accepted" : "Maybe" }))
          expectStatus(yield* server.request("PUT", path, { token: org.token, body: { guests: items } }), 200)
        }
        const list = `/app/events/${event.eventId}/guests`
        const full = "Full History has 1,000 RSVP history entries already, the most a guest keeps. Nothing was changed."
        const own = yield* member.browser.post(`${list}/${guest!.personId}/rsvp`, [["rsvpStatus", "Declined"]])
        expect(own.status).toBe(303)
        expect(textOf((yield* member.browser.get(own.location!)).html)).toContain(full)
        const bulk = yield* member.browser.post(`${list}/bulk`, [["action", "rsvp:Declined"], ["personId", guest!.personId]])
        expect(textOf((yield* member.browser.get(bulk.location!)).html)).toContain(
          "One of the selected guests has 1,000 RSVP history entries already, the most a guest keeps. Nothing was changed."
        )
        const after = (yield* guestsOf(server, org.token, event.eventId))[0]!
        expect(after.rsvpStatus).toBe("Accepted")
        expect(after.rsvpStatusHistory).toHaveLength(1_000)
      }))

    it.scoped("changes the RSVP status of a selection: one history entry per guest, the API's notifications", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-bulk", ["Team Member"])
        const [member] = org.members
        const hook = yield* receiver
        yield* register(server, org.token, hook.url("/list"), "GuestList")
        yield* register(server, org.token, hook.url("/person"), "EventPerson")
        const people = Array.from({ length: 3 }, (_, i) => ({ firstName: "Bulk", lastName: `Guest ${i}`, email: `bulk${i}.${next()}@example.com` }))
        // the same guests on two events: one changed through the page, one through the API
        const viaPage = yield* createEvent(server, { customColumns: ["Table"] }, org.token)
        const viaApi = yield* createEvent(server, { customColumns: ["Table"] }, org.token)
        const pageGuests = yield* addGuests(server, org.token, viaPage.eventId, people)
        yield* addGuests(server, org.token, viaApi.eventId, people)
        yield* deliveries(hook, 2)
        // Guest 0 has said yes already: it gets a history entry but no EventPerson change
        for (const eventId of [viaPage.eventId, viaApi.eventId]) {
          expectStatus(
            yield* server.request("PUT", `/event/${eventId}/guestlist`, { token: org.token, body: { guests: [{ personId: pageGuests[0]!.personId, rsvpStatus: "Accepted" }] } }),
            200
          )
          yield* deliveries(hook, 2)
        }

        const list = `/app/events/${viaPage.eventId}/guests`
        const applied = yield* member.browser.post(`${list}/bulk`, [
          ["action", "rsvp:Accepted"],
          ...pageGuests.map((g) => ["personId", g.personId] as const)
        ])
        expect(applied.status).toBe(303)
        expect(textOf((yield* member.browser.get(applied.location!)).html)).toContain("RSVP status set to Accepted for 3 guests")
        const fromPage = yield* deliveries(hook, 3)

        expectStatus(
          yield* server.request("PUT", `/event/${viaApi.eventId}/guestlist`, {
            token: org.token,
            body: { guests: pageGuests.map((g) => ({ personId: g.personId, rsvpStatus: "Accepted" })) }
          }),
          200
        )
        const fromApi = yield* deliveries(hook, 3)
        yield* noNewDeliveries(hook, 2 + 4 + 3 + 3)

        // one GuestList notification with the three guests, an EventPerson one per real change
        expect(fromPage.map((d) => [d.path, d.json.length])).toEqual([["/list", 3], ["/person", 1], ["/person", 1]])
        expect(fromPage.map((d) => [d.path, d.json.length])).toEqual(fromApi.map((d) => [d.path, d.json.length]))
        for (const [page, api] of fromPage.map((d, i) => [d, fromApi[i]!] as const)) {
          expect(Object.keys(page.json[0])).toEqual(Object.keys(api.json[0]))
          expect(comparable(page.json)).toEqual(comparable(api.json))
        }
        const list_ = fromPage[0]!.json as Array<Record<string, any>>
        for (const guest of list_) expect(guest.rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "user", actionType: "updated" })

        // over REST: one new history entry per guest, by the member
        const guests = yield* guestsOf(server, org.token, viaPage.eventId)
        expect(guests.map((g) => g.rsvpStatusHistory.length)).toEqual([3, 2, 2])
        for (const guest of guests) {
          expect(guest.rsvpStatus).toBe("Accepted")
          expect(guest.rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "user", actorId: member.userId })
        }

        // attendance for a selection, then removal (confirmed first)
        const attended = yield* member.browser.post(`${list}/bulk`, [["action", "attendance:No Show"], ["personId", pageGuests[1]!.personId]])
        expect(textOf((yield* member.browser.get(attended.location!)).html)).toContain("Marked as no-show 1 guest: Bulk Guest 1.")
        const [noShowList, noShowPerson] = yield* deliveries(hook, 2)
        expect([noShowList!.path, noShowPerson!.path]).toEqual(["/list", "/person"])
        expect(noShowPerson!.json[0]).toMatchObject({ attendanceStatus: "No Show", rsvpStatus: "Accepted" })
        const removal = [["action", "remove"], ["personId", pageGuests[1]!.personId], ["personId", pageGuests[2]!.personId]] as const
        const asked = yield* member.browser.post(`${list}/bulk`, removal)
        expect(asked.status).toBe(200)
        expect(textOf(asked.html)).toContain("Remove 2 guests?")
        expect(textOf(asked.html)).toContain("Bulk Guest 1, Bulk Guest 2")
        expect((yield* guestsOf(server, org.token, viaPage.eventId))).toHaveLength(3)
        const removed = yield* member.browser.post(`${list}/bulk`, [...removal, ["confirm", "yes"]])
        expect(removed.status).toBe(303)
        expect(textOf((yield* member.browser.get(removed.location!)).html)).toContain("Removed 2 guests from the list")
        expect((yield* guestsOf(server, org.token, viaPage.eventId)).map((g) => g.personId)).toEqual([pageGuests[0]!.personId])
      }))

    it.effect("shows a guest's history with who and when in the event's time zone, and makes the invite link as the API does", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-one", ["Team Member", "Viewer"])
        const [member, viewer] = org.members
        const event = yield* createEvent(server, { timezone: "Asia/Tokyo", primarySlug: `tokyo-${next()}` }, org.token)
        const noSlug = yield* createEvent(server, { primarySlug: null }, org.token)
        const [guest] = yield* addGuests(server, org.token, event.eventId, [{ firstName: "Hedy", lastName: "Lamarr", email: uniqueEmail("hedy") }])
        yield* addGuests(server, org.token, noSlug.eventId, [{ personId: guest!.personId }])
        const path = `/app/events/${event.eventId}/guests/${guest!.personId}`
        yield* member.browser.post(`${path}/rsvp`, [["rsvpStatus", "Maybe"]])

        const page = yield* member.browser.get(path)
        expect(page.status).toBe(200)
        const text = textOf(page.html)
        const [added, changed] = (yield* guestsOf(server, org.token, event.eventId))[0]!.rsvpStatusHistory
        const inTokyo = (iso: string) =>
          new Intl.DateTimeFormat("en-US", { timeZone: "Asia/Tokyo", weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short" }).format(new Date(iso)).replace(/\s+/g, " ")
        expect(text).toContain(`Maybe You ${inTokyo(changed.createdAt)}`)
        expect(text).toContain(`Invited Added to the list An API key ${inTokyo(added.createdAt)}`)
        expect(text).toContain("Asia/Tokyo")

        // no link yet; a Viewer cannot make one
        expect(text).toContain("has no invite link yet")
        expect(textOf((yield* viewer.browser.get(path)).html)).toContain("A team member can create one")
        expect((yield* viewer.browser.post(`${path}/invite-link`, [])).status).toBe(403)
        const made = yield* member.browser.post(`${path}/invite-link`, [])
        expect(made.status).toBe(303)
        const link = (yield* guestsOf(server, org.token, event.eventId))[0]!.rsvpLink as string
        expect(link).toMatch(new RegExp(`^https://convene\\.test/rsvp/tokyo-[^?]+\\?invite=[A-Za-z0-9_-]{32}$`))
        expect((yield* member.browser.get(path)).html).toContain(`value="${link}"`)
        // the API's search shows the same link
        const searched = (yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${guest!.personId}`, { token: org.token })).body
        expect(searched.guests[0].rsvpLink).toBe(link)

        // an event without a slug has no links, and says why
        const other = yield* member.browser.get(`/app/events/${noSlug.eventId}/guests/${guest!.personId}`)
        expect(textOf(other.html)).toContain("This event has no page address, so its guests have no invite links")
        yield* member.browser.post(`/app/events/${noSlug.eventId}/guests/${guest!.personId}/invite-link`, [])
        expect((yield* guestsOf(server, org.token, noSlug.eventId))[0]!.rsvpLink).toBeNull()
      }))
  })

  describe("door check-in", () => {
    it.scoped("checks a guest in with one tap (Attended, an EventPerson notification, no history entry) and undoes it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-door", ["Team Member"])
        const [member] = org.members
        const hook = yield* receiver
        yield* register(server, org.token, hook.url("/person"), "EventPerson")
        const event = yield* createEvent(server, {}, org.token)
        const [ada, alan] = yield* addGuests(server, org.token, event.eventId, [
          { firstName: "Ada", lastName: "Lovelace", email: uniqueEmail("ada") },
          { firstName: "Alan", lastName: "Turing", email: uniqueEmail("alan") }
        ])
        expectStatus(
          yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
            token: org.token,
            body: { guests: [{ personId: ada!.personId, rsvpStatus: "Accepted" }, { personId: alan!.personId, rsvpStatus: "Accepted" }] }
          }),
          200
        )
        yield* deliveries(hook, 2)
        const door = `/app/events/${event.eventId}/checkin`
        const before = yield* member.browser.get(`${door}?q=lovelace`)
        expect(before.status).toBe(200)
        expect(textOf(before.html)).toContain("0 checked in of 2 expected")
        expect(before.html).toContain(`aria-label="Check in Ada Lovelace"`)
        expect(before.html).not.toContain("Alan Turing")
        // the counts are kept live by door.js, from its list and each answer
        expect(before.html).toMatch(/<script type="module" src="\/app\/assets\/door\.[^"]+\.js">/)
        const history = (yield* guestsOf(server, org.token, event.eventId))[0]!.rsvpStatusHistory

        const tapped = yield* member.browser.post(`${door}/${ada!.personId}`, [["q", "lovelace"]])
        expect(tapped.status).toBe(303)
        expect(tapped.location).toBe(`${door}?q=lovelace&done=CheckedIn&who=${ada!.personId}`)
        const after = yield* member.browser.get(tapped.location!)
        expect(textOf(after.html)).toContain("Ada Lovelace checked in.")
        expect(textOf(after.html)).toContain("1 checked in of 2 expected")
        expect(after.html).toContain(`aria-label="Undo check-in of Ada Lovelace"`)
        const [checkedIn] = yield* guestsOf(server, org.token, event.eventId)
        expect(checkedIn!.attendanceStatus).toBe("Attended")
        expect(checkedIn!.rsvpStatusHistory).toEqual(history)
        const [notified] = yield* deliveries(hook, 1)
        expect(notified!.json[0]).toMatchObject({ personId: ada!.personId, attendanceStatus: "Attended", rsvpStatus: "Accepted" })
        expect(notified!.json[0].rsvpStatusHistory).toHaveLength(history.length)

        // a second tap changes nothing
        const second = yield* member.browser.post(`${door}/${ada!.personId}`, [])
        expect(textOf((yield* member.browser.get(second.location!)).html)).toContain("Ada Lovelace is already checked in. Nothing was changed.")

        const undone = yield* member.browser.post(`${door}/${ada!.personId}/undo`, [["q", "lovelace"]])
        expect(undone.location).toBe(`${door}?q=lovelace&done=Undone&who=${ada!.personId}`)
        expect(textOf((yield* member.browser.get(undone.location!)).html)).toContain("Check-in of Ada Lovelace undone.")
        const [cleared] = yield* guestsOf(server, org.token, event.eventId)
        expect(cleared!.attendanceStatus).toBeNull()
        expect(cleared!.rsvpStatusHistory).toEqual(history)
        const [undoNotified] = yield* deliveries(hook, 1)
        expect(undoNotified!.json[0]).toMatchObject({ personId: ada!.personId, attendanceStatus: null })
        yield* noNewDeliveries(hook, 4)
      }))
  })

  describe("roles and tenancy", () => {
    it.effect("a Viewer reads the list, the door and a guest without write controls, and gets 403 on forged posts", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-viewer", ["Viewer"])
        const [viewer] = org.members
        const event = yield* createEvent(server, {}, org.token)
        const [guest] = yield* addGuests(server, org.token, event.eventId, [{ firstName: "Vera", lastName: "Viewed", email: uniqueEmail("vera") }])
        const base = `/app/events/${event.eventId}`
        const pages = [`${base}/guests`, `${base}/checkin`, `${base}/guests/${guest!.personId}`]
        for (const path of pages) {
          const page = yield* viewer.browser.get(path)
          expect(page.status, path).toBe(200)
          expect(page.html).toContain("Vera Viewed")
          // only the layout's own forms (organization switch, sign out) post anything; the door has no navigation
          const actions = [...page.html.matchAll(/<form[^>]*method="post"[^>]*action="([^"]+)"/g)].map((m) => m[1])
          expect(actions.sort(), path).toEqual(path.endsWith("/checkin") ? [] : ["/app/logout", "/app/organization"])
          expect(page.html).not.toMatch(/>(Add guests|Check in|Undo|Apply|Create invite link|Remove from the guest list)</)
        }
        expect((yield* viewer.browser.get(`${base}/guests/add`)).status).toBe(403)
        const writes: Array<[string, Array<[string, string]>]> = [
          [`${base}/guests/add`, [["kind", "new"], ["email", uniqueEmail("forged")], ["firstName", "F"], ["lastName", "G"]]],
          [`${base}/guests/bulk`, [["action", "rsvp:Declined"], ["personId", guest!.personId]]],
          [`${base}/guests/bulk`, [["action", "remove"], ["personId", guest!.personId], ["confirm", "yes"]]],
          [`${base}/guests/${guest!.personId}/rsvp`, [["rsvpStatus", "Declined"]]],
          [`${base}/guests/${guest!.personId}/attendance`, [["attendanceStatus", "Attended"]]],
          [`${base}/guests/${guest!.personId}/remove`, [["confirm", "yes"]]],
          [`${base}/guests/${guest!.personId}/invite-link`, []],
          [`${base}/checkin/${guest!.personId}`, []],
          [`${base}/checkin/${guest!.personId}/undo`, []]
        ]
        const before = yield* guestsOf(server, org.token, event.eventId)
        for (const [path, fields] of writes) expect((yield* viewer.browser.post(path, fields)).status, path).toBe(403)
        expect(yield* guestsOf(server, org.token, event.eventId)).toEqual(before)
      }))

    it.effect("a Team Member's form without the session's CSRF token or from another origin changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-csrf", ["Team Member"])
        const [member] = org.members
        const event = yield* createEvent(server, {}, org.token)
        const [guest] = yield* addGuests(server, org.token, event.eventId, [{ firstName: "Csrf", lastName: "Target", email: uniqueEmail("csrf") }])
        const path = `/app/events/${event.eventId}/checkin/${guest!.personId}`
        expect((yield* member.browser.post(path, [], { csrf: "x".repeat(43) })).status).toBe(403)
        expect((yield* member.browser.post(path, [], { origin: "https://evil.example" })).status).toBe(403)
        expect((yield* guestsOf(server, org.token, event.eventId))[0]!.attendanceStatus).toBeNull()
      }))

    it.effect("another organization's event and guest ids, and unknown ones, answer the 404 page", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const mine = yield* organization("guests-mine", ["Super Admin"])
        const theirs = yield* organization("guests-theirs", [])
        const [me] = mine.members
        const myEvent = yield* createEvent(server, {}, mine.token)
        const theirEvent = yield* createEvent(server, {}, theirs.token)
        const [theirGuest] = yield* addGuests(server, theirs.token, theirEvent.eventId, [{ firstName: "Not", lastName: "Yours", email: uniqueEmail("theirs") }])
        const [myGuest] = yield* addGuests(server, mine.token, myEvent.eventId, [{ firstName: "Is", lastName: "Mine", email: uniqueEmail("mine") }])
        const notListed = yield* createPerson(server, {}, mine.token)
        const foreign = theirEvent.eventId
        const gets = [
          `/app/events/${foreign}/guests`,
          `/app/events/${foreign}/guests/add`,
          `/app/events/${foreign}/checkin`,
          `/app/events/${foreign}/guests/${theirGuest!.personId}`,
          `/app/events/${myEvent.eventId}/guests/${theirGuest!.personId}`,
          `/app/events/${myEvent.eventId}/guests/${notListed}`,
          `/app/events/no-such-event/guests`,
          `/app/events/${myEvent.eventId}/guests/no-such-person`
        ]
        for (const path of gets) {
          const page = yield* me.browser.get(path)
          expect(page.status, path).toBe(404)
          expect(page.html).not.toContain("Not Yours")
        }
        const posts: Array<[string, Array<[string, string]>]> = [
          [`/app/events/${foreign}/guests/add`, [["kind", "contacts"], ["personId", theirGuest!.personId]]],
          [`/app/events/${foreign}/guests/bulk`, [["action", "rsvp:Declined"], ["personId", theirGuest!.personId]]],
          [`/app/events/${foreign}/checkin/${theirGuest!.personId}`, []],
          [`/app/events/${myEvent.eventId}/checkin/${theirGuest!.personId}`, []],
          [`/app/events/${myEvent.eventId}/guests/${theirGuest!.personId}/rsvp`, [["rsvpStatus", "Declined"]]],
          [`/app/events/${myEvent.eventId}/guests/${theirGuest!.personId}/remove`, [["confirm", "yes"]]]
        ]
        for (const [path, fields] of posts) expect((yield* me.browser.post(path, fields)).status, path).toBe(404)
        // their person picked on my event's add form is not a contact of mine: nothing is added
        const picked = yield* me.browser.post(`/app/events/${myEvent.eventId}/guests/add`, [["kind", "contacts"], ["personId", theirGuest!.personId]])
        expect(textOf((yield* me.browser.get(picked.location!)).html)).toContain("Nothing was added")
        expect((yield* guestsOf(server, mine.token, myEvent.eventId)).map((g) => g.personId)).toEqual([myGuest!.personId])
        expect((yield* guestsOf(server, theirs.token, theirEvent.eventId))[0]).toMatchObject({ rsvpStatus: "Invited", attendanceStatus: null })
      }))
  })

  describe("escaping", () => {
    it.effect("guests' names, emails, notes and custom columns render as text on every page", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* organization("guests-xss", ["Team Member"])
        const [member] = org.members
        const event = yield* createEvent(server, { customColumns: ["<b>Table</b>"] }, org.token)
        const email = `"><svg/onload=alert(1)>${next()}@evil.example`
        const [guest] = yield* addGuests(server, org.token, event.eventId, [
          { firstName: "<script>alert(2)</script>", lastName: "<img src=x onerror=alert(3)>", email }
        ])
        expectStatus(
          yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
            token: org.token,
            body: {
              guests: [{
                personId: guest!.personId,
                rsvpNote: "</dd><script>alert(4)</script>",
                dietaryRestrictions: ["<iframe src=javascript:alert(5)>"],
                customColumns: { "<b>Table</b>": "<a href=javascript:alert(6)>x</a>" },
                attendanceStatus: "Attended"
              }]
            }
          }),
          200
        )
        const base = `/app/events/${event.eventId}`
        const pages = [
          `${base}/guests`,
          `${base}/guests?q=${encodeURIComponent("<script>")}`,
          `${base}/guests/${guest!.personId}`,
          `${base}/checkin?q=${encodeURIComponent("<script>")}`,
          `${base}/checkin?q=${encodeURIComponent("\"><svg/onload=alert(7)>")}`,
          `${base}/guests/add?contact=${encodeURIComponent("<script>")}`
        ]
        for (const path of pages) {
          const page = yield* member.browser.get(path)
          expect(page.status, path).toBe(200)
          expect(page.html, path).not.toMatch(/<script>alert|<img src=x|<svg\/onload|<iframe|<a href=javascript|<b>Table|<\/dd><script/i)
        }
        const detail = textOf((yield* member.browser.get(`${base}/guests/${guest!.personId}`)).html)
        for (const shown of ["<script>alert(2)</script> <img src=x onerror=alert(3)>", email, "</dd><script>alert(4)</script>", "<iframe src=javascript:alert(5)>", "<b>Table</b> <a href=javascript:alert(6)>x</a>"]) {
          expect(detail).toContain(shown)
        }
        // and on the door, after a check-in: the flash and the undo name it as text
        const undone = yield* member.browser.post(`${base}/checkin/${guest!.personId}/undo`, [])
        const door = (yield* member.browser.get(undone.location!)).html
        expect(door).not.toMatch(/<script>alert|<img src=x/)
        expect(textOf(door)).toContain("Check-in of <script>alert(2)</script> <img src=x onerror=alert(3)> undone.")
      }))
  })
})
