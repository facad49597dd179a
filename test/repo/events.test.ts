/**
 * Events over the database, on the suite's engine (the API's proof: test/api/events.test.ts,
 * test/api/stored-values.test.ts): every field stored and read back, JSON columns included; a
 * partial update changes the fields it names and says which; lists of upcoming events ordered by
 * their instant whatever their offsets, past ones on request; the dashboard's browse with its
 * total; slugs kept unique; and the row ids the statements answer are numbers on both engines.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { DirectSql } from "../../src/Db/DirectSql.js"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent, UpdateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { EventsRepo } from "../../src/Events/EventsRepo.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const create = (caller: Caller, fields: Record<string, unknown>) =>
  Effect.flatMap(Events, (events) => events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Event", ...fields })))

const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

layer(EventsRepo.Default.pipe(Layer.provideMerge(testDatabase())), { excludeTestServices: true })("events over the database", (it) => {
  it.effect("stores every field, JSON columns and text of every kind included; a partial update changes what it names", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("events-fields")
      const events = yield* Events
      const body = {
        name: "Conférence «2031» 😀",
        primaryDate: "2031-09-10T09:00:00Z",
        timezone: "Europe/Paris",
        primarySlug: "conference-2031",
        isPublic: true,
        locationName: "Hall \"A\" <b>",
        locationAddress: "1 Rue\nde la Paix",
        locationApartment: "B",
        locationCity: "Paris",
        locationState: "IDF",
        locationPostalCode: "75001",
        locationCountry: "FR",
        locationPhoneNumber: "+33 1",
        locationWebsite: "https://hall.example",
        virtualLocations: [{ url: "https://meet.example/x?a=1&b=2", sourceType: "zoom" }, { url: null, phoneNumber: "+1 555 0100" }],
        eventTags: ["tech", "2031", "李"],
        images: [{ type: "headerImg", url: "https://img.example/h.png" }],
        rsvpDescription: "Join us\n\ttabs \\ and </script>",
        featuredImage: "https://img.example/f.png",
        capacityEnabled: true,
        capacity: 120,
        ticketingEnabled: true,
        rsvpQuestions: [{ title: "Diet?", description: "Any needs" }, { title: "T-shirt" }],
        customColumns: ["Table", "Badge", "__proto__"]
      }
      const event = yield* create(caller, body)
      const read = yield* events.get(caller, event.eventId)
      expect(read).toEqual(event)
      expect(read).toMatchObject({
        ...body,
        virtualLocations: [
          { url: "https://meet.example/x?a=1&b=2", password: null, phoneNumber: null, sourceType: "zoom" },
          { url: null, password: null, phoneNumber: "+1 555 0100", sourceType: null }
        ],
        rsvpQuestions: [{ title: "Diet?", description: "Any needs" }, { title: "T-shirt", description: null }],
        // the description is the RSVP text on one line
        description: "Join us \ttabs \\ and </script>"
      })
      const changed = yield* events.update(caller, event.eventId, Schema.decodeUnknownSync(UpdateEvent)({
        name: "Renamed",
        capacity: 120,
        eventTags: []
      }))
      expect(changed.updatedFields?.slice().sort()).toEqual(["eventTags", "name"])
      expect(yield* events.get(caller, event.eventId)).toEqual({ ...read, name: "Renamed", eventTags: [] })
      // a second event of the same slug is refused; of the same name, it gets a slug of its own
      expect((yield* Effect.either(create(caller, { primaryDate: daysFromNow(3), primarySlug: "conference-2031" })))._tag).toBe("Left")
      const same = [yield* create(caller, { name: "Same name", primaryDate: daysFromNow(3), isPublic: true }), yield* create(caller, { name: "Same name", primaryDate: daysFromNow(3), isPublic: true })]
      expect(new Set(same.map((e) => e.primarySlug)).size).toBe(2)
    }))

  it.effect("lists upcoming events by their instant whatever their offsets, past ones on request, and browses with totals", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("events-list")
      const events = yield* Events
      const late = yield* create(caller, { primaryDate: daysFromNow(20) })
      const past = yield* create(caller, { name: "Past event", primaryDate: daysFromNow(-3) })
      const soon = yield* create(caller, { primaryDate: daysFromNow(2) })
      const ids = (listed: { readonly events: ReadonlyArray<{ readonly eventId: string }> }) => listed.events.map((e) => e.eventId)
      expect(ids(yield* events.list(caller, {}))).toEqual([soon.eventId, late.eventId])
      expect(ids(yield* events.list(caller, { includePastEvents: true }))).toEqual([past.eventId, soon.eventId, late.eventId])
      expect(ids(yield* events.list(caller, { includePastEvents: true, limit: 1, skip: 1 }))).toEqual([soon.eventId])
      const tokyo = yield* create(caller, { primaryDate: "2040-01-01T10:00:00+09:00" })
      const london = yield* create(caller, { primaryDate: "2040-01-01T02:00:00Z" })
      const newYork = yield* create(caller, { primaryDate: "2039-12-31T20:00:00-05:00" })
      expect((yield* events.list(caller, {})).events.slice(-3).map((e) => [e.eventId, e.primaryDate])).toEqual([
        [tokyo.eventId, "2040-01-01T10:00:00+09:00"],
        [newYork.eventId, "2039-12-31T20:00:00-05:00"],
        [london.eventId, "2040-01-01T02:00:00Z"]
      ])
      const upcoming = yield* events.browse(caller, { when: "upcoming", name: "", limit: 2, skip: 1 })
      expect({ total: upcoming.total, ids: ids(upcoming) }).toEqual({ total: 5, ids: [late.eventId, tokyo.eventId] })
      const pastOnes = yield* events.browse(caller, { when: "past", name: "PAST", limit: 10, skip: 0 })
      expect({ total: pastOnes.total, ids: ids(pastOnes) }).toEqual({ total: 1, ids: [past.eventId] })
      expect(yield* events.usualTimezone(caller)).toBeDefined()
    }))

  it.effect("row ids answered by an insert are numbers, and rows are found by them", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("events-ids")
      const direct = yield* DirectSql
      const event = yield* create(caller, { primaryDate: daysFromNow(1) })
      const [row] = yield* db.query<{ id: number }>("SELECT id FROM events WHERE public_id = ?", [event.eventId])
      expect(typeof row!.id).toBe("number")
      const found = yield* (yield* EventsRepo).byId(row!.id as never)
      expect(found._tag === "Some" && found.value.public_id).toBe(event.eventId)
      expect(typeof (found._tag === "Some" && found.value.organization_id)).toBe("number")
      expect(direct.executed()).toBeGreaterThan(0)
    }))
})
