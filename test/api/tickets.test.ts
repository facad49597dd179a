/**
 * Tickets for the door over HTTP (docs/integrators.md#calendar-files-and-tickets, and the dashboard's check-in): a guest who answered yes
 * sees a ticket on their RSVP page (a QR code drawn on the server, and its code), nobody else does;
 * the door's ticket field checks the guest in as one tap does (attendance `Attended` over REST, the
 * `EventPerson` notification, no history entry), says since when on a second try and changes
 * nothing, refuses another event's code (naming it) and another organization's (unknown), reads
 * codes however they are typed, and is closed to Viewers. The RSVP page's calendar link answers the
 * guest's calendar file.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { doorAddress, qrDrawing } from "../../src/Guests/Tickets.js"
import { addMember, type DashboardClient, signIn, textOf } from "../support/Dashboard.js"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

/** PUBLIC_BASE_URL of the test server: what browsers send as `Origin`. */
const ORIGIN = "https://convene.test"
const CODE = /[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}/

type Server = TestServer["Type"]
type Guest = Record<string, any>

let counter = 0
const next = () => `${process.pid}-${++counter}`

/** A new organization with its API token, and signed-in members of the given roles. */
const organization = (label: string, roles: ReadonlyArray<"Team Member" | "Viewer">) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `${label}-${next()}`
    const created = yield* server.organization(slug)
    const members: Array<DashboardClient> = []
    for (const role of roles) {
      const added = yield* addMember({ id: created.id, slug, name: slug }, role, { email: uniqueEmail(`${slug}-${role.replace(" ", "").toLowerCase()}`) })
      members.push(yield* signIn(server.url, added, { origin: ORIGIN, next: "/app/account" }))
    }
    return { token: created.token, members }
  })

/** Guests added to an event by name, with their RSVP links, by first name. */
const guestsWithLinks = (server: Server, token: string, eventId: string, firstNames: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const added = expectStatus(
      yield* server.request("POST", `/event/${eventId}/guestlist`, {
        token,
        body: { guests: firstNames.map((firstName) => ({ firstName, lastName: "Guest", email: uniqueEmail(firstName.toLowerCase()) })) }
      }),
      200
    ).body.guests as Array<Guest>
    const ids = added.map((g) => g.personId).join(",")
    const linked = expectStatus(
      yield* server.request("GET", `/event/${eventId}/guestlist/search?personIds=${ids}&generateRsvpLinks=true&limit=100`, { token }),
      200
    ).body.guests as Array<Guest>
    return Object.fromEntries(linked.map((g) => [g.firstName as string, { personId: g.personId as string, link: g.rsvpLink as string }]))
  })

/** A link of the API (PUBLIC_BASE_URL) on the test server's own address. */
const local = (server: Server, link: string) => server.url + new URL(link).pathname + new URL(link).search

const rsvpPage = (server: Server, link: string) =>
  Effect.promise(async () => {
    const response = await fetch(local(server, link))
    return { status: response.status, headers: response.headers, html: await response.text() }
  })

/** Answers the RSVP page as a guest's browser does: the page's CSRF cookie and field, from its origin. */
const answer = (server: Server, link: string, rsvpStatus: "Accepted" | "Declined" | "Maybe") =>
  Effect.promise(async () => {
    const url = local(server, link)
    const page = await fetch(url)
    const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]!).find((c) => c.startsWith("convene_rsvp_csrf="))!
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!
    const reply = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, cookie },
      body: new URLSearchParams({ csrf, rsvpStatus }).toString()
    })
    expect(reply.status, `answer ${rsvpStatus}`).toBe(303)
  })

/** The ticket code shown on an RSVP page, if any. */
const ticketOf = (html: string) => /<p class="code"><span class="visually-hidden">Ticket code: <\/span>([^<]+)<\/p>/.exec(html)?.[1]

const guestsOf = (server: Server, token: string, eventId: string) =>
  Effect.map(server.request("GET", `/event/${eventId}/guestlist`, { token }), (r) =>
    Object.fromEntries((expectStatus(r, 200).body.guests as Array<Guest>).map((g) => [g.personId as string, g])))

const door = (eventId: string) => `/app/events/${eventId}/checkin`

/** Sends a code through the door's ticket field. */
const typeCode = (member: DashboardClient, eventId: string, ticket: string) => member.post(`${door(eventId)}/ticket`, [["ticket", ticket]])

layer(testServer({ WEBHOOK_RETRY_SCHEDULE: "100ms", WEBHOOK_TIMEOUT: "2 seconds" }), { excludeTestServices: true })("tickets", (it) => {
  describe("the RSVP page", () => {
    it.effect("shows a ticket to a guest who answered yes, the same one ever after, and to nobody else", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* organization("tickets-page", [])
        const event = yield* createEvent(server, { primarySlug: `tickets-page-${next()}`, capacityEnabled: true, capacity: 2 }, token)
        const g = yield* guestsWithLinks(server, token, event.eventId, ["Ada", "Bob", "Cy", "Dee", "Eve", "Fay"])
        yield* answer(server, g["Ada"]!.link, "Accepted")
        yield* answer(server, g["Bob"]!.link, "Maybe")
        yield* answer(server, g["Cy"]!.link, "Declined")
        // Fay is set to Accepted by the organizers: the place is hers, so Eve's yes waitlists Eve
        expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: g["Fay"]!.personId, rsvpStatus: "Accepted" }] } }), 200)
        yield* answer(server, g["Eve"]!.link, "Accepted")
        const statuses = yield* guestsOf(server, token, event.eventId)
        expect(Object.fromEntries(Object.entries(g).map(([name, { personId }]) => [name, statuses[personId]!.rsvpStatus]))).toEqual({
          Ada: "Accepted",
          Bob: "Maybe",
          Cy: "Declined",
          Dee: "Invited",
          Eve: "Waitlisted",
          Fay: "Accepted"
        })

        const ada = yield* rsvpPage(server, g["Ada"]!.link)
        expect(ada.status).toBe(200)
        expect(textOf(ada.html)).toContain("Your ticket")
        expect(textOf(ada.html)).toContain("Show this ticket at the door")
        const code = ticketOf(ada.html)
        expect(code).toMatch(new RegExp(`^${CODE.source}$`))
        // the QR code: an inline SVG path of the door address with the code, drawn on the server
        const drawing = qrDrawing(doorAddress((path) => `${ORIGIN}${path}`, event.eventId, code!.replace("-", "")))
        expect(ada.html).toContain(`viewBox="0 0 ${drawing.size} ${drawing.size}"`)
        expect(ada.html).toContain(`d="${drawing.path}"`)
        expect(ada.html).toMatch(/<svg[^>]*role="img"[^>]*aria-label="QR code of your ticket [^"]+"/)
        // the page's policy still holds: no inline style, no inline script
        const csp = ada.headers.get("content-security-policy") ?? ""
        expect(csp).toContain("style-src 'self'")
        expect(csp).not.toContain("unsafe-inline")
        expect(ada.html).not.toMatch(/\sstyle=/)
        expect(ada.html).not.toMatch(/<script(?![^>]*\ssrc=)/)

        // the organizers' yes gives a ticket too, made when the page first needs it; each guest has their own
        const fay = ticketOf((yield* rsvpPage(server, g["Fay"]!.link)).html)
        expect(fay).toMatch(CODE)
        expect(fay).not.toBe(code)
        for (const name of ["Bob", "Cy", "Dee", "Eve"]) {
          const page = yield* rsvpPage(server, g[name]!.link)
          expect(page.status, name).toBe(200)
          expect(textOf(page.html), name).not.toContain("Your ticket")
          expect(page.html, name).not.toContain("<svg")
        }

        // stable: shown again, and after a change of mind and a yes again, the same code
        expect(ticketOf((yield* rsvpPage(server, g["Ada"]!.link)).html)).toBe(code)
        yield* answer(server, g["Ada"]!.link, "Maybe")
        expect(ticketOf((yield* rsvpPage(server, g["Ada"]!.link)).html)).toBeUndefined()
        // her place went to Eve, who was waiting (CONTRACT §16): Ada's yes again waits until Eve gives it back
        expect(ticketOf((yield* rsvpPage(server, g["Eve"]!.link)).html)).toMatch(CODE)
        yield* answer(server, g["Ada"]!.link, "Accepted")
        expect(ticketOf((yield* rsvpPage(server, g["Ada"]!.link)).html)).toBeUndefined()
        yield* answer(server, g["Eve"]!.link, "Declined")
        expect(ticketOf((yield* rsvpPage(server, g["Ada"]!.link)).html)).toBe(code)
      }))

    it.effect("links the guest's calendar file: text/calendar for the guest, 404 for a bad or withdrawn invite", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* organization("tickets-calendar", [])
        const slug = `tickets-calendar-${next()}`
        const event = yield* createEvent(server, { name: "Lantern Walk", primarySlug: slug, primaryDate: "2031-06-01T18:00:00+02:00", timezone: "Europe/Berlin" }, token)
        const g = yield* guestsWithLinks(server, token, event.eventId, ["Ada"])
        const invite = new URL(g["Ada"]!.link).searchParams.get("invite")!
        const page = yield* rsvpPage(server, g["Ada"]!.link)
        const href = `/rsvp/${slug}/calendar.ics?invite=${invite}`
        expect(page.html).toContain(`href="${href}"`)
        expect(textOf(page.html)).toContain("Add to calendar")

        const file = yield* server.request("GET", href, { token: null })
        expect(file.status).toBe(200)
        expect(file.headers.get("content-type")).toMatch(/^text\/calendar/)
        expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename=".+\.ics"$/)
        expect(file.text).toMatch(/^BEGIN:VCALENDAR\r\n/)
        expect(file.text).toContain(`UID:${event.eventId}@convene.test\r\n`)
        expect(file.text).toContain("SUMMARY:Lantern Walk\r\n")
        expect(file.text).toContain("DTSTART:20310601T160000Z\r\n")

        expect((yield* server.request("GET", `/rsvp/${slug}/calendar.ics?invite=not-a-real-token`, { token: null })).status).toBe(404)
        expect((yield* server.request("GET", `/rsvp/${slug}/calendar.ics`, { token: null })).status).toBe(404)
        expect((yield* server.request("GET", `/rsvp/another-${slug}/calendar.ics?invite=${invite}`, { token: null })).status).toBe(404)
        yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: g["Ada"]!.personId }] } })
        expect((yield* server.request("GET", href, { token: null })).status).toBe(404)
      }))
  })

  describe("the door", () => {
    it.scoped("checks in a typed code as one tap does, and a second time says since when and changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("tickets-door", ["Team Member"])
        const event = yield* createEvent(server, { primarySlug: `tickets-door-${next()}`, timezone: "Asia/Tokyo" }, token)
        const g = yield* guestsWithLinks(server, token, event.eventId, ["Ada", "Bob", "Cy", "Dee"])
        const codes: Record<string, string> = {}
        for (const name of ["Ada", "Bob", "Cy", "Dee"]) {
          yield* answer(server, g[name]!.link, "Accepted")
          codes[name] = ticketOf((yield* rsvpPage(server, g[name]!.link)).html)!
        }
        const hook = yield* receiver
        expectStatus(yield* server.request("POST", "/webhook", { token, body: { webhook: hook.url("/person"), type: "EventPerson" } }), 200)
        const before = yield* guestsOf(server, token, event.eventId)

        // the door page offers the ticket field (and the camera script) to a Team Member
        const page = yield* member!.get(door(event.eventId))
        expect(page.status).toBe(200)
        expect(page.html).toMatch(/<h2 id="ticket-scan-title">Scan a ticket<\/h2>/)
        expect(page.html).toMatch(/<label for="ticket-code">Ticket code<\/label>/)
        expect(page.html).toMatch(/<script type="module" src="\/app\/assets\/door\.[^"]+\.js">/)

        const typed = yield* typeCode(member!, event.eventId, codes["Ada"]!)
        expect(typed.status).toBe(303)
        expect(typed.location).toBe(`${door(event.eventId)}?done=CheckedIn&who=${g["Ada"]!.personId}`)
        const after = yield* member!.get(typed.location!)
        expect(textOf(after.html)).toContain("Ada Guest checked in.")
        expect(after.html).toContain(`aria-label="Undo check-in of Ada Guest"`)
        expect(textOf(after.html)).toContain("1 checked in of 4 expected")

        // over REST: Attended, no new history entry; the EventPerson notification of a one-tap check-in
        let guests = yield* guestsOf(server, token, event.eventId)
        expect(guests[g["Ada"]!.personId]!.attendanceStatus).toBe("Attended")
        expect(guests[g["Ada"]!.personId]!.rsvpStatusHistory).toEqual(before[g["Ada"]!.personId]!.rsvpStatusHistory)
        const notified = yield* hook.next()
        expect(notified.json).toHaveLength(1)
        expect(notified.json[0]).toMatchObject({ personId: g["Ada"]!.personId, attendanceStatus: "Attended", rsvpStatus: "Accepted" })
        expect(notified.json[0].rsvpStatusHistory).toHaveLength(before[g["Ada"]!.personId]!.rsvpStatusHistory.length)

        // again: already checked in since when (in the event's time zone), nothing changes
        const again = yield* typeCode(member!, event.eventId, codes["Ada"]!)
        expect(again.status).toBe(303)
        const said = textOf((yield* member!.get(again.location!)).html)
        expect(said).toMatch(/Ada Guest is already checked in since [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M GMT\+9\. Nothing was changed\./)
        expect(yield* guestsOf(server, token, event.eventId)).toEqual(guests)

        // however it is typed: lower case, spaces, dashes anywhere, look-alikes (O for 0, I or L for 1), the QR code's address
        const sloppy = (code: string) => code.toLowerCase().replace("-", " ").replace(/0/g, "o").replace(/1/g, "l")
        const spread = (code: string) => ` ${code.replace("-", "").split("").join("-")} `
        const address = (code: string) => doorAddress((path) => `${ORIGIN}${path}`, event.eventId, code.replace("-", ""))
        for (const [name, input] of [["Bob", sloppy(codes["Bob"]!)], ["Cy", spread(codes["Cy"]!)], ["Dee", address(codes["Dee"]!)]] as const) {
          const reply = yield* typeCode(member!, event.eventId, input)
          expect(reply.status, input).toBe(303)
          expect(textOf((yield* member!.get(reply.location!)).html), input).toContain(`${name} Guest checked in.`)
        }
        guests = yield* guestsOf(server, token, event.eventId)
        expect(Object.values(guests).map((guest) => guest.attendanceStatus)).toEqual(["Attended", "Attended", "Attended", "Attended"])
        for (let i = 0; i < 3; i++) expect((yield* hook.next()).json[0].attendanceStatus).toBe("Attended")
        yield* Effect.sleep("300 millis")
        expect(hook.received).toHaveLength(4)
      }))

    it.effect("knows when a guest was checked in by any path: over REST too, cleared with the attendance", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("tickets-paths", ["Team Member"])
        const event = yield* createEvent(server, { primarySlug: `tickets-paths-${next()}`, timezone: "America/New_York" }, token)
        const g = yield* guestsWithLinks(server, token, event.eventId, ["Ada"])
        yield* answer(server, g["Ada"]!.link, "Accepted")
        const code = ticketOf((yield* rsvpPage(server, g["Ada"]!.link)).html)!
        const put = (attendanceStatus: string | null) =>
          Effect.map(
            server.request("PUT", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: g["Ada"]!.personId, attendanceStatus }] } }),
            (r) => expectStatus(r, 200)
          )
        yield* put("Attended")
        const said = textOf((yield* member!.get((yield* typeCode(member!, event.eventId, code)).location!)).html)
        expect(said).toMatch(/Ada Guest is already checked in since .+ (EDT|EST)\. Nothing was changed\./)
        // a no-show, then cleared: the ticket checks in again
        yield* put("No Show")
        yield* put(null)
        const reply = yield* typeCode(member!, event.eventId, code)
        expect(textOf((yield* member!.get(reply.location!)).html)).toContain("Ada Guest checked in.")
        // undone at the door: checks in again
        yield* member!.post(`${door(event.eventId)}/${g["Ada"]!.personId}/undo`, [])
        expect(textOf((yield* member!.get((yield* typeCode(member!, event.eventId, code)).location!)).html)).toContain("Ada Guest checked in.")
      }))

    it.effect("refuses another event's code (naming the event), another organization's (unknown) and nonsense, changing nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("tickets-refuse", ["Team Member"])
        const here = yield* createEvent(server, { name: "Harbor Night", primarySlug: `tickets-here-${next()}` }, token)
        const there = yield* createEvent(server, { name: "Garden Party", primarySlug: `tickets-there-${next()}` }, token)
        const hereGuests = yield* guestsWithLinks(server, token, here.eventId, ["Ada"])
        const thereGuests = yield* guestsWithLinks(server, token, there.eventId, ["Bob"])
        yield* answer(server, hereGuests["Ada"]!.link, "Accepted")
        yield* answer(server, thereGuests["Bob"]!.link, "Accepted")
        const bobs = ticketOf((yield* rsvpPage(server, thereGuests["Bob"]!.link)).html)!

        const foreign = yield* organization("tickets-foreign", [])
        const foreignEvent = yield* createEvent(server, { name: "Secret Summit", primarySlug: `tickets-foreign-${next()}` }, foreign.token)
        const foreignGuests = yield* guestsWithLinks(server, foreign.token, foreignEvent.eventId, ["Zed"])
        yield* answer(server, foreignGuests["Zed"]!.link, "Accepted")
        const zeds = ticketOf((yield* rsvpPage(server, foreignGuests["Zed"]!.link)).html)!

        const states = () =>
          Effect.all([guestsOf(server, token, here.eventId), guestsOf(server, token, there.eventId), guestsOf(server, foreign.token, foreignEvent.eventId)])
        const before = yield* states()

        const other = yield* typeCode(member!, here.eventId, bobs)
        expect(other.status).toBe(409)
        expect(textOf(other.html)).toContain("This ticket is for Garden Party, not this event. Nothing was changed.")
        expect(other.html).toContain(`value="${bobs}"`)
        expect(other.html).toMatch(/<input[^>]*id="ticket-code"[^>]*aria-invalid="true"/)

        const unknown = yield* typeCode(member!, here.eventId, zeds)
        expect(unknown.status).toBe(404)
        expect(textOf(unknown.html)).toContain(`Unknown ticket ${zeds}.`)
        expect(textOf(unknown.html)).not.toContain("Secret Summit")
        expect(textOf(unknown.html)).not.toContain("Zed")

        // reloading a refused code's page (and the live counts refreshing from it) leads back to the door
        const reload = yield* member!.get(`${door(here.eventId)}/ticket`)
        expect(reload.status).toBe(303)
        expect(reload.location).toBe(door(here.eventId))

        const nonsense = yield* typeCode(member!, here.eventId, "hello")
        expect(nonsense.status).toBe(400)
        expect(textOf(nonsense.html)).toContain("“hello” is not a ticket code")
        expect((yield* typeCode(member!, here.eventId, "")).status).toBe(400)

        // a code of this event whose guest was taken off the list
        const adas = ticketOf((yield* rsvpPage(server, hereGuests["Ada"]!.link)).html)!
        yield* server.request("DELETE", `/event/${here.eventId}/guestlist`, { token, body: { guests: [{ personId: hereGuests["Ada"]!.personId }] } })
        const removed = yield* typeCode(member!, here.eventId, adas)
        expect(removed.status).toBe(409)
        expect(textOf(removed.html)).toContain("is no longer on this event's guest list. Nothing was changed.")
        const after = yield* states()
        expect(after[1]).toEqual(before[1])
        expect(after[2]).toEqual(before[2])
        expect(Object.values(after[0])).toEqual([])
      }))

    it.effect("opens a ticket's QR code address as the door page with the code filled in and whose it is", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [member], token } = yield* organization("tickets-open", ["Team Member"])
        const event = yield* createEvent(server, { primarySlug: `tickets-open-${next()}` }, token)
        const g = yield* guestsWithLinks(server, token, event.eventId, ["Ada"])
        yield* answer(server, g["Ada"]!.link, "Accepted")
        const code = ticketOf((yield* rsvpPage(server, g["Ada"]!.link)).html)!
        const opened = yield* member!.get(`${door(event.eventId)}?ticket=${code.replace("-", "")}`)
        expect(opened.status).toBe(200)
        expect(opened.html).toMatch(new RegExp(`<input[^>]*id="ticket-code"[^>]*value="${code}"`))
        expect(textOf(opened.html)).toContain("Ticket of Ada Guest (RSVP Accepted), not checked in yet.")
        // reading changes nothing
        expect((yield* guestsOf(server, token, event.eventId))[g["Ada"]!.personId]!.attendanceStatus).toBeNull()
      }))
  })

  describe("roles", () => {
    it.effect("a Viewer sees no ticket field at the door and gets 403 for a forged post, which changes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { members: [viewer], token } = yield* organization("tickets-viewer", ["Viewer"])
        const event = yield* createEvent(server, { primarySlug: `tickets-viewer-${next()}` }, token)
        const g = yield* guestsWithLinks(server, token, event.eventId, ["Ada"])
        yield* answer(server, g["Ada"]!.link, "Accepted")
        const code = ticketOf((yield* rsvpPage(server, g["Ada"]!.link)).html)!
        const page = yield* viewer!.get(door(event.eventId))
        expect(page.status).toBe(200)
        expect(page.html).not.toContain(`name="ticket"`)
        expect(page.html).not.toContain("Scan a ticket")
        expect(page.html).not.toContain("scanner.")
        const forged = yield* typeCode(viewer!, event.eventId, code)
        expect(forged.status).toBe(403)
        expect((yield* guestsOf(server, token, event.eventId))[g["Ada"]!.personId]!.attendanceStatus).toBeNull()
      }))
  })
})
