/**
 * Reminders over the database, on the suite's engine (CONTRACT §17; the rule and the scheduler
 * under the TestClock: test/unit/reminders.test.ts): a pass queues one email per `Accepted` guest
 * (none for declined, pending or removed ones) with the event's Reply-To, marks each in
 * `reminders_sent` in the same transaction, and sends nothing again; passes running at once (as
 * several instances would) send each reminder once, the table's unique key deciding; and the key
 * itself refuses a second mark.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent } from "../../src/Events/Domain.js"
import { EmailQuota } from "../../src/Email/EmailQuota.js"
import { Events } from "../../src/Events/Events.js"
import { GuestUpdate, NewGuest } from "../../src/Guests/Domain.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { GuestInvites } from "../../src/Guests/GuestInvites.js"
import { TicketCodes } from "../../src/Guests/TicketCodes.js"
import { GuestMail } from "../../src/Invitations/GuestMail.js"
import { Reminders } from "../../src/Invitations/Reminders.js"
import { RemindersRepo } from "../../src/Invitations/RemindersRepo.js"
import { PublicOrigin } from "../../src/Runtime/PublicOrigin.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const env = { SMTP_URL: "smtp://127.0.0.1:9", MAIL_FROM: "Acme Events <events@acme.test>" }

/** An event starting in an hour with a reminder two hours before: due now. */
const dueEvent = (caller: Caller, fields: Record<string, unknown> = {}) =>
  Effect.flatMap(Events, (events) =>
    events.create(
      caller,
      Schema.decodeUnknownSync(CreateEvent)({
        name: "Gala",
        primaryDate: new Date(Date.now() + 3_600_000).toISOString(),
        reminders: ["PT2H"],
        replyTo: "host@acme.test",
        ...fields
      })
    ))

/** `n` new guests with the given statuses (in order), their emails. */
const guestsWith = (caller: Caller, eventId: string, label: string, statuses: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const lists = yield* GuestLists
    const items = statuses.map((_, i) => ({ firstName: label, lastName: `G${String(i).padStart(3, "0")}`, email: `${label}${i}@example.org` }))
    yield* lists.add(caller, eventId, items.map((g) => Schema.decodeUnknownSync(NewGuest)(g)))
    const found = yield* lists.search(caller, eventId, { name: label, limit: 500 })
    const byEmail = new Map(found.guests.map((g) => [g.email, g.personId]))
    const updates = items.flatMap((g, i) => statuses[i] === "Invited" ? [] : [{ personId: byEmail.get(g.email)!, rsvpStatus: statuses[i]! }])
    for (let i = 0; i < updates.length; i += 500) {
      yield* lists.update(caller, eventId, updates.slice(i, i + 500).map((u) => Schema.decodeUnknownSync(GuestUpdate)(u)))
    }
    return items.map((g) => ({ email: g.email, personId: byEmail.get(g.email)! }))
  })

/** The emails queued to these addresses: recipient, subject and Reply-To. */
const queuedTo = (addresses: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase
    const rows = yield* db.query<{ recipient: string; subject: string; reply_to: string | null }>(
      "SELECT recipient, subject, reply_to FROM outbox_emails ORDER BY delivery_id"
    )
    return rows.filter((row) => addresses.includes(row.recipient))
  })

const marksOf = (eventId: string) =>
  Effect.flatMap(TestDatabase, (db) =>
    db.query<{ n: number | string }>(
      "SELECT count(*) AS n FROM reminders_sent r JOIN events e ON e.id = r.event_id WHERE e.public_id = ?",
      [eventId],
      "SELECT count(*) AS n FROM reminders_sent r JOIN events e ON e.id = r.event_id WHERE e.public_id = $1"
    ))

layer(Reminders.Default.pipe(Layer.provideMerge(testDatabase(env))), { excludeTestServices: true, timeout: 120_000 })("reminders over the database", (it) => {
  it.effect("one reminder per Accepted guest, with the event's Reply-To; none for declined, pending or removed guests; none twice", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("reminders-a")
      const gala = yield* dueEvent(caller)
      const guests = yield* guestsWith(caller, gala.eventId, "remind", ["Accepted", "Accepted", "Declined", "Pending", "Accepted", "Maybe"])
      // the fifth leaves the list
      yield* (yield* GuestLists).remove(caller, gala.eventId, [{ personId: guests[4]!.personId }])
      const reminders = yield* Reminders
      yield* reminders.pass
      const queued = yield* queuedTo(guests.map((g) => g.email))
      expect(queued.map((q) => q.recipient)).toEqual([guests[0]!.email, guests[1]!.email])
      expect(queued.every((q) => q.reply_to === "host@acme.test" && /^Reminder: Gala starts in (1 hour|59 minutes|60 minutes)$/.test(q.subject))).toBe(true)
      expect(Number((yield* marksOf(gala.eventId))[0]!.n)).toBe(2)
      // the next passes send nothing again
      yield* reminders.pass
      yield* reminders.pass
      expect(yield* queuedTo(guests.map((g) => g.email))).toHaveLength(2)
    }))

  it.effect("an event not yet due, and one that has started, get none", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("reminders-b")
      const later = yield* dueEvent(caller, { primaryDate: new Date(Date.now() + 5 * 3_600_000).toISOString() })
      const started = yield* dueEvent(caller, { primaryDate: new Date(Date.now() - 60_000).toISOString() })
      const a = yield* guestsWith(caller, later.eventId, "later", ["Accepted"])
      const b = yield* guestsWith(caller, started.eventId, "started", ["Accepted"])
      yield* (yield* Reminders).pass
      expect(yield* queuedTo([...a, ...b].map((g) => g.email))).toEqual([])
    }))

  it.effect("passes at once (as several instances run them) send each reminder once: the unique key decides", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("reminders-c")
      const gala = yield* dueEvent(caller)
      const guests = yield* guestsWith(caller, gala.eventId, "race", Array.from({ length: 120 }, () => "Accepted"))
      const reminders = yield* Reminders
      yield* Effect.all(Array.from({ length: 4 }, () => reminders.pass), { concurrency: "unbounded" })
      const queued = yield* queuedTo(guests.map((g) => g.email))
      expect(queued).toHaveLength(120)
      expect(new Set(queued.map((q) => q.recipient)).size).toBe(120)
      expect(Number((yield* marksOf(gala.eventId))[0]!.n)).toBe(120)
    }))

  it.effect("a pass whose read of the guests is stale (another instance reminded them meanwhile) sends nothing: the mark decides", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("reminders-e")
      const gala = yield* dueEvent(caller)
      const guests = yield* guestsWith(caller, gala.eventId, "stale", ["Accepted", "Accepted", "Accepted"])
      // the guests as the first read found them, answered again to every later read: what a pass
      // would see had it read them just before another instance's transaction committed its marks
      const first = new Map<number, ReadonlyArray<unknown>>()
      const staleRepo = Layer.effect(
        RemindersRepo,
        Effect.map(RemindersRepo, (real) =>
          RemindersRepo.make({
            ...real,
            unreminded: (eventId, offset, limit) =>
              first.has(eventId)
                ? Effect.succeed(first.get(eventId) as never)
                : Effect.tap(real.unreminded(eventId, offset, limit), (rows) => Effect.sync(() => void first.set(eventId, rows)))
          }))
      ).pipe(Layer.provide(RemindersRepo.Default))
      const racing = Reminders.DefaultWithoutDependencies.pipe(
        Layer.provide(staleRepo),
        Layer.provide([Events.Default, GuestInvites.Default, TicketCodes.Default, GuestMail.Default, PublicOrigin.Default, EmailQuota.Default])
      )
      // one batch of the second pass reads the stale guests, marks none, sends none, and stops
      yield* Effect.flatMap(Reminders, (reminders) => Effect.zipRight(reminders.pass, reminders.pass)).pipe(Effect.provide(racing))
      expect(yield* queuedTo(guests.map((g) => g.email))).toHaveLength(3)
    }))

  it.effect("reads the events still to start that have reminders, page by page, by start then id", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("reminders-f")
      const start = new Date(Date.now() + 400 * 86_400_000).toISOString()
      const made = [
        yield* dueEvent(caller, { primaryDate: start }),
        yield* dueEvent(caller, { primaryDate: start }),
        yield* dueEvent(caller, { primaryDate: new Date(Date.now() + 401 * 86_400_000).toISOString() }),
        yield* dueEvent(caller, { primaryDate: start, reminders: [] })
      ]
      const repo = yield* Effect.provide(RemindersRepo, RemindersRepo.Default)
      const rowIds = yield* db.query<{ id: number; public_id: string }>("SELECT id, public_id FROM events")
      const idOf = new Map(rowIds.map((r) => [Number(r.id), r.public_id]))
      // from a year ahead, where only these are
      const now = new Date(Date.now() + 399 * 86_400_000).toISOString()
      const first = yield* repo.upcoming(now, undefined, 2)
      const second = yield* repo.upcoming(now, { start: first[1]!.primary_date_utc, id: first[1]!.id }, 2)
      expect([...first, ...second].map((row) => idOf.get(row.id))).toEqual([made[0]!.eventId, made[1]!.eventId, made[2]!.eventId])
    }))

  it.effect("the table refuses a second mark of one guest, event and offset", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("reminders-d")
      const gala = yield* dueEvent(caller, { primaryDate: new Date(Date.now() + 5 * 3_600_000).toISOString() })
      yield* guestsWith(caller, gala.eventId, "twice", ["Accepted"])
      const insert = (offset: number) =>
        db.query(
          "INSERT INTO reminders_sent (event_id, person_id, offset_seconds, sent_at) SELECT g.event_id, g.person_id, ?, 'now' FROM event_guests g JOIN events e ON e.id = g.event_id WHERE e.public_id = ?",
          [offset, gala.eventId],
          "INSERT INTO reminders_sent (event_id, person_id, offset_seconds, sent_at) SELECT g.event_id, g.person_id, $1, 'now' FROM event_guests g JOIN events e ON e.id = g.event_id WHERE e.public_id = $2"
        )
      yield* insert(7_200)
      yield* insert(3_600)
      expect(Exit.isFailure(yield* Effect.exit(insert(7_200)))).toBe(true)
    }))
})

layer(Reminders.Default.pipe(Layer.provideMerge(testDatabase({ ...env, EMAIL_DAILY_LIMIT: "3" }))), { excludeTestServices: true, timeout: 120_000 })(
  "reminders past the daily email quota",
  (it) => {
    it.effect("as many as the quota allows go, the rest wait unmarked; nothing fails", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase
        const { caller } = yield* db.organization("reminders-quota")
        const gala = yield* dueEvent(caller)
        const guests = yield* guestsWith(caller, gala.eventId, "quota", ["Accepted", "Accepted", "Accepted", "Accepted", "Accepted"])
        const reminders = yield* Reminders
        yield* reminders.pass
        yield* reminders.pass
        expect(yield* queuedTo(guests.map((g) => g.email))).toHaveLength(3)
        expect(Number((yield* marksOf(gala.eventId))[0]!.n)).toBe(3)
      }))
  }
)
