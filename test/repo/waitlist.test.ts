/**
 * Waitlist promotion over the database, on the suite's engine (CONTRACT §16; the rule is
 * test/unit/waitlist.test.ts, every path through HTTP test/api/waitlist.test.ts): the queue's order
 * read from the RSVP history (since a guest became `Waitlisted`: a repeated `Waitlisted` keeps its
 * place, another status in between sends it to the back), and capacity never exceeded while many
 * writes free and take places at once, the waitlist filling every freed place.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent, UpdateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { GuestUpdate, NewGuest } from "../../src/Guests/Domain.js"
import { EventUpdates } from "../../src/Guests/EventUpdates.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { Rsvp } from "../../src/Rsvp/Rsvp.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const event = (caller: Caller, fields: Record<string, unknown>) =>
  Effect.flatMap(Events, (events) =>
    events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00", ...fields })))

/** `n` new guests of the event, named `label`1.., with their personIds and RSVP tokens, in that order. */
const guests = (caller: Caller, eventId: string, label: string, n: number) =>
  Effect.gen(function*() {
    const lists = yield* GuestLists
    const items = Array.from({ length: n }, (_, i) => ({ firstName: label, lastName: `G${String(i).padStart(3, "0")}`, email: `${label}${i}@example.org` }))
    yield* lists.add(caller, eventId, items.map((g) => Schema.decodeUnknownSync(NewGuest)(g)))
    const found = yield* lists.search(caller, eventId, { name: label, limit: 100, generateRsvpLinks: true })
    return [...found.guests]
      .sort((a, b) => a.lastName.localeCompare(b.lastName))
      .map((g) => ({ personId: g.personId, token: new URL(g.rsvpLink!).searchParams.get("invite")! }))
  })

const setStatus = (caller: Caller, eventId: string, items: ReadonlyArray<readonly [string, string]>) =>
  Effect.flatMap(GuestLists, (lists) =>
    lists.update(caller, eventId, items.map(([personId, rsvpStatus]) => Schema.decodeUnknownSync(GuestUpdate)({ personId, rsvpStatus }))))

const statusesOf = (caller: Caller, eventId: string, personIds: ReadonlyArray<string>) =>
  Effect.map(
    Effect.flatMap(GuestLists, (lists) => lists.search(caller, eventId, { personIds: personIds.join(","), limit: 100 })),
    (found) => personIds.map((id) => found.guests.find((g) => g.personId === id)?.rsvpStatus)
  )

layer(testDatabase(), { excludeTestServices: true })("waitlist promotion over the database", (it) => {
  it.effect("promotes in the order guests became Waitlisted, read from the history, with an entry by system", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("waitlist-order")
      const gala = yield* event(caller, { capacityEnabled: true, capacity: 2 })
      const [a, b, c, d, e] = (yield* guests(caller, gala.eventId, "order", 5)).map((g) => g.personId)
      yield* setStatus(caller, gala.eventId, [[a!, "Accepted"], [b!, "Accepted"]])
      // d waits first, then c, then e; d's second Waitlisted keeps its place
      yield* setStatus(caller, gala.eventId, [[d!, "Waitlisted"]])
      yield* setStatus(caller, gala.eventId, [[c!, "Waitlisted"]])
      yield* setStatus(caller, gala.eventId, [[e!, "Waitlisted"]])
      yield* setStatus(caller, gala.eventId, [[d!, "Waitlisted"]])
      // c leaves the waitlist and comes back: now behind e
      yield* setStatus(caller, gala.eventId, [[c!, "Maybe"], [c!, "Waitlisted"]])
      expect(yield* statusesOf(caller, gala.eventId, [a!, b!, c!, d!, e!])).toEqual(["Accepted", "Accepted", "Waitlisted", "Waitlisted", "Waitlisted"])

      yield* setStatus(caller, gala.eventId, [[a!, "Declined"]])
      expect(yield* statusesOf(caller, gala.eventId, [c!, d!, e!])).toEqual(["Waitlisted", "Accepted", "Waitlisted"])
      const promoted = (yield* (yield* GuestLists).search(caller, gala.eventId, { personIds: d!, limit: 1 })).guests[0]!
      expect(promoted.rsvpStatusHistory.at(-1)).toMatchObject({ status: "Accepted", actorType: "system", actorId: gala.eventId })

      // removed: its place goes to the next (e)
      yield* (yield* GuestLists).remove(caller, gala.eventId, [{ personId: b! }])
      expect(yield* statusesOf(caller, gala.eventId, [c!, e!])).toEqual(["Waitlisted", "Accepted"])
      // a guest Waitlisted while a place is free is not promoted by that write
      yield* setStatus(caller, gala.eventId, [[d!, "Declined"]])
      expect(yield* statusesOf(caller, gala.eventId, [c!])).toEqual(["Accepted"])
      yield* setStatus(caller, gala.eventId, [[a!, "Waitlisted"]])
      expect(yield* statusesOf(caller, gala.eventId, [a!])).toEqual(["Waitlisted"])
      // a raised capacity fills its places; a lowered one takes none back
      const updates = yield* EventUpdates
      yield* updates.update(caller, gala.eventId, Schema.decodeUnknownSync(UpdateEvent)({ capacity: 1 }))
      expect(yield* statusesOf(caller, gala.eventId, [a!, c!, e!])).toEqual(["Waitlisted", "Accepted", "Accepted"])
      yield* updates.update(caller, gala.eventId, Schema.decodeUnknownSync(UpdateEvent)({ capacity: 3 }))
      expect(yield* statusesOf(caller, gala.eventId, [a!])).toEqual(["Accepted"])
    }))

  it.effect("never goes past the capacity while many writes free and take places at once; every freed place is filled", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("waitlist-race")
      const rsvp = yield* Rsvp
      const lists = yield* GuestLists
      const CAPACITY = 5
      const slug = `waitlist-race-${process.pid}`
      const race = yield* event(caller, { capacityEnabled: true, capacity: CAPACITY, primarySlug: slug })
      const all = yield* guests(caller, race.eventId, "race", 30)
      const answer = (token: string, rsvpStatus: "Accepted" | "Declined") =>
        Effect.map(
          rsvp.answer(slug, token, { rsvpStatus, answers: [], dietaryRestrictions: [], note: "", smsConsent: undefined }),
          Option.getOrThrow
        )
      // 5 take the places, 10 wait
      for (const guest of all.slice(0, 15)) yield* answer(guest.token, "Accepted")
      const holders = all.slice(0, CAPACITY)
      // at once: the holders give up their places by every path, 15 more ask for one, 5 waiting ones ask again
      const writes = [
        ...holders.map((guest, i) =>
          i % 3 === 0
            ? Effect.asVoid(answer(guest.token, "Declined"))
            : i % 3 === 1
            ? Effect.asVoid(setStatus(caller, race.eventId, [[guest.personId, "Declined"]]))
            : Effect.asVoid(lists.remove(caller, race.eventId, [{ personId: guest.personId }]))
        ),
        ...all.slice(15).map((guest) => Effect.asVoid(answer(guest.token, "Accepted"))),
        ...all.slice(CAPACITY, CAPACITY + 5).map((guest) => Effect.asVoid(answer(guest.token, "Accepted")))
      ]
      yield* Effect.all(writes, { concurrency: "unbounded" })

      const counts = yield* lists.counts(caller, race.eventId)
      expect(counts.byStatus.Accepted).toBe(CAPACITY)
      // every status the history records, replayed in commit order: never more Accepted than places
      const history = yield* db.query<{ guest: number; status: string }>(
        `SELECT h.event_guest_id AS guest, h.status FROM rsvp_history h
           JOIN event_guests g ON g.id = h.event_guest_id JOIN events e ON e.id = g.event_id
          WHERE e.public_id = ? ORDER BY h.id`,
        [race.eventId]
      )
      const removed = new Set(
        (yield* db.query<{ id: number }>(
          "SELECT g.id FROM event_guests g JOIN events e ON e.id = g.event_id WHERE e.public_id = ? AND g.removed_at IS NOT NULL",
          [race.eventId]
        )).map((r) => Number(r.id))
      )
      expect(removed.size).toBe(1)
      const status = new Map<number, string>()
      let most = 0
      for (const entry of history) {
        status.set(Number(entry.guest), entry.status)
        // a removed guest held its place until its removal, which comes before any promotion into it
        most = Math.max(most, [...status.entries()].filter(([guest, s]) => s === "Accepted" && !removed.has(guest)).length)
      }
      expect(most).toBeLessThanOrEqual(CAPACITY)
      // a freed place is filled in the transaction that freed it, so no newcomer ever finds one:
      // the places went to the five who had waited longest, and everyone else waits
      const accepted = yield* statusesOf(caller, race.eventId, all.map((g) => g.personId))
      expect(accepted.flatMap((s, i) => (s === "Accepted" ? [i] : []))).toEqual([5, 6, 7, 8, 9])
      expect(counts.byStatus.Waitlisted).toBe(all.length - CAPACITY - CAPACITY)
    }))
})
