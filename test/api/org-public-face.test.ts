/**
 * The organization's public face (CONTRACT §16): `/o/<orgSlug>` lists the organization's upcoming
 * public events in date order, `events.ics` is the same as a calendar feed (read back by ical.js),
 * `events.json` the same as JSON readable from any origin. Private, removed and past events never
 * appear (events are never deleted: a public event without a page address has no page to list);
 * an unknown organization is 404 on each; the statements do not grow with the events.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import ICAL from "ical.js"
import { textOf } from "../support/Dashboard.js"
import { createEvent, daysFromNow, expectStatus } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

let counter = 0

layer(testServer(), { excludeTestServices: true })("the organization's public face", (it) => {
  const setUp = Effect.gen(function*() {
    const server = yield* TestServer
    const slug = `face-${process.pid}-${++counter}`
    const org = yield* server.organization(slug)
    const make = (fields: Record<string, unknown>) => createEvent(server, fields, org.token)
    // created out of date order: the listing orders them
    const later = yield* make({
      name: "Later; with, text",
      primarySlug: `${slug}-later`,
      isPublic: true,
      primaryDate: "2031-03-02T19:00:00-05:00",
      timezone: "America/New_York",
      endDate: "2031-03-02T22:30:00-05:00",
      locationName: "Town Hall",
      locationAddress: "1 Main Street",
      capacityEnabled: true,
      capacity: 2,
      rsvpDescription: "Line one\nline two",
      virtualLocations: [{ url: "https://meet.example.com/secret-room", password: "hunter2" }]
    })
    const sooner = yield* make({
      name: "Sooner",
      primarySlug: `${slug}-sooner`,
      isPublic: true,
      primaryDate: daysFromNow(3),
      registrationOpen: false,
      featuredImage: "https://images.example.com/sooner.jpg"
    })
    yield* make({ name: "Private one", primarySlug: `${slug}-private`, isPublic: false })
    yield* make({ name: "Past one", primarySlug: `${slug}-past`, isPublic: true, primaryDate: daysFromNow(-2) })
    // public, but without a page address: no page to link to
    yield* make({ name: "Without address", primarySlug: null, isPublic: true })
    // one place of two taken
    const added = yield* server.request("POST", `/event/${later.eventId}/guestlist`, {
      token: org.token,
      body: { guests: [{ firstName: "Ann", lastName: "Guest", email: `ann.${slug}@example.com` }] }
    })
    const personId = expectStatus(added, 200).body.guests[0].personId
    expectStatus(
      yield* server.request("PUT", `/event/${later.eventId}/guestlist`, { token: org.token, body: { guests: [{ personId, rsvpStatus: "Accepted" }] } }),
      200
    )
    return { server, slug, org, later, sooner }
  })

  it.scoped("the page lists upcoming public events in date order, with their dates in their zones and links to their pages", () =>
    Effect.gen(function*() {
      const { server, slug } = yield* setUp
      const reply = expectStatus(yield* server.request("GET", `/o/${slug}`, { token: null }), 200)
      expect(reply.headers.get("content-type")).toContain("text/html")
      expect(reply.headers.get("cache-control")).toBe("public, max-age=60")
      expect(reply.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      const text = textOf(reply.text)
      expect(text.indexOf("Sooner")).toBeGreaterThan(0)
      expect(text.indexOf("Sooner")).toBeLessThan(text.indexOf("Later; with, text"))
      for (const hidden of ["Private one", "Past one", "Without address", "secret-room", "hunter2"]) expect(text).not.toContain(hidden)
      expect(reply.text).toContain(`href="/e/${slug}-sooner"`)
      expect(reply.text).toContain(`href="/e/${slug}-later"`)
      expect(text).toContain("Sun, Mar 2, 2031, 7:00 PM EST")
      expect(text).toContain("Town Hall")
      expect(text).toContain("1 place left")
      expect(reply.text.match(/<h1[ >]/g)).toHaveLength(1)
      expect(reply.text).not.toContain("<script")
      expect(reply.text).toContain(`https://convene.test/o/${slug}/events.ics`)
    }))

  it.scoped("events.json: the shape, absolute URLs, places left, registration open by §16's rule, CORS", () =>
    Effect.gen(function*() {
      const { server, slug, sooner } = yield* setUp
      const reply = expectStatus(yield* server.request("GET", `/o/${slug}/events.json`, { token: null, headers: { origin: "https://club.example.org" } }), 200)
      expect(reply.headers.get("access-control-allow-origin")).toBe("*")
      expect(reply.headers.get("content-type")).toContain("application/json")
      expect(reply.headers.get("cache-control")).toBe("public, max-age=60")
      expect(reply.body).toEqual({
        events: [
          {
            name: "Sooner",
            slug: `${slug}-sooner`,
            url: `https://convene.test/e/${slug}-sooner`,
            primaryDate: sooner.primaryDate,
            timezone: "UTC",
            locationName: null,
            locationAddress: null,
            description: null,
            featuredImage: "https://images.example.com/sooner.jpg",
            placesLeft: null,
            registrationOpen: false
          },
          {
            name: "Later; with, text",
            slug: `${slug}-later`,
            url: `https://convene.test/e/${slug}-later`,
            primaryDate: "2031-03-02T19:00:00-05:00",
            timezone: "America/New_York",
            locationName: "Town Hall",
            locationAddress: "1 Main Street",
            description: "Line one line two",
            featuredImage: null,
            placesLeft: 1,
            registrationOpen: true
          }
        ]
      })
      // read again unchanged: 304 with the validator
      const etag = reply.headers.get("etag")!
      const again = yield* server.request("GET", `/o/${slug}/events.json`, { token: null, headers: { "if-none-match": etag } })
      expect(again.status).toBe(304)
      const preflight = yield* server.request("OPTIONS", `/o/${slug}/events.json`, {
        token: null,
        headers: { origin: "https://club.example.org", "access-control-request-method": "GET" }
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get("access-control-allow-origin")).toBe("*")
      expect(preflight.headers.get("access-control-allow-methods")).toContain("GET")
    }))

  it.scoped("events.ics: a named feed of the upcoming public events that ical.js reads, stable UIDs, DTEND when there is an end", () =>
    Effect.gen(function*() {
      const { later, server, slug, sooner } = yield* setUp
      const reply = expectStatus(yield* server.request("GET", `/o/${slug}/events.ics`, { token: null }), 200)
      expect(reply.headers.get("content-type")).toBe("text/calendar; charset=utf-8")
      expect(reply.headers.get("access-control-allow-origin")).toBe("*")
      expect(reply.text).not.toContain("secret-room")
      expect(reply.text).not.toContain("hunter2")
      const calendar = new ICAL.Component(ICAL.parse(reply.text))
      expect(calendar.getFirstPropertyValue("x-wr-calname")).toBe(`${slug}: events`)
      const events = calendar.getAllSubcomponents("vevent").map((v) => new ICAL.Event(v))
      expect(events.map((e) => e.summary)).toEqual(["Sooner", "Later; with, text"])
      expect(events.map((e) => e.uid)).toEqual([`${sooner.eventId}@convene.test`, `${later.eventId}@convene.test`])
      expect(events[1]!.startDate.toJSDate().toISOString()).toBe("2031-03-03T00:00:00.000Z")
      expect(events[1]!.endDate.toJSDate().toISOString()).toBe("2031-03-03T03:30:00.000Z")
      expect(events[1]!.location).toBe("Town Hall, 1 Main Street")
      expect(events[1]!.component.getFirstPropertyValue("url")).toBe(`https://convene.test/e/${slug}-later`)
      // calendar apps may ask with HEAD first
      expect((yield* server.request("HEAD", `/o/${slug}/events.ics`, { token: null })).status).toBe(200)
      // the same file when read again: the UIDs stay
      const again = expectStatus(yield* server.request("GET", `/o/${slug}/events.ics`, { token: null }), 200)
      expect(again.text).toBe(reply.text)
    }))

  it.scoped("an unknown organization is 404 on the page and both feeds", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const page = yield* server.request("GET", "/o/no-such-organization", { token: null })
      expect(page.status).toBe(404)
      expect(textOf(page.text)).toContain("Not found")
      const json = yield* server.request("GET", "/o/no-such-organization/events.json", { token: null })
      expect(json.status).toBe(404)
      expect(json.body).toMatchObject({ code: "not_found" })
      expect((yield* server.request("GET", "/o/no-such-organization/events.ics", { token: null })).status).toBe(404)
    }))

  it.scoped("the statements of a listing do not grow with its events", () =>
    Effect.gen(function*() {
      const { org, server, slug } = yield* setUp
      const measure = Effect.gen(function*() {
        const before = server.statements()
        expectStatus(yield* server.request("GET", `/o/${slug}/events.json`, { token: null }), 200)
        return server.statements() - before
      })
      const few = yield* measure
      for (let i = 0; i < 5; i++) {
        yield* createEvent(server, { primarySlug: `${slug}-more-${i}`, isPublic: true, capacityEnabled: true, capacity: 10 }, org.token)
      }
      const body = (yield* server.request("GET", `/o/${slug}/events.json`, { token: null })).body
      expect(body.events).toHaveLength(7)
      expect(yield* measure).toBe(few)
    }))
})

layer(testServer({ PUBLIC_BASE_URL: "https://convene.test/events" }), { excludeTestServices: true })("the organization's public face under a path prefix", (it) => {
  it.scoped("is reached with the prefix, and its links and feeds carry it", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const slug = `face-prefix-${process.pid}-${++counter}`
      const org = yield* server.organization(slug)
      yield* createEvent(server, { name: "Under a prefix", primarySlug: `${slug}-event`, isPublic: true }, org.token)
      const page = expectStatus(yield* server.request("GET", `/events/o/${slug}`, { token: null }), 200)
      expect(page.text).toContain(`href="/events/e/${slug}-event"`)
      expect(page.text).toContain(`https://convene.test/events/o/${slug}/events.ics`)
      const json = expectStatus(yield* server.request("GET", `/events/o/${slug}/events.json`, { token: null }), 200)
      expect(json.body.events[0].url).toBe(`https://convene.test/events/e/${slug}-event`)
      const ics = expectStatus(yield* server.request("GET", `/events/o/${slug}/events.ics`, { token: null }), 200)
      expect(ics.text).toContain(`URL:https://convene.test/events/e/${slug}-event`)
    }))
})
