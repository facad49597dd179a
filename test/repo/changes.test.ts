/**
 * The change feed over the database, on the suite's engine (the API's proof: test/api/changes-feed.test.ts,
 * test/slow/changes-concurrency.test.ts): every write records its changes in its transaction, in
 * commit order; a reader paging while writers write sees every change exactly once, each writer's
 * in its order (on PostgreSQL, `seq` is commit order only because write transactions take the one
 * write lock: ChangesRepo.ts); retention deletes the oldest changes and a cursor before them is
 * told so.
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Schema } from "effect"
import { type Change, type ChangeType } from "../../src/Changes/Domain.js"
import { Changes } from "../../src/Changes/Changes.js"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { GuestUpdate, NewGuest } from "../../src/Guests/Domain.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { CreatePerson, UpdatePerson } from "../../src/Persons/Domain.js"
import { Persons } from "../../src/Persons/Persons.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const createPerson = (caller: Caller, email: string, fields: Record<string, unknown> = {}) =>
  Effect.map(
    Effect.flatMap(Persons, (persons) =>
      persons.create(caller, Schema.decodeUnknownSync(CreatePerson)({ firstName: "Ada", lastName: "Lovelace", email, ...fields }))),
    (created) => created.personId
  )

const renamePerson = (caller: Caller, personId: string, firstName: string) =>
  Effect.flatMap(Persons, (persons) => persons.update(caller, personId, Schema.decodeUnknownSync(UpdatePerson)({ personId, firstName })))

/** Every change after `after` (from the start without it), page by page; and the cursor at the end. */
const readAll = (caller: Caller, after: string | undefined, limit: number, types?: ReadonlyArray<ChangeType>) =>
  Effect.gen(function*() {
    const changes = yield* Changes
    const read: Array<Change> = []
    let cursor = after
    for (;;) {
      const page = yield* changes.feed(caller, { after: cursor, limit, types })
      read.push(...page.changes)
      cursor = page.nextCursor
      if (!page.hasMore) return { read, cursor }
    }
  })

const summary = (changes: ReadonlyArray<Change>) => changes.map((c) => `${c.type} ${c.action} ${c.id}${c.eventId === undefined ? "" : ` @${c.eventId}`}`)

layer(testDatabase(), { excludeTestServices: true, timeout: 120_000 })("the change feed over the database", (it) => {
  it.effect("records every write once, in commit order; pages continue where the cursor is; types filter", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("feed-order")
      const other = yield* db.organization("feed-order-other")
      const guestLists = yield* GuestLists
      const ada = yield* createPerson(caller, "ada@feed.test")
      yield* createPerson(other.caller, "ada@feed.test")
      yield* renamePerson(caller, ada, "Augusta")
      const gala = yield* (yield* Events).create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00" }))
      yield* guestLists.add(caller, gala.eventId, [Schema.decodeUnknownSync(NewGuest)({ personId: ada })])
      yield* guestLists.update(caller, gala.eventId, [Schema.decodeUnknownSync(GuestUpdate)({ personId: ada, rsvpStatus: "Accepted" })])
      // a refused write records nothing
      expect((yield* Effect.either(createPerson(caller, "ADA@feed.test")))._tag).toBe("Left")
      const { cursor, read } = yield* readAll(caller, undefined, 2)
      expect(summary(read)).toEqual([
        `person created ${ada}`,
        `person updated ${ada}`,
        `event created ${gala.eventId}`,
        `guest created ${ada} @${gala.eventId}`,
        `guest updated ${ada} @${gala.eventId}`
      ])
      // the other organization's feed holds its own change only
      expect((yield* readAll(other.caller, undefined, 10)).read).toHaveLength(1)
      // from the end: nothing until the next write, then that write
      expect((yield* readAll(caller, cursor, 10)).read).toEqual([])
      yield* renamePerson(caller, ada, "Ada")
      expect(summary((yield* readAll(caller, cursor, 10)).read)).toEqual([`person updated ${ada}`])
      // each change's own cursor continues after it
      expect(summary((yield* readAll(caller, read[2]!.cursor, 10)).read).slice(0, 2)).toEqual([`guest created ${ada} @${gala.eventId}`, `guest updated ${ada} @${gala.eventId}`])
      expect(summary((yield* readAll(caller, undefined, 1, ["guest"])).read)).toEqual([`guest created ${ada} @${gala.eventId}`, `guest updated ${ada} @${gala.eventId}`])
      // a bulk import records one change per row, in the file's order
      const imported = yield* (yield* Persons).importCsv(caller, "email,firstName,lastName\nb1@feed.test,B,One\nb2@feed.test,B,Two\nb3@feed.test,B,Three", {})
      expect(imported.created).toBe(3)
      const after = (yield* readAll(caller, cursor, 10)).read.slice(1)
      expect(after.map((c) => `${c.type} ${c.action}`)).toEqual(["person created", "person created", "person created"])
      const persons = yield* (yield* Persons).list(caller, { ids: after.map((c) => c.id).join(",") })
      expect(persons.persons.map((p) => p.email).sort()).toEqual(["b1@feed.test", "b2@feed.test", "b3@feed.test"])
    }))

  it.effect("a reader paging while four writers write sees every change exactly once, each writer's in its order", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("feed-concurrent")
      const writers = 4
      const rounds = 25
      let writing = writers
      // each writer creates persons and renames them; its own changes come in the order it made them
      const writer = (w: number) =>
        Effect.gen(function*() {
          const made: Array<string> = []
          for (let i = 0; i < rounds; i++) {
            const id = yield* createPerson(caller, `w${w}.${i}@feed.test`)
            made.push(`person created ${id}`)
            yield* renamePerson(caller, id, `W${w}-${i}`)
            made.push(`person updated ${id}`)
          }
          writing--
          return made
        })
      const reader = Effect.gen(function*() {
        const changes = yield* Changes
        const seen: Array<Change> = []
        let cursor: string | undefined
        for (;;) {
          const done = writing === 0
          const page = yield* changes.feed(caller, { after: cursor, limit: 7 })
          seen.push(...page.changes)
          cursor = page.nextCursor
          if (done && !page.hasMore) return seen
          if (!page.hasMore) yield* Effect.yieldNow()
        }
      })
      const reading = yield* Effect.fork(reader)
      const made = yield* Effect.forEach(Array.from({ length: writers }, (_, w) => w), writer, { concurrency: "unbounded" })
      const seen = yield* Fiber.join(reading)
      const lines = summary(seen)
      expect(lines).toHaveLength(writers * rounds * 2)
      expect(new Set(seen.map((c) => c.cursor)).size).toBe(seen.length)
      for (const mine of made) expect(lines.filter((line) => mine.includes(line))).toEqual(mine)
      // and what a reader from the start reads afterwards is the same, in the same order
      expect(summary((yield* readAll(caller, undefined, 100)).read)).toEqual(lines)
    }))

  it.effect("retention deletes the oldest changes; a cursor before them is told to start again, one after them goes on", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("feed-retention")
      const changes = yield* Changes
      yield* createPerson(caller, "old1@feed.test")
      const { cursor: early } = yield* readAll(caller, undefined, 10)
      yield* createPerson(caller, "old2@feed.test")
      const { cursor: late } = yield* readAll(caller, undefined, 10)
      // changes are timed by the clock at whole milliseconds: what retention deletes is strictly older
      yield* Effect.sleep("5 millis")
      expect(yield* changes.prune(Duration.zero)).toBeGreaterThanOrEqual(2)
      const fresh = yield* createPerson(caller, "new@feed.test")
      expect((yield* Effect.flip(changes.feed(caller, { after: early })))._tag).toBe("CursorExpired")
      expect(summary((yield* readAll(caller, late, 10)).read)).toEqual([`person created ${fresh}`])
      expect(summary((yield* readAll(caller, undefined, 10)).read)).toEqual([`person created ${fresh}`])
      const marks = yield* db.query<{ through_seq: number }>("SELECT through_seq FROM change_feed_pruned")
      expect(marks.length).toBeGreaterThan(0)
      expect(typeof marks[0]!.through_seq).toBe("number")
    }))
})
