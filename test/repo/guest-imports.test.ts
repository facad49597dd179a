/**
 * A guest list's CSV imports and exports, and tickets at the door, over the database, on the
 * suite's engine (the API's proof: test/api/csv-guests.test.ts, test/api/tickets.test.ts): set-based
 * writes of a whole file (JSON rows read by the engine's own table function), statuses recorded in
 * the history, custom columns, a dry run that writes nothing, an export read back into another
 * event equal but for ids; an import racing guest-list adds of its own emails lands with each guest
 * once; a ticket issued once per guest, checked in once, and unknown to other events.
 */
import { expect, layer } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import { Chunk, Effect, Layer, Schema, Stream } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import type { GuestRowId } from "../../src/Domain/RowIds.js"
import { CreateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { GuestUpdate, NewGuest } from "../../src/Guests/Domain.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { Tickets } from "../../src/Guests/Tickets.js"
import { StatusMailerLive } from "../../src/Invitations/StatusEmails.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const event = (caller: Caller, fields: Record<string, unknown> = {}) =>
  Effect.flatMap(Events, (events) =>
    events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00", ...fields })))

const exported = (caller: Caller, eventId: string) =>
  Effect.scoped(Effect.gen(function*() {
    const csv = yield* (yield* GuestLists).exportCsv(caller, eventId)
    const text = Chunk.toReadonlyArray(yield* Stream.runCollect(csv.document)).join("")
    const records = parse(text.replace(/^\uFEFF/, ""), { relax_column_count: false }) as Array<Array<string>>
    return { text, header: records[0]!, rows: records.slice(1).map((r) => Object.fromEntries(records[0]!.map((h, i) => [h, r[i]!]))) }
  }))

const listOf = (caller: Caller, eventId: string) =>
  Effect.scoped(Effect.gen(function*() {
    const texts = yield* Stream.runCollect(yield* (yield* GuestLists).list(caller, eventId))
    return Chunk.toReadonlyArray(texts).flat().map((text) => JSON.parse(String(text)) as Record<string, any>)
  }))

layer(Tickets.Default.pipe(Layer.provide(StatusMailerLive), Layer.provideMerge(testDatabase())), { excludeTestServices: true, timeout: 120_000 })("guest imports and tickets over the database", (it) => {
  it.effect("a file is written whole: new and matched persons, statuses in the history, custom columns; exported, it imports equal", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("imports-a")
      const lists = yield* GuestLists
      const gala = yield* event(caller, { customColumns: ["Table"] })
      yield* lists.add(caller, gala.eventId, [Schema.decodeUnknownSync(NewGuest)({ firstName: "Old", lastName: "Guest", email: "old@imports.test" })])
      const csv = "\uFEFFemail;firstName;lastName;company;rsvpStatus;dietaryRestrictions;column:Table\r\n" +
        "OLD@imports.test;Old;Guest;;accepted;;1\r\n" +
        "zoe@imports.test;\"Zoë \"\"Z\"\"\";\"李小龍\n😀\";\"Acme; Inc\";Maybe;\"vegan; no nuts\";12345678901\r\n" +
        "new@imports.test;New;Person;;;;x\r\n"
      const dry = yield* lists.importCsv(caller, gala.eventId, csv, { dryRun: true })
      expect(dry).toMatchObject({ dryRun: true, rows: 3, errors: [] })
      expect(yield* listOf(caller, gala.eventId)).toHaveLength(1)
      const report = yield* lists.importCsv(caller, gala.eventId, csv, {})
      expect(report).toMatchObject({ dryRun: false, rows: 3, errors: [] })
      const list = yield* listOf(caller, gala.eventId)
      expect(list.map((g) => [g["email"], g["rsvpStatus"]])).toEqual([
        ["old@imports.test", "Accepted"],
        ["zoe@imports.test", "Maybe"],
        ["new@imports.test", "Invited"]
      ])
      expect(list[0]!["rsvpStatusHistory"].map((h: { status: string }) => h.status)).toEqual(["Invited", "Accepted"])
      expect(list[1]).toMatchObject({ firstName: "Zoë \"Z\"", lastName: "李小龍\n😀", dietaryRestrictions: ["vegan", "no nuts"], customColumns: { Table: "12345678901" } })

      const first = yield* exported(caller, gala.eventId)
      expect(first.rows.map((r) => r["email"])).toEqual(["old@imports.test", "zoe@imports.test", "new@imports.test"])
      const other = yield* db.organization("imports-b")
      const copy = yield* event(other.caller, { customColumns: ["Table"] })
      expect((yield* lists.importCsv(other.caller, copy.eventId, first.text, {})).errors).toEqual([])
      const second = yield* exported(other.caller, copy.eventId)
      const withoutIds = (rows: ReadonlyArray<Record<string, string>>) => rows.map(({ personId: _, ...rest }) => rest)
      expect(second.header).toEqual(first.header)
      expect(withoutIds(second.rows)).toEqual(withoutIds(first.rows))
    }))

  it.effect("an import racing guest-list adds of its own emails lands: each guest on the list once, added once", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("imports-race")
      const lists = yield* GuestLists
      const gala = yield* event(caller)
      const lines = ["email,firstName,lastName,rsvpStatus"]
      for (let i = 0; i < 5_000; i++) lines.push(`race.${i}@imports.test,Race,${i},Accepted`)
      const raced = Array.from({ length: 25 }, (_, i) => `race.${i * 200}@imports.test`)
      const [report] = yield* Effect.all([
        lists.importCsv(caller, gala.eventId, `${lines.join("\n")}\n`, {}),
        Effect.forEach(raced, (email, i) =>
          Effect.delay(lists.add(caller, gala.eventId, [Schema.decodeUnknownSync(NewGuest)({ firstName: "Race", lastName: `${i}`, email })]), `${i * 4} millis`), {
          concurrency: "unbounded"
        })
      ], { concurrency: "unbounded" })
      expect(report).toMatchObject({ rows: 5_000, errors: [] })
      const list = yield* listOf(caller, gala.eventId)
      expect(list).toHaveLength(5_000)
      expect(new Set(list.map((g) => g["email"])).size).toBe(5_000)
      for (const guest of list.filter((g) => raced.includes(g["email"]))) {
        expect(guest["rsvpStatus"]).toBe("Accepted")
        expect(guest["rsvpStatusHistory"].filter((h: { status: string }) => h.status === "Invited")).toHaveLength(1)
      }
    }))

  it.effect("a ticket is issued once per guest and checked in once, and another event's door does not know it", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("tickets")
      const lists = yield* GuestLists
      const tickets = yield* Tickets
      const gala = yield* event(caller, { primarySlug: "tickets-gala" })
      const elsewhere = yield* event(caller, { name: "Elsewhere" })
      const added = yield* lists.add(caller, gala.eventId, [Schema.decodeUnknownSync(NewGuest)({ firstName: "T", lastName: "Holder", email: "holder@tickets.test" })])
      const personId = added.guests[0]!.personId
      yield* lists.update(caller, gala.eventId, [Schema.decodeUnknownSync(GuestUpdate)({ personId, rsvpStatus: "Accepted" })])
      const { row } = yield* lists.guest(caller, gala.eventId, personId)
      const code = yield* tickets.issue(row.gid as GuestRowId)
      expect(yield* tickets.issue(row.gid as GuestRowId)).toBe(code)
      expect((yield* tickets.lookup(caller, elsewhere.eventId, code))._tag).toBe("OtherEvent")
      expect((yield* tickets.lookup((yield* db.organization("tickets-other")).caller, gala.eventId, code).pipe(Effect.either))._tag).toBe("Left")
      const first = yield* tickets.checkIn(caller, gala.eventId, code)
      expect(first._tag).toBe("CheckedIn")
      const again = yield* tickets.checkIn(caller, gala.eventId, code)
      expect(again._tag).toBe("AlreadyIn")
      if (again._tag === "AlreadyIn") expect(typeof again.since).toBe("string")
      expect((yield* lists.guest(caller, gala.eventId, personId)).guest.attendanceStatus).toBe("Attended")
    }))
})
