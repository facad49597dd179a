/**
 * Reminders (CONTRACT §17) over stub layers, under the TestClock: the rule (src/Invitations/
 * ReminderRule.ts: due from `start - offset` until the start, never after; several due at once make
 * one email for the nearest) and the scheduler (src/Invitations/Reminders.ts `remindersLive`: a
 * fiber whose passes send what is due, late when no pass ran at its time, never after the start,
 * only to guests `Accepted` then, once per guest and offset as the marks say). The marks' unique
 * key over a real database, on both engines: test/repo/reminders.test.ts; the emails over SMTP
 * across a restart: test/slow/reminders.test.ts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option, TestClock } from "effect"
import { EventRowId, GuestRowId, OrganizationRowId, PersonRowId } from "../../src/Domain/RowIds.js"
import type { EventRow } from "../../src/Events/EventRow.js"
import { EmailQuota } from "../../src/Email/EmailQuota.js"
import { Events } from "../../src/Events/Events.js"
import { GuestInvites } from "../../src/Guests/GuestInvites.js"
import { TicketCodes } from "../../src/Guests/TicketCodes.js"
import { type GuestEmailOf, GuestMail } from "../../src/Invitations/GuestMail.js"
import { timeAhead } from "../../src/Invitations/ReminderEmail.js"
import { dueAt, nextDueAt, offsetsOf } from "../../src/Invitations/ReminderRule.js"
import { Reminders, remindersLive } from "../../src/Invitations/Reminders.js"
import { RemindersRepo } from "../../src/Invitations/RemindersRepo.js"
import { PublicOrigin } from "../../src/Runtime/PublicOrigin.js"
import { makeTestLayer } from "../support/TestLayer.js"

const HOUR = 3_600_000

describe("the reminders' rule", () => {
  it("reads the offsets in seconds, each length once, smallest first", () => {
    expect(offsetsOf(`["P1D", "PT2H", "PT24H", "P1W"]`)).toEqual([7_200, 86_400, 604_800])
    expect(offsetsOf("[]")).toEqual([])
    expect(offsetsOf("not json")).toEqual([])
    expect(offsetsOf(`["P1M", 5, "PT0S"]`)).toEqual([])
  })

  it("is due from start minus the offset until the start, never after; several due make one email, for the nearest", () => {
    const start = 100 * HOUR
    const offsets = [2 * 3600, 24 * 3600]
    expect(dueAt(start, offsets, start - 25 * HOUR)).toBeUndefined()
    expect(dueAt(start, offsets, start - 24 * HOUR)).toEqual({ nearest: 86_400, offsets: [86_400] })
    expect(dueAt(start, offsets, start - 3 * HOUR)).toEqual({ nearest: 86_400, offsets: [86_400] })
    expect(dueAt(start, offsets, start - 2 * HOUR)).toEqual({ nearest: 7_200, offsets: [7_200, 86_400] })
    // late (no instance ran at its time) but before the start: still due
    expect(dueAt(start, offsets, start - 1)).toEqual({ nearest: 7_200, offsets: [7_200, 86_400] })
    // never at or after the start
    expect(dueAt(start, offsets, start)).toBeUndefined()
    expect(dueAt(start, offsets, start + HOUR)).toBeUndefined()
    expect(dueAt(Number.NaN, offsets, 0)).toBeUndefined()
    expect(nextDueAt(start, offsets, start - 25 * HOUR)).toBe(start - 24 * HOUR)
    expect(nextDueAt(start, offsets, start - 2 * HOUR)).toBeUndefined()
  })

  it("says the time left in words", () => {
    expect(timeAhead(86_400)).toBe("1 day")
    expect(timeAhead(7_200)).toBe("2 hours")
    expect(timeAhead(5_400)).toBe("2 hours")
    expect(timeAhead(600)).toBe("10 minutes")
    expect(timeAhead(20)).toBe("less than a minute")
    expect(timeAhead(14 * 86_400)).toBe("2 weeks")
  })
})

interface FakeGuest {
  readonly gid: number
  status: string
  removed: boolean
}

/** The scheduler over stub layers: one event starting at `startAt` with `reminders`, its guests, the marks and the emails kept. */
const over = (startAt: number, reminders: ReadonlyArray<string>, guests: Array<FakeGuest>, configured = true) => {
  const row = {
    id: EventRowId(7),
    public_id: "event-7",
    organization_id: OrganizationRowId(3),
    name: "Gala",
    slug: "gala",
    primary_date_utc: new Date(startAt).toISOString(),
    reminders: JSON.stringify(reminders)
  } as EventRow
  const marks = new Set<string>()
  const sent: Array<{ at: number; email: GuestEmailOf }> = []
  const key = (personId: number, offset: number) => `${personId}/${offset}`
  const layer = Reminders.DefaultWithoutDependencies.pipe(
    Layer.provide(makeTestLayer(SqlClient.SqlClient)({ withTransaction: (effect) => effect })),
    Layer.provide(makeTestLayer(RemindersRepo)({
      upcoming: (now, after) => Effect.succeed(row.primary_date_utc > now && after === undefined ? [row] : []),
      unreminded: (_, offset, limit) =>
        Effect.succeed(
          guests.filter((g) => g.status === "Accepted" && !g.removed && !marks.has(key(g.gid, offset))).slice(0, limit)
            .map((g) => ({ gid: GuestRowId(g.gid), person_id: PersonRowId(g.gid), public_id: `p${g.gid}`, first_name: `G${g.gid}`, email: `g${g.gid}@example.org` }))
        ),
      mark: (_, personId, offset) => Effect.sync(() => marks.has(key(personId, offset)) ? false : (marks.add(key(personId, offset)), true))
    })),
    Layer.provide(makeTestLayer(Events)({ byRowId: () => Effect.succeed(Option.some(row)) })),
    Layer.provide(makeTestLayer(GuestInvites)({
      ensureInviteTokens: (_, __, linked) => Effect.succeed(new Map(linked.map((g) => [g.gid, `token-${g.gid}`])))
    })),
    Layer.provide(makeTestLayer(TicketCodes)({ issue: (gid) => Effect.succeed(`CODE${gid}`) })),
    Layer.provide(makeTestLayer(GuestMail)({
      configured,
      queue: (_, emails) =>
        Effect.flatMap(TestClock.currentTimeMillis, (at) => Effect.sync(() => (sent.push(...emails.map((email) => ({ at, email }))), true)))
    })),
    Layer.provide(makeTestLayer(EmailQuota)({ state: () => Effect.succeed({ limit: 1000, used: 0, left: 1000, nextFreeAt: null }) })),
    Layer.provide(makeTestLayer(PublicOrigin)({ rsvpLink: (slug, token) => `https://convene.test/rsvp/${slug}?invite=${token}` }))
  )
  return { layer, marks, sent }
}

/**
 * The reminders' fiber, started now (a pass now and every 10 minutes), until the test ends. Each
 * pass the TestClock runs costs a few milliseconds of real time (it waits for every fiber to
 * suspend): hours of passes a minute apart cost seconds, a pass every 10 minutes proves the same.
 */
const PAUSE = Duration.minutes(10)
const runScheduler = remindersLive(PAUSE).pipe(Layer.build, Effect.asVoid)

describe("the reminders' scheduler", () => {
  it.scoped("sends each Accepted guest one reminder at the offset, none before, none twice; declined and removed guests none", () => {
    const guests: Array<FakeGuest> = [{ gid: 1, status: "Accepted", removed: false }, { gid: 2, status: "Declined", removed: false }, {
      gid: 3,
      status: "Accepted",
      removed: true
    }, { gid: 4, status: "Accepted", removed: false }]
    const fake = over(10 * HOUR, ["PT2H"], guests)
    return Effect.gen(function*() {
      yield* runScheduler
      // every pass up to the last one before the reminder is due (8 hours in) sends nothing
      yield* TestClock.adjust(Duration.hours(8).pipe(Duration.subtract(Duration.minutes(1))))
      expect(fake.sent).toEqual([])
      // guest 4 declines before the reminder is due
      guests[3]!.status = "Declined"
      yield* TestClock.adjust(Duration.minutes(1))
      expect(fake.sent.map((s) => [s.at, s.email.to])).toEqual([[8 * HOUR, "g1@example.org"]])
      const email = fake.sent[0]!.email
      expect(email).toMatchObject({
        subject: "Reminder: Gala starts in 2 hours",
        firstName: "G1",
        rsvpLink: "https://convene.test/rsvp/gala?invite=token-1",
        ticketCode: "CODE1"
      })
      // every later pass until the start (and after it) sends nothing more
      yield* TestClock.adjust(Duration.hours(3))
      expect(fake.sent).toHaveLength(1)
      expect([...fake.marks]).toEqual(["1/7200"])
    }).pipe(Effect.provide(fake.layer))
  })

  it.scoped("a reminder due while no instance ran goes out at the first pass, late but before the start; several due make one email", () => {
    const fake = over(10 * HOUR, ["P1D", "PT2H"], [{ gid: 1, status: "Accepted", removed: false }])
    return Effect.gen(function*() {
      // the server comes back 90 minutes before the start: both offsets have passed
      yield* TestClock.setTime(10 * HOUR - 90 * 60_000)
      yield* runScheduler
      yield* TestClock.adjust(Duration.seconds(1))
      expect(fake.sent.map((s) => s.at)).toEqual([10 * HOUR - 90 * 60_000])
      expect(fake.sent[0]!.email.subject).toBe("Reminder: Gala starts in 2 hours")
      expect([...fake.marks].sort()).toEqual(["1/7200", "1/86400"])
      yield* TestClock.adjust(Duration.hours(1))
      expect(fake.sent).toHaveLength(1)
    }).pipe(Effect.provide(fake.layer))
  })

  it.scoped("never sends once the event has started, even when the reminder was never sent", () => {
    const fake = over(10 * HOUR, ["PT2H"], [{ gid: 1, status: "Accepted", removed: false }])
    return Effect.gen(function*() {
      yield* TestClock.setTime(10 * HOUR)
      yield* runScheduler
      yield* TestClock.adjust(Duration.hours(5))
      expect(fake.sent).toEqual([])
      expect(fake.marks.size).toBe(0)
    }).pipe(Effect.provide(fake.layer))
  })

  it.scoped("a guest who accepts after the offset, before the start, gets the reminder at the next pass", () => {
    const guests: Array<FakeGuest> = [{ gid: 1, status: "Invited", removed: false }]
    const fake = over(10 * HOUR, ["PT2H"], guests)
    return Effect.gen(function*() {
      yield* runScheduler
      // the pass 9 hours in (after the offset) sees the guest Invited
      yield* TestClock.adjust(Duration.hours(9))
      expect(fake.sent).toEqual([])
      guests[0]!.status = "Accepted"
      yield* TestClock.adjust(PAUSE)
      expect(fake.sent.map((s) => s.at)).toEqual([9 * HOUR + Duration.toMillis(PAUSE)])
    }).pipe(Effect.provide(fake.layer))
  })

  it.scoped("without email configured, marks and sends nothing", () => {
    const fake = over(10 * HOUR, ["PT2H"], [{ gid: 1, status: "Accepted", removed: false }], false)
    return Effect.gen(function*() {
      yield* runScheduler
      yield* TestClock.adjust(Duration.hours(9))
      expect(fake.sent).toEqual([])
      expect(fake.marks.size).toBe(0)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a pass that fails is logged and the next one runs (the fiber outlives it)", () => {
    let calls = 0
    const failing = Layer.succeed(Reminders, Reminders.make({
      pass: Effect.suspend(() => ++calls === 1 ? Effect.die("database gone") : Effect.succeed(0))
    }))
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(Effect.scoped(Effect.zipRight(runScheduler, Effect.never)))
      yield* TestClock.adjust(Duration.times(PAUSE, 3))
      expect(calls).toBe(4)
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(failing))
  })
})
