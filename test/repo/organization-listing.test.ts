/**
 * An organization's upcoming public events over the database, on the suite's engine (CONTRACT
 * §16, "The organization's public face"; the pages and feeds: test/api/org-public-face.test.ts):
 * public events with a page address from now on, soonest first; places left from the `Accepted`
 * guests (not the removed, not other statuses); registration open by §16's rule, read at fixed moments.
 */
import { expect, layer } from "@effect/vitest"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { GuestUpdate, NewGuest } from "../../src/Guests/Domain.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { OrganizationListing } from "../../src/Guests/OrganizationListing.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const NOW = Date.parse("2030-01-01T12:00:00Z")

/** A clock that always reads `millis`: the listing read as of that moment. */
const at = (millis: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => millis,
  unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
  currentTimeMillis: Effect.succeed(millis),
  currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n),
  sleep: () => Effect.void
})

const upcomingAt = (millis: number, slug: string) =>
  Effect.flatMap(OrganizationListing, (listing) => listing.upcoming(slug)).pipe(Effect.withClock(at(millis)))

const event = (caller: Caller, name: string, fields: Record<string, unknown>) =>
  Effect.flatMap(Events, (events) =>
    events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name, isPublic: true, primaryDate: "2030-06-01T20:00:00+02:00", ...fields })))

layer(OrganizationListing.Default.pipe(Layer.provideMerge(testDatabase())), { excludeTestServices: true })("an organization's listing", (it) => {
  it.effect("public events with a page address from now on, soonest first, with places left and registration open", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("listing-a")
      const { caller: other } = yield* db.organization("listing-b")
      const lists = yield* GuestLists
      const full = yield* event(caller, "Almost full", { primaryDate: "2030-03-01T10:00:00-05:00", capacityEnabled: true, capacity: 3 })
      yield* event(caller, "Closed early", { primaryDate: "2030-02-01T10:00:00Z", registrationClosesAt: "2029-12-31T23:00:00Z" })
      yield* event(caller, "Closed by hand", { primaryDate: "2030-04-01T10:00:00Z", registrationOpen: false })
      yield* event(caller, "Open until", { primaryDate: "2030-05-01T10:00:00Z", registrationClosesAt: "2030-04-01T00:00:00+02:00" })
      yield* event(caller, "Private", { isPublic: false })
      yield* event(caller, "No address", { primarySlug: null })
      yield* event(caller, "Past", { primaryDate: "2029-12-31T10:00:00Z" })
      yield* event(other, "Another organization's", {})
      // three Accepted, one of them removed, one Declined: two places taken of three
      const people = ["a", "b", "c", "d"].map((n) => Schema.decodeUnknownSync(NewGuest)({ firstName: n, lastName: "G", email: `${n}@listing.example` }))
      const added = yield* lists.add(caller, full.eventId, people)
      const ids = added.guests.map((g) => g.personId)
      yield* lists.update(caller, full.eventId, ids.slice(0, 3).map((personId, i) =>
        Schema.decodeUnknownSync(GuestUpdate)({ personId, rsvpStatus: i < 2 ? "Accepted" : "Declined" })))
      yield* lists.remove(caller, full.eventId, [{ personId: ids[1]! }])
      yield* lists.update(caller, full.eventId, [Schema.decodeUnknownSync(GuestUpdate)({ personId: ids[3]!, rsvpStatus: "Accepted" })])

      const listing = Option.getOrThrow(yield* upcomingAt(NOW, "listing-a"))
      expect(listing.organization).toEqual({ slug: "listing-a", name: "listing-a" })
      expect(listing.events.map((l) => [l.event.name, l.placesLeft, l.registrationOpen])).toEqual([
        ["Closed early", null, false],
        ["Almost full", 1, true],
        ["Closed by hand", null, false],
        ["Open until", null, true]
      ])
      // a registration closes at its moment
      const later = Option.getOrThrow(yield* upcomingAt(Date.parse("2030-03-31T22:00:00Z"), "listing-a"))
      expect(later.events.map((l) => [l.event.name, l.registrationOpen])).toEqual([["Closed by hand", false], ["Open until", false]])
      expect(yield* upcomingAt(NOW, "no-such-organization")).toEqual(Option.none())
    }))
})
