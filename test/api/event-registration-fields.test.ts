/**
 * The event's registration, reminder, reply-to and end fields (CONTRACT §6, docs/integrators.md#events)
 * through the API: their defaults, a round trip through the typed client (POST, GET, the list,
 * PATCH), the 400s of each rule (reminders' form, sign, count and duplicates; the reply-to email;
 * dates with offsets; the end strictly after the start, also when a PATCH moves either date), and
 * the `Event` notification naming exactly the new fields that changed.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createEvent, daysFromNow, expectError, expectStatus } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

const NEW_FIELDS = {
  registrationOpen: false,
  registrationClosesAt: "2031-05-25T23:59:00+02:00",
  registrationApproval: true,
  reminders: ["P1D", "PT2H", "P1W"],
  replyTo: "gala@example.org",
  endDate: "2031-06-02T01:00:00+02:00"
}

layer(testServer(), { excludeTestServices: true })("the event's registration and end fields", (it) => {
  describe("POST /event", () => {
    it.effect("gives the defaults when they are absent", () =>
      Effect.gen(function*() {
        const event = yield* createEvent(yield* TestServer)
        expect(event).toMatchObject({
          registrationOpen: true,
          registrationClosesAt: null,
          registrationApproval: false,
          reminders: [],
          replyTo: null,
          endDate: null
        })
      }))

    it.effect("stores them as given, and GET, the list and PATCH answer them", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer
        const created = yield* client.events.create({ payload: { name: "Gala", primaryDate: "2031-06-01T20:00:00+02:00", ...NEW_FIELDS } })
        expect(created).toMatchObject(NEW_FIELDS)
        expect(yield* client.events.get({ path: { id: created.eventId } })).toEqual(created)
        const listed = (yield* client.events.list({ urlParams: { showOrganizationEvents: true } })).events.find((e) => e.eventId === created.eventId)
        expect(listed).toEqual(created)
        const patched = yield* client.events.update({
          path: { id: created.eventId },
          payload: { registrationOpen: true, registrationClosesAt: null, registrationApproval: false, reminders: [], replyTo: null, endDate: null }
        })
        expect(patched).toMatchObject({ registrationOpen: true, registrationClosesAt: null, registrationApproval: false, reminders: [], replyTo: null, endDate: null })
        expect(yield* client.events.get({ path: { id: created.eventId } })).toEqual(patched)
      }))

    it.effect("refuses what breaks a rule with a 400 at the field", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const post = (body: Record<string, unknown>) =>
          server.request("POST", "/event", { body: { name: "X", primaryDate: "2031-06-01T20:00:00+02:00", ...body } })
        const refusals: ReadonlyArray<[Record<string, unknown>, string]> = [
          [{ reminders: ["1 day"] }, "reminders.0"],
          [{ reminders: ["P1M"] }, "reminders.0"],
          [{ reminders: ["P"] }, "reminders.0"],
          [{ reminders: ["PT"] }, "reminders.0"],
          [{ reminders: ["-P1D"] }, "reminders.0"],
          [{ reminders: ["P1D", "PT0S"] }, "reminders.1"],
          [{ reminders: ["P0D"] }, "reminders.0"],
          [{ reminders: ["P1D", "PT24H"] }, "reminders.1"],
          [{ reminders: ["PT2H", "PT2H"] }, "reminders.1"],
          [{ reminders: ["P1D", "PT2H", "PT1H", "PT30M"] }, "reminders"],
          [{ reminders: "P1D" }, "reminders"],
          [{ replyTo: "not an email" }, "replyTo"],
          [{ registrationOpen: "yes" }, "registrationOpen"],
          [{ registrationApproval: 1 }, "registrationApproval"],
          [{ registrationClosesAt: "2031-05-25T23:59:00" }, "registrationClosesAt"],
          [{ endDate: "2031-06-02" }, "endDate"],
          [{ endDate: "2031-06-01T20:00:00+02:00" }, "endDate"],
          [{ endDate: "2031-06-01T18:00:00Z" }, "endDate"],
          [{ endDate: "2031-06-01T17:00:00Z" }, "endDate"]
        ]
        for (const [body, path] of refusals) {
          const reply = expectError(yield* post(body), 400, "invalid_request")
          expect(reply.body.issues.map((issue: { path: string }) => issue.path), JSON.stringify(body)).toContain(path)
        }
        // the messages say what is wanted
        expect((yield* post({ reminders: ["P1D", "PT24H"] })).body.issues[0].message).toBe("is the same time as reminder 1")
        expect((yield* post({ endDate: "2031-06-01T18:00:00Z" })).body.issues[0].message).toBe("must be after primaryDate")
        // one second after the start is an end
        expect(expectStatus(yield* post({ endDate: "2031-06-01T18:00:01Z" }), 200).body.endDate).toBe("2031-06-01T18:00:01Z")
      }))
  })

  describe("PATCH /event/:id", () => {
    it.effect("refuses a start at or after the stored end, and an end at or before the stored start", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const event = yield* createEvent(server, { primaryDate: "2031-06-01T20:00:00+02:00", endDate: "2031-06-01T23:00:00+02:00" })
        const patch = (body: Record<string, unknown>) => server.request("PATCH", `/event/${event.eventId}`, { body })
        const atStart = expectError(yield* patch({ primaryDate: "2031-06-01T23:00:00+02:00" }), 400, "invalid_request")
        expect(atStart.body.issues).toEqual([{ path: "primaryDate", message: "must be before the event's endDate (2031-06-01T23:00:00+02:00)" }])
        expectError(yield* patch({ endDate: "2031-06-01T19:00:00+02:00" }), 400, "invalid_request")
        // both at once are checked together: a move of the whole event is fine, an inverted one is not
        expectStatus(yield* patch({ primaryDate: "2031-07-01T20:00:00+02:00", endDate: "2031-07-01T23:00:00+02:00" }), 200)
        expectError(yield* patch({ primaryDate: "2031-08-01T20:00:00+02:00", endDate: "2031-08-01T19:00:00+02:00" }), 400, "invalid_request")
        // without an end, any start
        expectStatus(yield* patch({ endDate: null }), 200)
        expect(expectStatus(yield* patch({ primaryDate: "2032-01-01T10:00:00Z" }), 200).body).toMatchObject({ primaryDate: "2032-01-01T10:00:00Z", endDate: null })
        expect(expectStatus(yield* server.request("GET", `/event/${event.eventId}`), 200).body.primaryDate).toBe("2032-01-01T10:00:00Z")
      }))

    it.scoped("lists in the Event notification's updatedFields the new fields that really changed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization(`fields-${process.pid}`)
        const hook = yield* receiver
        expectStatus(yield* server.request("POST", "/webhook", { token, body: { webhook: hook.url("/event"), type: "Event" } }), 200)
        const event = yield* createEvent(server, { primaryDate: daysFromNow(30), reminders: ["P1D"] }, token)
        const patch = (body: Record<string, unknown>) =>
          Effect.map(server.request("PATCH", `/event/${event.eventId}`, { token, body }), (reply) => expectStatus(reply, 200).body)
        // the defaults and the stored reminders again: no change, no notification
        yield* patch({ registrationOpen: true, registrationClosesAt: null, registrationApproval: false, reminders: ["P1D"], replyTo: null, endDate: null })
        const end = new Date(Date.parse(event.primaryDate) + 3_600_000).toISOString()
        yield* patch({ ...NEW_FIELDS, registrationClosesAt: daysFromNow(20), endDate: end, name: event.name })
        const first = yield* hook.next()
        expect([...first.json.data.updatedFields].sort()).toEqual(
          ["endDate", "registrationApproval", "registrationClosesAt", "registrationOpen", "reminders", "replyTo"]
        )
        // reminders in another order are another value; the rest unchanged
        yield* patch({ ...NEW_FIELDS, registrationClosesAt: undefined, endDate: undefined, reminders: ["PT2H", "P1D", "P1W"] })
        expect((yield* hook.next()).json.data.updatedFields).toEqual(["reminders"])
        expect(hook.received).toHaveLength(2)
      }))
  })
})
