/**
 * Guest lists over the database, on the suite's engine (the API's proof: test/api/guestlists.test.ts):
 * batches that add (existing persons by id, by email case-insensitively, new ones), update (every
 * status given appends to the history, in order) and remove guests; the list as the database writes
 * its JSON, read back field for field; counts by status; search and pages with their totals; and an
 * event's capacity, which puts an RSVP answer past it on the waitlist.
 */
import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, Schema, Stream } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { GuestUpdate, NewGuest } from "../../src/Guests/Domain.js"
import { GuestLists } from "../../src/Guests/GuestLists.js"
import { CreatePerson } from "../../src/Persons/Domain.js"
import { Persons } from "../../src/Persons/Persons.js"
import { Rsvp } from "../../src/Rsvp/Rsvp.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const event = (caller: Caller, fields: Record<string, unknown> = {}) =>
  Effect.flatMap(Events, (events) =>
    events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00", ...fields })))

const person = (caller: Caller, fields: Record<string, unknown>) =>
  Effect.map(
    Effect.flatMap(Persons, (persons) => persons.create(caller, Schema.decodeUnknownSync(CreatePerson)({ firstName: "Ada", lastName: "Lovelace", ...fields }))),
    (created) => created.personId
  )

const add = (caller: Caller, eventId: string, guests: ReadonlyArray<Record<string, unknown>>) =>
  Effect.flatMap(GuestLists, (lists) => lists.add(caller, eventId, guests.map((g) => Schema.decodeUnknownSync(NewGuest)(g))))

const update = (caller: Caller, eventId: string, guests: ReadonlyArray<Record<string, unknown>>) =>
  Effect.flatMap(GuestLists, (lists) => lists.update(caller, eventId, guests.map((g) => Schema.decodeUnknownSync(GuestUpdate)(g))))

/** The whole list as the API streams it: the JSON the database wrote, parsed. */
const listOf = (caller: Caller, eventId: string) =>
  Effect.scoped(Effect.gen(function*() {
    const stream = yield* (yield* GuestLists).list(caller, eventId)
    const texts = Chunk.toReadonlyArray(yield* Stream.runCollect(stream))
    return texts.flat().map((text) => JSON.parse(String(text))) as Array<Record<string, any>>
  }))

layer(testDatabase(), { excludeTestServices: true })("guest lists over the database", (it) => {
  it.effect("batches add, update and remove guests; the list's JSON reads back every field and the history in order", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("guests-a")
      const lists = yield* GuestLists
      const gala = yield* event(caller, { customColumns: ["Table", "Notes"] })
      const grace = yield* person(caller, { firstName: "Grace", lastName: "Hopper", email: "Grace.Hopper@Example.org", company: "Navy" })
      const existing = yield* person(caller, { firstName: "Alan", lastName: "Turing", email: "alan@example.org" })

      yield* add(caller, gala.eventId, [
        { personId: existing },
        // matched by email, whatever its case: the person's company is not overwritten
        { firstName: "G", lastName: "H", email: "grace.hopper@example.ORG", company: "Other" },
        { firstName: "Zoë \"Z\"", lastName: "李小龍 😀", email: "zoe@example.org", phoneNumber: "+1 555 0100" }
      ])
      let list = yield* listOf(caller, gala.eventId)
      expect(list.map((g) => g["email"])).toEqual(["alan@example.org", "Grace.Hopper@Example.org", "zoe@example.org"])
      expect(list.map((g) => g["rsvpStatus"])).toEqual(["Invited", "Invited", "Invited"])
      const zoe = list[2]!
      expect(zoe).toMatchObject({ firstName: "Zoë \"Z\"", lastName: "李小龍 😀", name: "Zoë \"Z\" 李小龍 😀", phone: "+1 555 0100" })
      expect(list[1]!["personId"]).toBe(grace)
      expect(zoe["rsvpStatusHistory"]).toEqual([expect.objectContaining({ status: "Invited", actorType: "apiKey", actorId: caller.actor.id })])

      // every status given is a history entry, the same one twice included, oldest first
      yield* update(caller, gala.eventId, [{ personId: grace, rsvpStatus: "Maybe" }])
      yield* update(caller, gala.eventId, [
        { personId: grace, rsvpStatus: "Accepted", attendanceStatus: "Attended", dietaryRestrictions: ["vegan", "no nuts; really"] },
        { personId: zoe["personId"], rsvpStatus: "Declined", rsvpNote: "line one\nline \"two\" \\ </script>", customColumns: { Table: 12345678901, Notes: "Zoë" } }
      ])
      yield* update(caller, gala.eventId, [{ personId: grace, rsvpStatus: "Accepted" }])
      list = yield* listOf(caller, gala.eventId)
      const graceGuest = list.find((g) => g["personId"] === grace)!
      expect(graceGuest["rsvpStatusHistory"].map((h: { status: string }) => h.status)).toEqual(["Invited", "Maybe", "Accepted", "Accepted"])
      const times = graceGuest["rsvpStatusHistory"].map((h: { createdAt: string }) => h.createdAt)
      expect([...times].sort()).toEqual(times)
      expect(graceGuest).toMatchObject({ attendanceStatus: "Attended", dietaryRestrictions: ["vegan", "no nuts; really"] })
      const zoeAfter = list.find((g) => g["personId"] === zoe["personId"])!
      expect(zoeAfter).toMatchObject({ rsvpStatus: "Declined", rsvpNote: "line one\nline \"two\" \\ </script>", customColumns: { Table: 12345678901, Notes: "Zoë" } })
      // the list the database writes is the list the renderer gives, guest by guest
      for (const guest of list) {
        const one = yield* lists.guest(caller, gala.eventId, guest["personId"])
        expect(guest).toEqual(JSON.parse(JSON.stringify(one.guest)))
      }

      // counts by status and attendance
      const counts = yield* lists.counts(caller, gala.eventId)
      expect(counts.byStatus).toEqual({ Invited: 1, Accepted: 1, Declined: 1, Maybe: 0, Waitlisted: 0, Pending: 0 })
      expect(counts.attended).toBe(1)
      expect(counts.total).toBe(3)

      // removed guests leave the list and its counts; re-added, they are Invited again
      const notOnTheList = yield* person(caller, { email: "not.on.the.list@example.org" })
      yield* lists.remove(caller, gala.eventId, [{ personId: zoe["personId"] }, { personId: notOnTheList }])
      expect((yield* listOf(caller, gala.eventId)).map((g) => g["personId"])).toEqual([existing, grace])
      expect((yield* lists.counts(caller, gala.eventId)).total).toBe(2)
      yield* add(caller, gala.eventId, [{ personId: zoe["personId"] }])
      const back = (yield* listOf(caller, gala.eventId)).find((g) => g["personId"] === zoe["personId"])!
      expect(back["rsvpStatus"]).toBe("Invited")

      // the person's events name this one with its status
      const detail = yield* (yield* Persons).get(caller, grace)
      expect(detail.company).toBe("Navy")
      expect(detail.eventHistory).toEqual([expect.objectContaining({ eventId: gala.eventId, rsvpStatus: "Accepted" })])
    }))

  it.effect("searches and pages a list: by ids, email or name, status and attendance, with limit, skip and total", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("guests-b")
      const lists = yield* GuestLists
      const gala = yield* event(caller)
      const guests = Array.from({ length: 30 }, (_, i) => ({
        firstName: i % 3 === 0 ? `Mary-${i}` : `Guest${String(i).padStart(2, "0")}`,
        lastName: i % 2 === 0 ? "O'Brien" : "Smith_%",
        email: `guest${i}@Example.org`
      }))
      yield* add(caller, gala.eventId, guests)
      const all = yield* listOf(caller, gala.eventId)
      yield* update(caller, gala.eventId, all.slice(0, 7).map((g) => ({ personId: g["personId"], rsvpStatus: "Accepted" })))

      const byEmail = yield* lists.search(caller, gala.eventId, { email: "GUEST7@example.org" })
      expect(byEmail.guests.map((g) => g.email)).toEqual(["guest7@Example.org"])
      const byName = yield* lists.search(caller, gala.eventId, { name: "mary", limit: 4, skip: 2 })
      expect(byName.total).toBe(10)
      expect(byName.guests.map((g) => g.firstName)).toEqual(["Mary-6", "Mary-9", "Mary-12", "Mary-15"])
      // LIKE's metacharacters are text
      expect((yield* lists.search(caller, gala.eventId, { name: "Smith_%" })).total).toBe(15)
      expect((yield* lists.search(caller, gala.eventId, { name: "Smith__" })).total).toBe(0)
      const byIds = yield* lists.search(caller, gala.eventId, { personIds: `${all[3]!["personId"]},${all[1]!["personId"]},unknown` })
      expect(byIds.guests.map((g) => g.personId).sort()).toEqual([all[1]!["personId"], all[3]!["personId"]].sort())

      const accepted = yield* lists.page(caller, gala.eventId, { rsvpStatus: "Accepted", order: "added", limit: 5, skip: 5 })
      expect(accepted.total).toBe(7)
      expect(accepted.guests.map((g) => g.personId)).toEqual(all.slice(5, 7).map((g) => g["personId"]))
      const named = yield* lists.page(caller, gala.eventId, { term: "o'brien", order: "name", limit: 100, skip: 0 })
      expect(named.total).toBe(15)
      const names = named.guests.map((g) => `${g.firstName} ${g.lastName}`)
      expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" })))
      const notIn = yield* lists.page(caller, gala.eventId, { attendance: "none", order: "added", limit: 100, skip: 28 })
      expect(notIn.total).toBe(30)
      expect(notIn.guests).toHaveLength(2)
    }))

  it.effect("an RSVP answer past the event's capacity puts the guest on the waitlist", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("guests-c")
      const lists = yield* GuestLists
      const rsvp = yield* Rsvp
      const small = yield* event(caller, { primarySlug: "small-dinner", capacityEnabled: true, capacity: 2 })
      yield* add(caller, small.eventId, [1, 2, 3].map((i) => ({ firstName: `G${i}`, lastName: "Guest", email: `g${i}@example.org` })))
      // RSVP links for everyone (the search that makes them)
      const linked = yield* lists.search(caller, small.eventId, { name: "Guest", generateRsvpLinks: true })
      const tokens = linked.guests.map((g) => new URL(g.rsvpLink!).searchParams.get("invite")!)
      expect(tokens).toHaveLength(3)
      const answer = (token: string) =>
        rsvp.answer("small-dinner", token, { rsvpStatus: "Accepted", answers: [], dietaryRestrictions: [], note: "", smsConsent: undefined })
      const answers = []
      for (const token of tokens) answers.push(yield* answer(token))
      expect(answers.map((a) => a._tag === "Some" ? a.value : undefined)).toEqual([
        { rsvpStatus: "Accepted", waitlisted: false },
        { rsvpStatus: "Accepted", waitlisted: false },
        { rsvpStatus: "Waitlisted", waitlisted: true }
      ])
      // answering again does not take a second place
      expect(Option_value(yield* answer(tokens[0]!))).toEqual({ rsvpStatus: "Accepted", waitlisted: false })
      const counts = yield* lists.counts(caller, small.eventId)
      expect(counts.byStatus).toMatchObject({ Accepted: 2, Waitlisted: 1 })
    }))
})

const Option_value = <A>(option: { readonly _tag: "Some"; readonly value: A } | { readonly _tag: "None" }) =>
  option._tag === "Some" ? option.value : undefined
