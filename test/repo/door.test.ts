/**
 * The door's tables and reads on the suite's engine (CONTRACT §17): door links stored by their
 * token's hash only, listed newest first, revoked once, opened only while live and only by their
 * token, as a door-only caller of their event's organization; the door's list of an event's guests
 * (with their tickets' codes; emails only when asked), by name, and its counter of Accepted guests.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Layer, Schema } from "effect"
import { createHash } from "node:crypto"
import { CreateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { NewGuest } from "../../src/Guests/Domain.js"
import { DoorLinks } from "../../src/Guests/DoorLinks.js"
import { DoorList } from "../../src/Guests/DoorList.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

layer(Layer.mergeAll(DoorLinks.Default, DoorList.Default).pipe(Layer.provideMerge(testDatabase())), { excludeTestServices: true })("the door over the database", (it) => {
  it.effect("door links: the token's hash stored, listed, opened while live by its token only, revoked once", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("door-links-repo")
      const other = yield* db.organization("door-links-other")
      const events = yield* Events
      const links = yield* DoorLinks
      const event = yield* events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00", timezone: "Europe/Paris" }))

      const made = yield* links.create(caller, event.eventId, { name: "  North entrance " })
      expect(made.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      // the end of the event's day in its zone: midnight in Paris
      expect(made.link).toMatchObject({ name: "North entrance", expiresAt: "2031-06-01T22:00:00.000Z", revokedAt: null, live: true })
      const second = yield* links.create(caller, event.eventId, { name: "South", lastDay: "2031-06-02" })
      expect(second.link.expiresAt).toBe("2031-06-02T22:00:00.000Z")
      const stored = yield* db.query<{ token_hash: Uint8Array }>("SELECT token_hash FROM door_links ORDER BY id")
      expect(stored.map((r) => Buffer.from(r.token_hash).length)).toEqual([32, 32])
      expect(Buffer.from(stored[0]!.token_hash).equals(createHash("sha256").update(made.token).digest())).toBe(true)
      expect((yield* links.list(caller, event.eventId)).map((l) => l.name)).toEqual(["South", "North entrance"])
      // another organization sees neither the event nor its links
      expect((yield* Effect.either(links.list(other.caller, event.eventId)))._tag).toBe("Left")

      const opened = yield* links.open(made.token)
      expect(opened).toMatchObject({ eventId: event.eventId, name: "North entrance", caller: { organizationId: caller.organizationId, role: "Team Member" } })
      expect(Either.isLeft(yield* Effect.either(links.open(made.token.slice(0, -1) + (made.token.endsWith("A") ? "B" : "A"))))).toBe(true)
      expect(Either.isLeft(yield* Effect.either(links.create(caller, event.eventId, { name: "" })))).toBe(true)
      expect(Either.isLeft(yield* Effect.either(links.create(caller, event.eventId, { name: "Old", lastDay: "2001-01-01" })))).toBe(true)

      yield* links.revoke(caller, event.eventId, made.link.linkId)
      const revoked = (yield* links.list(caller, event.eventId)).find((l) => l.linkId === made.link.linkId)!
      expect(revoked).toMatchObject({ live: false })
      expect(revoked.revokedAt).not.toBeNull()
      yield* links.revoke(caller, event.eventId, made.link.linkId)
      expect((yield* links.list(caller, event.eventId)).find((l) => l.linkId === made.link.linkId)!.revokedAt).toBe(revoked.revokedAt)
      expect(Either.isLeft(yield* Effect.either(links.open(made.token)))).toBe(true)
      expect((yield* links.open(second.token)).name).toBe("South")
    }))

  it.effect("the door's list: the event's guests by name, their codes, emails only when asked, the counter of Accepted guests", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("door-list-repo")
      const events = yield* Events
      const lists = yield* GuestLists
      const door = yield* DoorList
      const event = yield* events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00" }))
      const added = yield* lists.add(caller, event.eventId, [
        { email: "zoe@example.com", firstName: "Zoe", lastName: "Zed" },
        { email: "ada@example.com", firstName: "ada", lastName: "Lovelace" },
        { email: "dan@example.com", firstName: "Dan", lastName: "Declined" }
      ].map((g) => Schema.decodeUnknownSync(NewGuest)(g)))
      const id = (first: string) => added.guests.find((g) => g.firstName === first)!.personId
      yield* lists.update(caller, event.eventId, [
        { personId: id("Zoe"), rsvpStatus: "Accepted" },
        { personId: id("ada"), rsvpStatus: "Accepted", attendanceStatus: "Attended" },
        { personId: id("Dan"), rsvpStatus: "Declined", attendanceStatus: "Attended" }
      ])
      const withEmail = yield* door.entries(caller, event.eventId, true)
      expect(withEmail.entries.map((e) => [e.name, e.email, e.rsvp, e.in, e.code])).toEqual([
        ["ada Lovelace", "ada@example.com", "Accepted", true, null],
        ["Dan Declined", "dan@example.com", "Declined", true, null],
        ["Zoe Zed", "zoe@example.com", "Accepted", false, null]
      ])
      expect(withEmail.counts).toEqual({ checkedIn: 1, expected: 2, extra: 1 })
      const names = yield* door.entries(caller, event.eventId, false)
      for (const entry of names.entries) expect(entry).not.toHaveProperty("email")
      yield* lists.remove(caller, event.eventId, [{ personId: id("Zoe") }])
      expect((yield* door.entries(caller, event.eventId, false)).entries.map((e) => e.name)).toEqual(["ada Lovelace", "Dan Declined"])
    }))
})
