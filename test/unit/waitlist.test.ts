/**
 * The waitlist's rule (src/Guests/Waitlist.ts) and its promotion (src/Guests/WaitlistPromotion.ts)
 * over stub layers: who takes the free places (those `Waitlisted` longest, never past the
 * capacity, every one when the event stops limiting), when a write frees a place, and what a
 * promotion writes (`Accepted`, a history entry by `system` with the event's id) and publishes
 * (the notifications and change-feed entries of a PUT of those statuses); and an approval's statuses.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Changes } from "../../src/Changes/Changes.js"
import type { ChangeEntry } from "../../src/Changes/Domain.js"
import { EventRowId, GuestRowId, OrganizationRowId, PersonRowId } from "../../src/Domain/RowIds.js"
import type { EventRow } from "../../src/Events/EventRow.js"
import type { GuestListChange } from "../../src/Guests/Changes.js"
import { GuestNotifications } from "../../src/Guests/GuestNotifications.js"
import { type GuestRow, GuestsRepo } from "../../src/Guests/GuestsRepo.js"
import { approvedStatuses, freePlaces, freesPlace, promoted } from "../../src/Guests/Waitlist.js"
import { WaitlistPromotion } from "../../src/Guests/WaitlistPromotion.js"
import { GuestStatusEmails } from "../../src/Guests/StatusEmails.js"
import { PublicOrigin } from "../../src/Runtime/PublicOrigin.js"
import { makeTestLayer } from "../support/TestLayer.js"

const waiting = (guestId: number, since: number | null) => ({ guestId, since })

describe("the waitlist's rule", () => {
  it("gives the free places to those waiting longest, in that order, never past the capacity", () => {
    const queue = [waiting(4, 30), waiting(1, 50), waiting(7, 10), waiting(2, 40)]
    expect(promoted({ capacityEnabled: true, capacity: 10, accepted: 8 }, queue)).toEqual([7, 4])
    expect(promoted({ capacityEnabled: true, capacity: 10, accepted: 9 }, queue)).toEqual([7])
    expect(promoted({ capacityEnabled: true, capacity: 10, accepted: 10 }, queue)).toEqual([])
    // an event over its capacity (the API does not enforce it) frees nothing
    expect(promoted({ capacityEnabled: true, capacity: 10, accepted: 12 }, queue)).toEqual([])
    expect(promoted({ capacityEnabled: true, capacity: 0, accepted: 0 }, queue)).toEqual([])
    expect(promoted({ capacityEnabled: true, capacity: 100, accepted: 0 }, queue)).toEqual([7, 4, 2, 1])
    expect(promoted({ capacityEnabled: true, capacity: 3, accepted: 0 }, [])).toEqual([])
  })

  it("gives every waiting guest a place when the event stops limiting them", () => {
    const queue = [waiting(3, 20), waiting(1, 10)]
    expect(promoted({ capacityEnabled: false, capacity: 5, accepted: 5 }, queue)).toEqual([1, 3])
    expect(promoted({ capacityEnabled: true, capacity: null, accepted: 5 }, queue)).toEqual([1, 3])
    expect(freePlaces({ capacityEnabled: false, capacity: 5, accepted: 9 })).toBe(Number.POSITIVE_INFINITY)
  })

  it("puts guests without a dated entry behind every dated one, ties by guest", () => {
    const queue = [waiting(9, null), waiting(5, null), waiting(8, 70), waiting(6, 70)]
    expect(promoted({ capacityEnabled: true, capacity: 10, accepted: 0 }, queue)).toEqual([6, 8, 5, 9])
  })

  it("approves registrations as coming while places remain, on the waitlist past them", () => {
    expect(approvedStatuses({ capacityEnabled: true, capacity: 5, accepted: 3 }, 4)).toEqual(["Accepted", "Accepted", "Waitlisted", "Waitlisted"])
    expect(approvedStatuses({ capacityEnabled: true, capacity: 5, accepted: 7 }, 2)).toEqual(["Waitlisted", "Waitlisted"])
    expect(approvedStatuses({ capacityEnabled: false, capacity: 5, accepted: 7 }, 2)).toEqual(["Accepted", "Accepted"])
    expect(approvedStatuses({ capacityEnabled: true, capacity: 5, accepted: 0 }, 0)).toEqual([])
  })

  it("frees a place when a guest leaves Accepted, by a status or removed", () => {
    expect(freesPlace("Accepted", "Declined")).toBe(true)
    expect(freesPlace("Accepted", "Waitlisted")).toBe(true)
    expect(freesPlace("Accepted", undefined)).toBe(true)
    expect(freesPlace("Accepted", "Accepted")).toBe(false)
    expect(freesPlace("Maybe", "Declined")).toBe(false)
    expect(freesPlace("Waitlisted", undefined)).toBe(false)
  })
})

const event = (fields: Partial<EventRow>): EventRow => ({
  id: EventRowId(7),
  public_id: "event-7",
  organization_id: OrganizationRowId(3),
  slug: null,
  capacity_enabled: 1,
  capacity: 3,
  ...fields
} as EventRow)

const row = (gid: number): GuestRow => ({
  gid: GuestRowId(gid),
  person_id: PersonRowId(100 + gid),
  public_id: `person-${gid}`,
  first_name: "G",
  last_name: String(gid),
  email: `g${gid}@example.org`,
  company: null,
  position: null,
  rsvp_status: "Accepted",
  attendance_status: null,
  dietary_restrictions: null,
  rsvp_note: null,
  custom_columns: null,
  rsvp_question_responses: "[]",
  phone: null,
  consent: null,
  consent_source: null,
  token: null,
  removed_at: null,
  history: "[]"
})

/** A promotion over stub layers: the repository's count and queue given, what it writes and publishes kept. */
const promotionOver = (accepted: number, queue: ReadonlyArray<{ id: number; since: number | null; history_entries: number }>) => {
  const writes: Array<unknown> = []
  const changes: Array<GuestListChange> = []
  const recorded: Array<ChangeEntry> = []
  const told: Array<unknown> = []
  const layer = WaitlistPromotion.DefaultWithoutDependencies.pipe(
    Layer.provide(makeTestLayer(GuestStatusEmails)({ tell: (_, news) => Effect.sync(() => void told.push(...news)) })),
    Layer.provide(makeTestLayer(GuestsRepo)({
      acceptedCount: () => Effect.succeed(accepted),
      waiting: () => Effect.succeed(queue.map((w) => ({ ...w, id: GuestRowId(w.id) }))),
      update: (guestId, columns) => Effect.sync(() => void writes.push(["update", guestId, columns])),
      addHistory: (entry) => Effect.sync(() => void writes.push(["history", entry.guestId, entry.status, entry.actorType, entry.actorId])),
      byIds: (ids) => Effect.succeed(ids.map(row))
    })),
    Layer.provide(makeTestLayer(GuestNotifications)({ guestListChanged: (_, change) => Effect.sync(() => void changes.push(change)) })),
    Layer.provide(makeTestLayer(Changes)({ record: (_, entries) => Effect.sync(() => void recorded.push(...entries)) })),
    Layer.provide(makeTestLayer(PublicOrigin)({ rsvpLink: () => null }))
  )
  return { layer, writes, changes, recorded, told }
}

describe("WaitlistPromotion", () => {
  it.effect("fills the free places with the guests waiting longest: Accepted, by system, notified as a PUT", () => {
    const over = promotionOver(1, [
      { id: 21, since: 500, history_entries: 3 },
      { id: 22, since: 200, history_entries: 2 },
      // a full history cannot take the entry: that guest keeps waiting
      { id: 23, since: 100, history_entries: 1_000 },
      { id: 24, since: 300, history_entries: 4 }
    ])
    return Effect.gen(function*() {
      const promotion = yield* WaitlistPromotion
      expect(yield* promotion.fill(event({}), "2031-01-01T00:00:00.000Z")).toEqual([22, 24])
      expect(over.writes).toEqual([
        ["update", 22, { rsvp_status: "Accepted" }],
        ["history", 22, "Accepted", "system", "event-7"],
        ["update", 24, { rsvp_status: "Accepted" }],
        ["history", 24, "Accepted", "system", "event-7"]
      ])
      expect(over.changes).toHaveLength(1)
      expect(over.changes[0]).toMatchObject({
        affected: [22, 24],
        updated: 2,
        added: 0,
        removed: 0,
        statusChanges: [
          { guestId: 22, previousStatus: "Waitlisted", rsvpStatus: "Accepted", rsvpChanged: true, attendanceChanged: false },
          { guestId: 24, previousStatus: "Waitlisted", rsvpStatus: "Accepted", rsvpChanged: true, attendanceChanged: false }
        ]
      })
      expect(over.recorded).toEqual([
        { type: "guest", action: "updated", id: "person-22", eventId: "event-7" },
        { type: "guest", action: "updated", id: "person-24", eventId: "event-7" }
      ])
      // each promoted guest is told by email, in the promotion's transaction (CONTRACT §17)
      expect(over.told).toEqual([
        { guestId: 22, news: { kind: "promoted", rsvpStatus: "Accepted" } },
        { guestId: 24, news: { kind: "promoted", rsvpStatus: "Accepted" } }
      ])
    }).pipe(Effect.provide(over.layer))
  })

  it.effect("writes and publishes nothing when no place is free, or when a write freed none", () => {
    const over = promotionOver(3, [{ id: 21, since: 500, history_entries: 3 }])
    return Effect.gen(function*() {
      const promotion = yield* WaitlistPromotion
      expect(yield* promotion.fill(event({}), "2031-01-01T00:00:00.000Z")).toEqual([])
      expect(yield* promotion.afterWrite(event({ capacity: 10 }), false, "2031-01-01T00:00:00.000Z")).toEqual([])
      // an event without capacity: a freed place changes nothing
      expect(yield* promotion.afterWrite(event({ capacity_enabled: 0 }), true, "2031-01-01T00:00:00.000Z")).toEqual([])
      expect([over.writes, over.changes, over.recorded]).toEqual([[], [], []])
    }).pipe(Effect.provide(over.layer))
  })
})
