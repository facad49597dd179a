/**
 * Calendar files (docs/integrators.md#calendar-files-and-tickets): the iCalendar text rules checked line by line, the file read back
 * by an independent parser (ical.js), and `GET /event/:id/calendar.ics` over a real server: roles,
 * content type, a stable UID, and a SEQUENCE that grows when what the calendar shows changes.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import ICAL from "ical.js"
import { eventCalendar, escapeText, foldLine } from "../../src/Calendar/Ics.js"
import { EventRowId, OrganizationRowId } from "../../src/Domain/RowIds.js"
import type { EventRow } from "../../src/Events/EventRow.js"
import { defaults } from "../../src/Events/EventMapping.js"
import { createEvent, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

const event: EventRow = {
  ...defaults,
  id: EventRowId(1),
  public_id: "2f0c8f4e-7a9b-4c1d-9e2f-0a1b2c3d4e5f",
  organization_id: OrganizationRowId(1),
  name: "Summer; Gala, with \\ friends — été ☀️",
  slug: "summer-gala",
  primary_date: "2030-06-01T20:00:00+02:00",
  primary_date_utc: "2030-06-01T18:00:00.000Z",
  timezone: "Europe/Paris",
  location_name: "Grand Hall",
  location_address: "1 Example Street",
  location_city: "Paris",
  location_country: "FR",
  virtual_locations: JSON.stringify([{ url: "https://meet.example.com/gala", password: "s3cret", phoneNumber: null, sourceType: null }]),
  rsvp_description: "Line one\nLine two, with a comma; and a semicolon.\r\n" + "A long line. ".repeat(30),
  calendar_sequence: 3,
  updated_at: "2030-05-01T10:00:00.000Z"
}

const parse = (text: string) => {
  const component = new ICAL.Component(ICAL.parse(text))
  const vevent = component.getFirstSubcomponent("vevent")!
  return { component, vevent, event: new ICAL.Event(vevent) }
}

describe("the iCalendar text", () => {
  const text = eventCalendar({ event, uidHost: "convene.test", url: "https://convene.test/rsvp/summer-gala?invite=abc" })


  it("ends every line with CRLF and folds lines at 75 octets without splitting a character", () => {
    expect(text.endsWith("\r\n")).toBe(true)
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/)
    const lines = text.split("\r\n").slice(0, -1)
    for (const line of lines) expect(Buffer.byteLength(line, "utf8")).toBeLessThanOrEqual(75)
    expect(lines.some((line) => line.startsWith(" "))).toBe(true)
    // a folded line joins back to the original, and no multi-byte character was cut
    expect(text.includes("\uFFFD")).toBe(false)
    const long = `SUMMARY:${"é".repeat(100)}`
    const folded = foldLine(long)
    expect(folded.split("\r\n ").join("")).toBe(long)
    for (const line of folded.split("\r\n")) expect(Buffer.byteLength(line, "utf8")).toBeLessThanOrEqual(75)
  })

  it("escapes text values", () => {
    expect(escapeText("a\\b;c,d\ne\r\nf")).toBe("a\\\\b\\;c\\,d\\ne\\nf")
    expect(escapeText("bell\u0007")).toBe("bell")
  })

  it("reads back with an independent parser: UID, SEQUENCE, start instant, end, summary, place, description, URL", () => {
    const { component, event: parsed, vevent } = parse(text)
    expect(component.getFirstPropertyValue("version")).toBe("2.0")
    expect(component.getFirstPropertyValue("method")).toBeNull()
    expect(parsed.uid).toBe(`${event.public_id}@convene.test`)
    expect(parsed.sequence).toBe(3)
    expect(parsed.startDate.toJSDate().toISOString()).toBe("2030-06-01T18:00:00.000Z")
    expect(parsed.endDate.toJSDate().toISOString()).toBe("2030-06-01T20:00:00.000Z")
    expect(parsed.summary).toBe(event.name)
    expect(parsed.location).toBe("Grand Hall, 1 Example Street, Paris, FR")
    expect(parsed.description).toContain("Line one\nLine two, with a comma; and a semicolon.\n")
    expect(parsed.description).toContain("Europe/Paris")
    expect(parsed.description).toContain("8:00 PM")
    expect(parsed.description).toContain("https://meet.example.com/gala · password s3cret")
    expect(vevent.getFirstPropertyValue("url")).toBe("https://convene.test/rsvp/summer-gala?invite=abc")
    expect(String(vevent.getFirstPropertyValue("dtstamp"))).toBe("2030-05-01T10:00:00Z")
  })

  it("names the method and the organizer for emails", () => {
    const mailed = eventCalendar({
      event,
      uidHost: "convene.test",
      method: "PUBLISH",
      organizerName: "Acme \"Events\"",
      organizerEmail: "events@acme.test"
    })
    const { component, vevent } = parse(mailed)
    expect(component.getFirstPropertyValue("method")).toBe("PUBLISH")
    const organizer = vevent.getFirstProperty("organizer")!
    expect(organizer.getFirstValue()).toBe("mailto:events@acme.test")
    expect(organizer.getParameter("cn")).toBe("Acme  Events ")
  })

  it("ends at the event's endDate when it has one, else two hours after the start", () => {
    const withEnd = parse(eventCalendar({ event: { ...event, end_date: "2030-06-02T01:30:00+02:00" }, uidHost: "h" })).event
    expect(withEnd.startDate.toJSDate().toISOString()).toBe("2030-06-01T18:00:00.000Z")
    expect(withEnd.endDate.toJSDate().toISOString()).toBe("2030-06-01T23:30:00.000Z")
    expect(parse(eventCalendar({ event: { ...event, end_date: null }, uidHost: "h" })).event.endDate.toJSDate().toISOString())
      .toBe("2030-06-01T20:00:00.000Z")
  })

  it("uses the online link as the place of an event without an address", () => {
    const online = eventCalendar({ event: { ...defaults, ...event, location_name: null, location_address: null, location_city: null, location_country: null }, uidHost: "h" })
    expect(parse(online).event.location).toBe("https://meet.example.com/gala")
  })
})

layer(testServer())("GET /event/:id/calendar.ics", (it) => {
  it.effect("answers the event's calendar to every role, text/calendar, with a stable UID", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const created = yield* createEvent(server, { name: "Board meeting", primaryDate: "2031-03-10T09:30:00-05:00", timezone: "America/New_York" })
      const reply = expectStatus(yield* server.request("GET", `/event/${created.eventId}/calendar.ics`), 200)
      expect(reply.headers.get("content-type")).toBe("text/calendar; charset=utf-8")
      expect(reply.headers.get("content-disposition")).toMatch(/^attachment; filename="board-meeting\.ics"$/)
      const { event: parsed } = parse(reply.text)
      expect(parsed.uid).toBe(`${created.eventId}@convene.test`)
      expect(parsed.startDate.toJSDate().toISOString()).toBe("2031-03-10T14:30:00.000Z")
      expect(parsed.sequence).toBe(0)
      const again = yield* server.request("GET", `/event/${created.eventId}/calendar.ics`)
      expect(again.text).toBe(reply.text)
    }))

  it.effect("raises SEQUENCE when the date or anything shown changes, not for other fields", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const created = yield* createEvent(server)
      const sequence = Effect.map(
        server.request("GET", `/event/${created.eventId}/calendar.ics`),
        (reply) => parse(expectStatus(reply, 200).text).event.sequence
      )
      expect(yield* sequence).toBe(0)
      expectStatus(yield* server.request("PATCH", `/event/${created.eventId}`, { body: { primaryDate: "2032-01-01T10:00:00Z" } }), 200)
      expect(yield* sequence).toBe(1)
      // the same date again changes nothing
      expectStatus(yield* server.request("PATCH", `/event/${created.eventId}`, { body: { primaryDate: "2032-01-01T10:00:00Z" } }), 200)
      expect(yield* sequence).toBe(1)
      expectStatus(yield* server.request("PATCH", `/event/${created.eventId}`, { body: { eventTags: ["vip"], capacityEnabled: true, capacity: 10 } }), 200)
      expect(yield* sequence).toBe(1)
      expectStatus(yield* server.request("PATCH", `/event/${created.eventId}`, { body: { locationName: "Room 2", name: "Renamed" } }), 200)
      expect(yield* sequence).toBe(2)
      // an end time is shown: a new revision, and the file ends then
      expectStatus(yield* server.request("PATCH", `/event/${created.eventId}`, { body: { endDate: "2032-01-01T15:00:00+01:00" } }), 200)
      expect(yield* sequence).toBe(3)
      const ended = parse(expectStatus(yield* server.request("GET", `/event/${created.eventId}/calendar.ics`), 200).text).event
      expect(ended.endDate.toJSDate().toISOString()).toBe("2032-01-01T14:00:00.000Z")
      // registration settings are not shown
      expectStatus(yield* server.request("PATCH", `/event/${created.eventId}`, { body: { registrationOpen: false, reminders: ["P1D"] } }), 200)
      expect(yield* sequence).toBe(3)
    }))

  it.effect("is readable by a Viewer", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const created = yield* createEvent(server)
      const email = uniqueEmail("viewer")
      const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
      expectStatus(
        yield* server.request("POST", "/member", {
          token: null,
          headers: owner.headers,
          body: { email, password: "viewer password 1", firstName: "Vi", lastName: "Ewer", role: "Viewer" }
        }),
        200
      )
      const { headers } = yield* login(server, email, "viewer password 1", "acme")
      const reply = expectStatus(yield* server.request("GET", `/event/${created.eventId}/calendar.ics`, { token: null, headers }), 200)
      expect(parse(reply.text).event.uid).toBe(`${created.eventId}@convene.test`)
    }))

  it.effect("is unknown for another organization and needs credentials", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const created = yield* createEvent(server)
      const other = yield* server.organization("calendar-other")
      expectError(yield* server.request("GET", `/event/${created.eventId}/calendar.ics`, { token: other.token }), 404, "not_found")
      expectError(yield* server.request("GET", `/event/${created.eventId}/calendar.ics`, { token: null }), 401, "unauthorized")
    }))
})
