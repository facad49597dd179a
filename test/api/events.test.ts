import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createEvent, daysFromNow, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

const eventIds = (reply: { body: { events: Array<{ eventId: string }> } }) => reply.body.events.map((e) => e.eventId)

layer(testServer(), { excludeTestServices: true })("events", (it) => {
  describe("POST /event and GET /event/:id", () => {
    it.effect("creates an event with defaults and reads it back", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer
        const event = yield* client.events.create({ payload: { name: "Summer Gala", primaryDate: "2031-06-01T18:00:00+02:00" } })
        expect(event).toMatchObject({
          name: "Summer Gala",
          primarySlug: "summer-gala",
          primaryDate: "2031-06-01T18:00:00+02:00",
          timezone: "UTC",
          userRole: "Admin",
          isPublic: false,
          locationName: null,
          locationAddress: null,
          locationPhoneNumber: null,
          locationWebsite: null,
          virtualLocations: [],
          eventTags: [],
          images: [],
          rsvpDescription: null,
          description: null,
          capacity: null,
          featuredImage: null
        })
        expect(yield* client.events.get({ path: { id: event.eventId } })).toEqual(event)
        const again = yield* client.events.create({ payload: { name: "Summer Gala", primaryDate: daysFromNow(30) } })
        expect(again.primarySlug).toMatch(/^summer-gala-[0-9a-f]{8}$/)
      }))

    it.effect("stores every field", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const body = {
          name: "Conference",
          primaryDate: "2031-09-10T09:00:00Z",
          timezone: "Europe/Paris",
          primarySlug: `conference-${process.pid}`,
          isPublic: true,
          locationName: "Hall",
          locationAddress: "1 Rue",
          locationApartment: "B",
          locationCity: "Paris",
          locationState: "IDF",
          locationPostalCode: "75001",
          locationCountry: "FR",
          locationPhoneNumber: "+33 1",
          locationWebsite: "https://hall.example",
          virtualLocations: [{ url: "https://meet.example/x", sourceType: "zoom" }],
          eventTags: ["tech", "2031"],
          images: [{ type: "headerImg", url: "https://img.example/h.png" }],
          rsvpDescription: "Join us",
          featuredImage: "https://img.example/f.png",
          capacityEnabled: true,
          capacity: 120,
          ticketingEnabled: true,
          rsvpQuestions: [{ title: "Diet?", description: "Any needs" }, { title: "T-shirt" }],
          customColumns: ["Table", "Badge"]
        }
        const event = yield* createEvent(server, body)
        expect(event).toMatchObject({
          ...body,
          primaryDate: "2031-09-10T09:00:00Z",
          virtualLocations: [{ url: "https://meet.example/x", password: null, phoneNumber: null, sourceType: "zoom" }],
          rsvpQuestions: [{ title: "Diet?", description: "Any needs" }, { title: "T-shirt", description: null }],
          description: "Join us",
          capacity: 120
        })
      }))

    it.effect("derives description in its four cases", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const preview = yield* createEvent(server, { linkPreviewDescription: "Preview text", rsvpDescription: "Ignored" })
        expect(preview.description).toBe("Preview text")
        const empty = yield* createEvent(server, { linkPreviewDescription: "", rsvpDescription: "Ignored" })
        expect(empty.description).toBe("")
        const rsvp = yield* createEvent(server, { rsvpDescription: "Line one\r\nLine two\nLine three\rLine four" })
        expect(rsvp.description).toBe("Line one Line two Line three Line four")
        const none = yield* createEvent(server, {})
        expect(none.description).toBeNull()
      }))

    it.effect("gives capacity only when the limit is enabled, and featuredImage or null", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        expect((yield* createEvent(server, { capacityEnabled: true, capacity: 50 })).capacity).toBe(50)
        expect((yield* createEvent(server, { capacityEnabled: false, capacity: 50 })).capacity).toBeNull()
        expect((yield* createEvent(server, { capacityEnabled: true })).capacity).toBeNull()
        expect((yield* createEvent(server, { featuredImage: "https://x.example/f.jpg" })).featuredImage).toBe("https://x.example/f.jpg")
      }))

    it.effect("validates dates, time zones, slugs and hosts", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const post = (body: Record<string, unknown>) => server.request("POST", "/event", { body: { name: "X", primaryDate: daysFromNow(1), ...body } })
        for (const body of [
          { primaryDate: "2031-06-01T18:00:00" },
          { primaryDate: "2031-06-01" },
          { primaryDate: "2031-13-01T18:00:00Z" },
          { primaryDate: "2031-02-30T18:00:00Z" },
          { primaryDate: "2031-06-01T24:00:00Z" },
          { timezone: "Mars/Olympus" },
          { primarySlug: "Not A Slug" },
          { capacity: -1 },
          { hostUserIds: ["nobody"] },
          { customColumns: ["A", "a"] },
          { name: "" }
        ]) expectError(yield* post(body), 400, "invalid_request")
        const slug = `taken-${process.pid}`
        yield* createEvent(server, { primarySlug: slug })
        expectError(yield* post({ primarySlug: slug }), 409, "conflict")
        const noPage = yield* createEvent(server, { primarySlug: null })
        expect(noPage.primarySlug).toBeNull()
      }))

    it.effect("answers 404 for unknown and foreign events", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const other = yield* server.organization("events-other")
        const event = yield* createEvent(server)
        expectError(yield* server.request("GET", `/event/${event.eventId}`, { token: other.token }), 404, "not_found")
        expectError(yield* server.request("PATCH", `/event/${event.eventId}`, { token: other.token, body: { name: "Hijack" } }), 404, "not_found")
        expectError(yield* server.request("GET", "/event/nope"), 404, "not_found")
      }))
  })

  describe("PATCH /event/:id", () => {
    it.effect("updates only the given fields", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { client } = server
        const event = yield* createEvent(server, { locationName: "Old hall", eventTags: ["a"] })
        const patched = yield* client.events.update({
          path: { id: event.eventId },
          payload: { name: "Renamed", locationName: null, capacityEnabled: true, capacity: 10 }
        })
        expect(patched).toMatchObject({ name: "Renamed", locationName: null, eventTags: ["a"], capacity: 10, primarySlug: event.primarySlug })
        expect(yield* client.events.get({ path: { id: event.eventId } })).toEqual(patched)
        const taken = yield* createEvent(server)
        expect((yield* Effect.flip(client.events.update({ path: { id: event.eventId }, payload: { primarySlug: taken.primarySlug } })))._tag).toBe("Conflict")
        // what the client's schemas would refuse before sending, sent as it is
        expectError(yield* server.request("PATCH", `/event/${event.eventId}`, { body: { primaryDate: "tomorrow" } }), 400, "invalid_request")
      }))
  })

  describe("GET /event and /events", () => {
    it.effect("lists upcoming events by date; past ones only with includePastEvents; limit and skip", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("calendar")
        const late = yield* createEvent(server, { primaryDate: daysFromNow(20) }, token)
        const past = yield* createEvent(server, { primaryDate: daysFromNow(-3) }, token)
        const soon = yield* createEvent(server, { primaryDate: daysFromNow(2) }, token)
        for (const path of ["/event", "/events"]) {
          expect(eventIds(yield* server.request("GET", path, { token }))).toEqual([soon.eventId, late.eventId])
        }
        for (const flag of ["true", "1"]) {
          expect(eventIds(yield* server.request("GET", `/event?includePastEvents=${flag}`, { token }))).toEqual([past.eventId, soon.eventId, late.eventId])
        }
        expect(eventIds(yield* server.request("GET", "/event?includePastEvents=true&limit=1&skip=1", { token }))).toEqual([soon.eventId])
        // dates are answered as given and ordered by their instant, whatever their offsets
        const tokyo = yield* createEvent(server, { primaryDate: "2040-01-01T10:00:00+09:00" }, token)
        const london = yield* createEvent(server, { primaryDate: "2040-01-01T02:00:00Z" }, token)
        const upcoming = (yield* server.request("GET", "/event", { token })).body.events
        expect(upcoming.slice(-2).map((e: { eventId: string; primaryDate: string }) => [e.eventId, e.primaryDate])).toEqual([
          [tokyo.eventId, "2040-01-01T10:00:00+09:00"],
          [london.eventId, "2040-01-01T02:00:00Z"]
        ])
        expectError(yield* server.request("GET", "/event?includePastEvents=maybe", { token }), 400, "invalid_request")
        expectError(yield* server.request("GET", "/event?limit=101", { token }), 400, "invalid_request")
        const listed = (yield* server.request("GET", "/event", { token })).body.events[0]
        for (const key of ["description", "capacity", "featuredImage", "rsvpDescription", "images", "userRole"]) expect(listed).toHaveProperty(key)
      }))

    it.effect("shows a user the events they host, or all with showOrganizationEvents; userRole is their role", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
        const as = { token: null, headers: owner.headers }
        const viewerEmail = uniqueEmail("viewer")
        expectStatus(
          yield* server.request("POST", "/member", { ...as, body: { email: viewerEmail, password: "viewer-password", role: "Viewer" } }),
          200
        )
        const viewer = yield* login(server, viewerEmail, "viewer-password", "acme")
        const mine = expectStatus(yield* server.request("POST", "/event", { ...as, body: { name: "Mine", primaryDate: daysFromNow(5) } }), 200).body
        const tokenEvent = yield* createEvent(server, { primaryDate: daysFromNow(6) })
        const ownerList = eventIds(yield* server.request("GET", "/event", as))
        expect(ownerList).toContain(mine.eventId)
        expect(ownerList).not.toContain(tokenEvent.eventId)
        expect(mine.hostUserIds).toHaveLength(1)
        const all = eventIds(yield* server.request("GET", "/event?showOrganizationEvents=true", as))
        expect(all).toEqual(expect.arrayContaining([mine.eventId, tokenEvent.eventId]))
        expect(eventIds(yield* server.request("GET", "/event", {}))).toEqual(expect.arrayContaining([mine.eventId, tokenEvent.eventId]))
        const viewerSees = (yield* server.request("GET", "/event?showOrganizationEvents=true", { token: null, headers: viewer.headers })).body.events
        expect(viewerSees.find((e: { eventId: string }) => e.eventId === mine.eventId).userRole).toBe("Viewer")
        expect(eventIds(yield* server.request("GET", "/event", { token: null, headers: viewer.headers }))).toEqual([])
        // a host added by PATCH sees the event
        const members = (yield* server.request("GET", "/member", as)).body.members
        const viewerId = members.find((m: { email: string }) => m.email === viewerEmail).userId
        yield* server.request("PATCH", `/event/${tokenEvent.eventId}`, { body: { hostUserIds: [viewerId] } })
        expect(eventIds(yield* server.request("GET", "/event", { token: null, headers: viewer.headers }))).toEqual([tokenEvent.eventId])
        expectError(yield* server.request("POST", "/event", { token: null, headers: viewer.headers, body: { name: "No", primaryDate: daysFromNow(1) } }), 403, "forbidden")
      }))
  })
})
