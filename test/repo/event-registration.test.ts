/**
 * The event's registration, reminder, reply-to and end fields over the database (CONTRACT §6), on
 * the suite's engine: the columns' defaults, every value stored and read back as given, a partial
 * update that names exactly the fields whose value changed, and the end kept after the start
 * against the stored dates. The API's proof: test/api/event-registration-fields.test.ts.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CreateEvent, UpdateEvent } from "../../src/Events/Domain.js"
import { Events } from "../../src/Events/Events.js"
import { EventsRepo } from "../../src/Events/EventsRepo.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const create = (caller: Caller, fields: Record<string, unknown>) =>
  Effect.flatMap(Events, (events) => events.create(caller, Schema.decodeUnknownSync(CreateEvent)({ name: "Event", primaryDate: "2031-06-01T20:00:00+02:00", ...fields })))

const update = (caller: Caller, id: string, fields: Record<string, unknown>) =>
  Effect.flatMap(Events, (events) => events.update(caller, id, Schema.decodeUnknownSync(UpdateEvent)(fields)))

layer(EventsRepo.Default.pipe(Layer.provideMerge(testDatabase())), { excludeTestServices: true })("event registration fields over the database", (it) => {
  it.effect("an event inserted without them takes the columns' defaults", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("registration-defaults")
      const event = yield* create(caller, {})
      const [row] = yield* db.query<Record<string, unknown>>(
        "SELECT registration_open, registration_closes_at, registration_approval, reminders, reply_to, end_date FROM events WHERE public_id = ?",
        [event.eventId]
      )
      expect({ ...row, registration_open: Number(row!["registration_open"]), registration_approval: Number(row!["registration_approval"]) }).toEqual({
        registration_open: 1,
        registration_closes_at: null,
        registration_approval: 0,
        reminders: "[]",
        reply_to: null,
        end_date: null
      })
      expect(event).toMatchObject({ registrationOpen: true, registrationClosesAt: null, registrationApproval: false, reminders: [], replyTo: null, endDate: null })
    }))

  it.effect("stores every value as given; a partial update names what changed; the end stays after the start", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("registration-fields")
      const events = yield* Events
      const fields = {
        registrationOpen: false,
        registrationClosesAt: "2031-05-25T23:59:00.5+02:00",
        registrationApproval: true,
        reminders: ["P1W", "PT90M", "P2DT3H"],
        replyTo: "Gala.Team@example.org",
        endDate: "2031-06-02T01:00:00-00:00"
      }
      const event = yield* create(caller, fields)
      expect(event).toMatchObject(fields)
      expect(yield* events.get(caller, event.eventId)).toEqual(event)

      const same = yield* update(caller, event.eventId, { ...fields })
      expect(same.updatedFields).toEqual([])
      const changed = yield* update(caller, event.eventId, { ...fields, registrationApproval: false, reminders: ["P1W"], endDate: null })
      expect(changed.updatedFields).toEqual(["registrationApproval", "reminders", "endDate"])
      expect(yield* events.get(caller, event.eventId)).toEqual({ ...event, registrationApproval: false, reminders: ["P1W"], endDate: null })

      yield* update(caller, event.eventId, { endDate: "2031-06-01T21:00:00+02:00" })
      const late = yield* Effect.flip(update(caller, event.eventId, { primaryDate: "2031-06-01T21:00:00+02:00" }))
      expect(late._tag === "InvalidRequest" && late.issues?.map((i) => i.path)).toEqual(["primaryDate"])
      const early = yield* Effect.flip(update(caller, event.eventId, { endDate: "2031-06-01T17:59:59Z" }))
      expect(early._tag === "InvalidRequest" && early.issues?.map((i) => i.path)).toEqual(["endDate"])
      // refused changes left the event as it was
      expect((yield* events.get(caller, event.eventId)).endDate).toBe("2031-06-01T21:00:00+02:00")
      expect((yield* events.get(caller, event.eventId)).primaryDate).toBe("2031-06-01T20:00:00+02:00")
    }))
})
