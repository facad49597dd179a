/**
 * Self-registration over the database, on the suite's engine (CONTRACT §16, "Registration"): many
 * registrations at once on an event with few places never go past its capacity (the `Accepted`
 * count is read in each registration's write transaction, and writes are serialized on both
 * engines), the rest wait in the order they registered; the same address registered many times at
 * once is one guest. Through HTTP: test/api/public-page.test.ts.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { SelfRegistration } from "../../src/SelfRegistration/SelfRegistration.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const publicEvent = (caller: Caller, slug: string, fields: Record<string, unknown>) =>
  Effect.flatMap(Events, (events) =>
    events.create(caller, Schema.decodeUnknownSync(CreateEvent)({
      name: "Open day",
      primaryDate: "2031-06-01T20:00:00+02:00",
      isPublic: true,
      primarySlug: slug,
      ...fields
    })))

const registrant = (label: string, i: number) => ({
  firstName: label,
  lastName: `R${String(i).padStart(3, "0")}`,
  email: `${label}.${i}@example.org`,
  answers: [],
  dietaryRestrictions: []
})

layer(testDatabase(), { excludeTestServices: true, timeout: 120_000 })("self-registration over the database", (it) => {
  it.effect("100 registrations at once on 50 places: exactly 50 Accepted and 50 Waitlisted, never more Accepted than places", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("registration-race")
      const registrations = yield* SelfRegistration
      const lists = yield* GuestLists
      const slug = `registration-race-${process.pid}`
      const event = yield* publicEvent(caller, slug, { capacityEnabled: true, capacity: 50 })
      const results = yield* Effect.all(
        Array.from({ length: 100 }, (_, i) => registrations.register(slug, registrant("race", i))),
        { concurrency: "unbounded" }
      )
      const statuses = results.map((r) => {
        const value = Option.getOrThrow(r)
        return value._tag === "Added" ? value.status : "none"
      })
      expect(statuses.filter((s) => s === "Accepted")).toHaveLength(50)
      expect(statuses.filter((s) => s === "Waitlisted")).toHaveLength(50)
      const counts = yield* lists.counts(caller, event.eventId)
      expect(counts.byStatus.Accepted).toBe(50)
      expect(counts.byStatus.Waitlisted).toBe(50)
      // the history in commit order: each entry is a registration, the first 50 Accepted, the rest Waitlisted
      const history = yield* db.query<{ status: string; actor: string }>(
        `SELECT h.status, h.actor_type AS actor FROM rsvp_history h
           JOIN event_guests g ON g.id = h.event_guest_id JOIN events e ON e.id = g.event_id
          WHERE e.public_id = ? ORDER BY h.id`,
        [event.eventId]
      )
      expect(history.map((h) => h.status)).toEqual([...Array(50).fill("Accepted"), ...Array(50).fill("Waitlisted")])
      expect(new Set(history.map((h) => h.actor))).toEqual(new Set(["eventPerson"]))
      const page = Option.getOrThrow(yield* registrations.page(slug))
      expect(page.placesLeft).toBe(0)
    }))

  it.effect("the same address registered 20 times at once is one guest; approval makes every registration Pending", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("registration-same")
      const registrations = yield* SelfRegistration
      const lists = yield* GuestLists
      const slug = `registration-same-${process.pid}`
      const event = yield* publicEvent(caller, slug, { registrationApproval: true, capacityEnabled: true, capacity: 1 })
      const results = yield* Effect.all(
        Array.from({ length: 20 }, (_, i) => registrations.register(slug, { ...registrant("same", 0), firstName: `Try${i}` })),
        { concurrency: "unbounded" }
      )
      expect(results.map((r) => Option.getOrThrow(r)._tag).filter((t) => t === "Added")).toHaveLength(1)
      const counts = yield* lists.counts(caller, event.eventId)
      expect(counts.byStatus.Pending).toBe(1)
      expect(counts.total).toBe(1)
    }))
})
