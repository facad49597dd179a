/**
 * What the API stores comes back exactly, and nothing it cannot keep is stored: URLs are absolute
 * http(s) only, custom field and custom column names may be any text (`__proto__` included), and
 * numbers keep every digit or are refused.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createEvent, createPerson, expectError, expectStatus } from "../support/Fixtures.js"
import { withDatabase } from "../support/Engine.js"
import { receiver } from "../support/Receiver.js"
import { TestServer, testServer } from "../support/TestServer.js"

const hostileUrls = [
  "javascript:alert(document.domain)",
  "JavaScript:alert(1)",
  " javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "ftp://files.example.org/a",
  "/relative/path",
  "//evil.example.org/x",
  "https://",
  "http://exa mple.org/"
]

layer(testServer(), { excludeTestServices: true })("stored values", (it) => {
  describe("URLs", () => {
    it.effect("every stored URL must be absolute http(s): events, persons and webhooks refuse the rest", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const event = yield* createEvent(server)
        const person = yield* createPerson(server)
        for (const url of hostileUrls) {
          for (const body of [
            { virtualLocations: [{ url, sourceType: "zoom" }] },
            { images: [{ type: "headerImg", url }] },
            { featuredImage: url },
            { locationWebsite: url }
          ]) {
            const reply = expectError(yield* server.request("PATCH", `/event/${event.eventId}`, { body }), 400, "invalid_request")
            expect(reply.body.issues[0].path).toMatch(/^(virtualLocations\.0\.url|images\.0\.url|featuredImage|locationWebsite)$/)
            expectError(yield* server.request("POST", "/event", { body: { name: "X", primaryDate: "2031-01-01T10:00:00Z", ...body } }), 400, "invalid_request")
          }
          expectError(yield* server.request("PUT", `/person/${person}`, { body: { personId: person, profilePicture: url } }), 400, "invalid_request")
          expectError(yield* server.request("POST", "/webhook", { body: { webhook: url, type: "Event" } }), 400, "invalid_request")
        }
        // nothing was stored
        const after = expectStatus(yield* server.request("GET", `/event/${event.eventId}`), 200).body
        expect(after.virtualLocations).toEqual([])
        expect(after.images).toEqual([])
        expect(after.featuredImage).toBeNull()
        // http(s) and a virtual location without a URL (a dial-in) are fine
        const ok = expectStatus(yield* server.request("PATCH", `/event/${event.eventId}`, {
          body: { virtualLocations: [{ url: "https://meet.example.org/a?b=c", sourceType: "zoom" }, { url: null, phoneNumber: "+1 555 0100" }] }
        }), 200).body
        expect(ok.virtualLocations.map((v: { url: string | null }) => v.url)).toEqual(["https://meet.example.org/a?b=c", null])
      }))
  })

  describe("custom fields and custom columns", () => {
    it.effect("a custom field named __proto__ or constructor keeps its value in both forms and in every response", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("keyed-fields")
        const as = { token: org.token }
        for (const fieldName of ["__proto__", "constructor", "toString"]) {
          expectStatus(yield* server.request("POST", "/custom-field", { ...as, body: { fieldName, fieldType: "text" } }), 200)
        }
        const id = yield* createPerson(server, {}, org.token)
        // the legacy object form, as the raw JSON text a client sends (a JS object literal could not hold __proto__)
        expectStatus(yield* server.request("PUT", `/person/${id}`, {
          ...as,
          rawBody: `{"personId":"${id}","customFields":{"__proto__":"proto value","constructor":"ctor value"}}`,
          headers: { "content-type": "application/json" }
        }), 200)
        expectStatus(yield* server.request("PUT", `/person/${id}`, {
          ...as,
          body: { personId: id, customFields: [{ fieldName: "toString", value: "ts value" }] }
        }), 200)
        const got = expectStatus(yield* server.request("GET", `/person/${id}`, as), 200)
        const expected = JSON.parse(`{"__proto__":"proto value","constructor":"ctor value","toString":"ts value"}`)
        expect(Object.entries(got.body.customFields)).toEqual(Object.entries(expected))
        expect(got.text).toContain(`"__proto__":"proto value"`)
        expect(got.body.customFieldsDetailed.map((d: { fieldName: string; value: string }) => [d.fieldName, d.value])).toEqual([
          ["__proto__", "proto value"],
          ["constructor", "ctor value"],
          ["toString", "ts value"]
        ])
        const listed = expectStatus(yield* server.request("GET", "/person", as), 200)
        expect(listed.text).toContain(`"__proto__":"proto value"`)
        const searched = expectStatus(yield* server.request("GET", `/person/search?query=Lovelace`, as), 200)
        expect(searched.text).toContain(`"__proto__":"proto value"`)
      }))

    it.scoped("a custom column titled __proto__ keeps its values through updates, reads and webhooks", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const hooks = yield* receiver
        const { token } = yield* server.organization("keyed-columns")
        expectStatus(yield* server.request("POST", "/webhook", { token, body: { webhook: hooks.url(), type: "GuestList" } }), 200)
        const event = yield* createEvent(server, { customColumns: ["__proto__", "constructor", "Table"] }, token)
        const person = yield* createPerson(server, {}, token)
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: person }] } }), 200)
        yield* hooks.next()
        const put = expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
          token,
          rawBody: `{"guests":[{"personId":"${person}","customColumns":{"__proto__":"front row","constructor":7,"Table":true}}]}`,
          headers: { "content-type": "application/json" }
        }), 200)
        expect(put.text).toContain(`"customColumns":{"__proto__":"front row","constructor":7,"Table":true}`)
        expect((yield* hooks.next()).body).toContain(`"customColumns":{"__proto__":"front row","constructor":7,"Table":true}`)
        // a second update merges: it changes one column and keeps the others
        expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
          token,
          rawBody: `{"guests":[{"personId":"${person}","customColumns":{"Table":false}}]}`,
          headers: { "content-type": "application/json" }
        }), 200)
        const list = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist`, { token }), 200)
        expect(list.text).toContain(`"customColumns":{"__proto__":"front row","constructor":7,"Table":false}`)
        // clearing __proto__ with null removes that column only
        expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
          token,
          rawBody: `{"guests":[{"personId":"${person}","customColumns":{"__proto__":null}}]}`,
          headers: { "content-type": "application/json" }
        }), 200)
        const after = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist`, { token }), 200)
        expect(after.text).toContain(`"customColumns":{"constructor":7,"Table":false}`)
      }))

    it.effect("numbers keep every digit, or are refused when JSON cannot carry them exactly", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("exact-numbers")
        const as = { token: org.token }
        const field = expectStatus(yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: "Account", fieldType: "number" } }), 200).body
        const id = yield* createPerson(server, {}, org.token)
        // as a string: every digit kept, and the same value accepted again
        expectStatus(yield* server.request("PUT", `/person/${id}`, { ...as, body: { personId: id, customFields: [{ fieldId: field.fieldId, value: "12345678901234567890123" }] } }), 200)
        const person = expectStatus(yield* server.request("GET", `/person/${id}`, as), 200).body
        expect(person.customFields.Account).toBe("12345678901234567890123")
        expectStatus(yield* server.request("PUT", `/person/${id}`, { ...as, body: { personId: id, customFields: person.customFields } }), 200)
        expect(expectStatus(yield* server.request("GET", `/person/${id}`, as), 200).body.customFields.Account).toBe("12345678901234567890123")
        // decimals and leading zeros as written
        for (const value of ["0.10", "-3.1415926535897932384626", "007"]) {
          expectStatus(yield* server.request("PUT", `/person/${id}`, { ...as, body: { personId: id, customFields: [{ fieldId: field.fieldId, value }] } }), 200)
          expect(expectStatus(yield* server.request("GET", `/person/${id}`, as), 200).body.customFields.Account).toBe(value)
        }
        // as a JSON number: exact ones are kept, others refused with 400 and nothing saved
        expectStatus(yield* server.request("PUT", `/person/${id}`, { ...as, body: { personId: id, customFields: [{ fieldId: field.fieldId, value: 42.5 }] } }), 200)
        expect(expectStatus(yield* server.request("GET", `/person/${id}`, as), 200).body.customFields.Account).toBe("42.5")
        const refused = expectError(yield* server.request("PUT", `/person/${id}`, {
          ...as,
          rawBody: `{"personId":"${id}","customFields":[{"fieldId":"${field.fieldId}","value":12345678901234567890123}]}`,
          headers: { "content-type": "application/json" }
        }), 400, "invalid_request")
        expect(refused.body.issues[0].path).toBe("customFields.0.value")
        expect(expectStatus(yield* server.request("GET", `/person/${id}`, as), 200).body.customFields.Account).toBe("42.5")
        // custom columns likewise
        const event = yield* createEvent(server, { customColumns: ["Seat"] })
        const guest = yield* createPerson(server)
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId: guest }] } }), 200)
        expectError(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
          rawBody: `{"guests":[{"personId":"${guest}","customColumns":{"Seat":12345678901234567890123}}]}`,
          headers: { "content-type": "application/json" }
        }), 400, "invalid_request")
        const seat = expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
          body: { guests: [{ personId: guest, customColumns: { Seat: "12345678901234567890123" } }] }
        }), 200).body
        expect(seat.guests[0].customColumns).toEqual({ Seat: "12345678901234567890123" })
      }))
  })

  describe("JSON columns", () => {
    it.effect("a stored JSON value of another shape than the service writes fails the answer (a logged 500), never reaches it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("json-columns")
        const as = { token: org.token }
        const field = expectStatus(yield* server.request("POST", "/custom-field", {
          ...as,
          body: { fieldName: "Interests", fieldType: "multiselect", options: [{ value: "Music", color: "#1e90ff" }] }
        }), 200).body
        const person = yield* createPerson(server, {}, org.token)
        expectStatus(yield* server.request("PUT", `/person/${person}`, {
          ...as,
          body: { personId: person, customFieldMultiselect: [{ fieldId: field.fieldId, value: "Music" }] }
        }), 200)
        const event = yield* createEvent(server, { rsvpQuestions: [{ title: "Song?" }], customColumns: ["Table"] }, org.token)
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { ...as, body: { guests: [{ personId: person }] } }), 200)
        expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, {
          ...as,
          body: { guests: [{ personId: person, dietaryRestrictions: ["vegan"], customColumns: { Table: 3 } }] }
        }), 200)
        const guest = `/event/${event.eventId}/guestlist/search?personIds=${person}`
        expect(expectStatus(yield* server.request("GET", `/person/${person}`, as), 200).body.customFields.Interests).toEqual(["Music"])
        expect(expectStatus(yield* server.request("GET", guest, as), 200).body.guests[0].dietaryRestrictions).toEqual(["vegan"])

        const corrupt = (text: string, params: ReadonlyArray<unknown>) =>
          Effect.promise(() => withDatabase(server.databaseEnv, (query) => query(text, params)))
        const fails = (path: string) =>
          Effect.map(server.request("GET", path, as), (reply) => {
            expectError(reply, 500, "internal")
            expect(reply.text).not.toContain("not a list")
          })
        const personRow = "(SELECT id FROM persons WHERE public_id = ?)"
        // a multiselect value of numbers, not option ids: before, an empty selection was shown
        yield* corrupt(`UPDATE person_field_values SET value = '[1, 2]' WHERE person_id = ${personRow}`, [person])
        yield* fails(`/person/${person}`)
        // dietary restrictions as an object, not a list of texts: before, the object was answered
        yield* corrupt(`UPDATE event_guests SET dietary_restrictions = '{"not":"a list"}' WHERE person_id = ${personRow}`, [person])
        yield* fails(guest)
        yield* corrupt(`UPDATE event_guests SET dietary_restrictions = NULL, custom_columns = '{"Table":{"not":"a list"}}' WHERE person_id = ${personRow}`, [person])
        yield* fails(guest)
        // an RSVP question without a text title
        yield* corrupt("UPDATE events SET rsvp_questions = '[{\"title\":5,\"description\":null}]' WHERE public_id = ?", [event.eventId])
        yield* fails(`/event/${event.eventId}`)
      }))
  })

  describe("limits", () => {
    it.effect("custom fields, their options and values, custom columns and webhooks are bounded, with the limit said", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("limits")
        const as = { token: org.token }
        const option = (i: number) => ({ value: `Option ${i}`, color: "#1e90ff" })
        const field = (fieldName: string, options: number) =>
          server.request("POST", "/custom-field", {
            ...as,
            body: { fieldName, fieldType: "multiselect", options: Array.from({ length: options }, (_, i) => option(i)) }
          })
        expectError(yield* field("Too many", 251), 400, "invalid_request")
        const wide = expectStatus(yield* field("Countries", 250), 200).body
        for (let i = 1; i < 200; i++) {
          expectStatus(yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: `Text ${i}`, fieldType: "text" } }), 200)
        }
        const full = expectError(yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: "One more", fieldType: "text" } }), 409, "conflict")
        expect(full.body.message).toBe("An organization has at most 200 custom fields")

        // values: text at most 2,000 characters; a page of persons carries the chosen options only
        const person = yield* createPerson(server, {}, org.token)
        const long = yield* server.request("PUT", `/person/${person}`, { ...as, body: { personId: person, customFields: [{ fieldName: "Text 1", value: "x".repeat(2_001) }] } })
        expectError(long, 400, "invalid_request")
        expectStatus(yield* server.request("PUT", `/person/${person}`, {
          ...as,
          body: {
            personId: person,
            customFields: [{ fieldName: "Text 1", value: "x".repeat(2_000) }],
            customFieldMultiselect: [{ fieldId: wide.fieldId, value: "Option 7" }, { fieldId: wide.fieldId, value: "Option 200" }]
          }
        }), 200)
        const listed = expectStatus(yield* server.request("GET", "/person?limit=100", as), 200).body.persons.find((p: { personId: string }) => p.personId === person)
        expect(listed.customFields).toMatchObject({ "Text 1": "x".repeat(2_000), Countries: ["Option 7", "Option 200"] })
        const one = expectStatus(yield* server.request("GET", `/person/${person}`, as), 200).body
        expect(one.customFields.Countries).toEqual(["Option 7", "Option 200"])
        expect(one.customFieldsDetailed.find((f: { fieldName: string }) => f.fieldName === "Countries").options).toHaveLength(250)

        // a guest's custom column: text at most 2,000 characters
        const event = yield* createEvent(server, { customColumns: ["Table"] }, org.token)
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { ...as, body: { guests: [{ personId: person }] } }), 200)
        const column = (value: string) =>
          server.request("PUT", `/event/${event.eventId}/guestlist`, { ...as, body: { guests: [{ personId: person, customColumns: { Table: value } }] } })
        expectError(yield* column("t".repeat(2_001)), 400, "invalid_request")
        expectStatus(yield* column("t".repeat(2_000)), 200)

        // and from files: a row error naming the column
        const importing = (path: string, csv: string) =>
          Effect.promise(() =>
            fetch(`${server.url}${path}?dryRun=true`, { method: "POST", headers: { "x-api-key": org.token, "content-type": "text/csv" }, body: csv })
              .then(async (r) => ({ status: r.status, body: await r.json() }))
          )
        const contacts = yield* importing("/person/import", `email,firstName,lastName,Text 2\nlong@acme.test,Lo,Ng,${"y".repeat(2_001)}\n`)
        expect(contacts.body.errors).toEqual([{ row: 1, column: "Text 2", message: "must be at most 2000 characters" }])
        const guests = yield* importing(`/event/${event.eventId}/guestlist/import`, `email,firstName,lastName,Table\nlong@acme.test,Lo,Ng,${"y".repeat(2_001)}\n`)
        expect(guests.body.errors).toEqual([{ row: 1, column: "Table", message: "must be at most 2000 characters" }])

        // webhooks: at most 25 of one type
        for (let i = 0; i < 25; i++) {
          expectStatus(yield* server.request("POST", "/webhook", { ...as, body: { webhook: `https://hooks.example.com/${i}`, type: "Event" } }), 200)
        }
        // registering one of them again is the same registration, not a new one
        expectStatus(yield* server.request("POST", "/webhook", { ...as, body: { webhook: "https://hooks.example.com/3", type: "Event" } }), 200)
        const more = expectError(yield* server.request("POST", "/webhook", { ...as, body: { webhook: "https://hooks.example.com/25", type: "Event" } }), 409, "conflict")
        expect(more.body.message).toBe("An organization has at most 25 webhooks of one type: delete one first")
        expectStatus(yield* server.request("POST", "/webhook", { ...as, body: { webhook: "https://hooks.example.com/25", type: "GuestList" } }), 200)
        expectStatus(yield* server.request("DELETE", "/webhook", { ...as, body: { webhook: "https://hooks.example.com/0", type: "Event" } }), 200)
        expectStatus(yield* server.request("POST", "/webhook", { ...as, body: { webhook: "https://hooks.example.com/25", type: "Event" } }), 200)
      }), 60_000)
  })
})
