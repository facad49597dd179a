/**
 * A guest list as CSV over a real server: `GET /event/:id/guestlist/export` and
 * `POST /event/:id/guestlist/import`. Exported files are read back with csv-parse; refusals are
 * checked to leave the database as it was (a digest of every row, read through a second
 * connection); notifications are caught by a local receiver.
 * A 50,000-row import under concurrent traffic: test/slow/csv-guests-scale.test.ts.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { GuestImport } from "../../src/Guests/Api.js"
import { databaseDigest } from "../support/Digest.js"
import { createEvent, createPerson, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { outboxSettled } from "../support/Outbox.js"
import { type Received, receiver } from "../support/Receiver.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, API_TOKEN, TestServer, testServer } from "../support/TestServer.js"
import { addGuests, exportGuestsCsv, importGuestsCsv } from "../support/Csv.js"

type Server = TestServer["Type"]

const guestList = (server: Server, eventId: string, token = API_TOKEN) =>
  Effect.map(server.request("GET", `/event/${eventId}/guestlist`, { token }), (r) => expectStatus(r, 200).body.guests as Array<any>)

const updateGuests = (server: Server, eventId: string, guests: ReadonlyArray<Record<string, unknown>>, token = API_TOKEN) =>
  Effect.map(server.request("PUT", `/event/${eventId}/guestlist`, { token, body: { guests } }), (r) => expectStatus(r, 200).body.guests as Array<any>)

/** A digest of the server's database, on the suite's engine. */
const digest = (server: Server) => Effect.promise(() => databaseDigest(server.databaseEnv))

/** A body sent without the encoder decodes with its declared schema, field for field. */
const conforms = <A, I>(schema: Schema.Schema<A, I>, body: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema, { onExcessProperty: "error" })(body)
  expect(Schema.encodeSync(schema)(decoded)).toEqual(body)
}

/** Members of the bootstrap organization ("acme"), signed in with the legacy scheme. */
const member = (server: Server, role: string) =>
  Effect.gen(function*() {
    const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
    const email = uniqueEmail(role.replace(" ", "").toLowerCase())
    const password = `pw-${email}`
    expectStatus(yield* server.request("POST", "/member", {
      token: null,
      headers: owner.headers,
      body: { email, password, firstName: "M", lastName: role, role }
    }), 200)
    return (yield* login(server, email, password, "acme")).headers
  })

/** Answers a guest's RSVP page as the guest does (its form: CSRF cookie and field, same origin). */
const answerRsvp = (server: Server, rsvpLink: string, fields: Record<string, string>) =>
  Effect.promise(async () => {
    const path = rsvpLink.replace("https://convene.test", "")
    const page = await fetch(`${server.url}${path}`)
    const html = await page.text()
    const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ")
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? ""
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin: "https://convene.test", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, ...fields }).toString()
    })
    expect(response.status, await response.text()).toBe(303)
  })

const FIXED_HEADER = [
  "personId", "firstName", "lastName", "email", "phone", "company", "position", "rsvpStatus", "attendanceStatus",
  "dietaryRestrictions", "rsvpNote"
]
const PAYMENT_HEADER = ["paymentStatus", "paymentAmount", "donationAmount"]

layer(testServer(), { excludeTestServices: true })("guest list CSV", (it) => {
  describe("GET /event/:id/guestlist/export", () => {
    it.effect("an RFC 4180 attachment: the guest's fields, answers, custom columns and, by role, payments", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const event = yield* createEvent(server, {
          name: "Export Gala",
          primarySlug: `export-gala-${process.pid}`,
          ticketingEnabled: true,
          rsvpQuestions: [{ title: "Song?" }, { title: "Plus one?" }],
          customColumns: ["Table", "VIP", "Score"]
        })
        const ada = yield* createPerson(server, {
          firstName: "Ada", lastName: "Lovelace, \"Countess\"", email: uniqueEmail("ada"), phone: "+44 20 0000", company: "=HYPERLINK(\"http://evil\",\"x\")", position: "@analyst"
        })
        const bob = yield* createPerson(server, { firstName: "Bob", lastName: "Plain", email: uniqueEmail("bob") })
        const gone = yield* createPerson(server, { firstName: "Gone", lastName: "Guest" })
        yield* addGuests(server, event.eventId, [{ personId: ada }, { personId: bob }, { personId: gone }])
        expectStatus(yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId: gone }] } }), 200)
        yield* updateGuests(server, event.eventId, [{
          personId: ada,
          attendanceStatus: "Attended",
          dietaryRestrictions: ["vegan", "no nuts"],
          rsvpNote: "line 1\nline 2, with \"quotes\"",
          customColumns: { Table: "-3", VIP: true, Score: 12.5 }
        }])
        const link = expectStatus(
          yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${ada}&generateRsvpLinks=true`),
          200
        ).body.guests[0].rsvpLink as string
        yield* answerRsvp(server, link, { rsvpStatus: "Accepted", answer0: "Bohemian Rhapsody", answer1: "" })
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/purchase`, {
          body: { items: [{ personId: ada, type: "TICKET", subtotal: 5000, tax: 500, serviceFee: 100 }, { personId: ada, type: "DONATION", subtotal: 1000, tax: 0, serviceFee: 0 }] }
        }), 200)

        const { header, reply, rows } = yield* exportGuestsCsv(server, event.eventId)
        expect(reply.headers.get("content-type")).toBe("text/csv; charset=utf-8")
        expect(reply.headers.get("content-disposition")).toMatch(
          new RegExp(`^attachment; filename="guests-export-gala-${process.pid}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`)
        )
        expect(reply.text.startsWith("\ufeff")).toBe(false)
        expect(reply.text.endsWith("\r\n")).toBe(true)
        expect(header).toEqual([...FIXED_HEADER, "question:Song?", "question:Plus one?", "column:Table", "column:VIP", "column:Score", ...PAYMENT_HEADER])
        expect(rows).toHaveLength(2)
        expect(rows[0]).toEqual({
          personId: ada,
          firstName: "Ada",
          lastName: "Lovelace, \"Countess\"",
          email: expect.stringMatching(/^ada\./),
          phone: "'+44 20 0000",
          company: "'=HYPERLINK(\"http://evil\",\"x\")",
          position: "'@analyst",
          rsvpStatus: "Accepted",
          attendanceStatus: "Attended",
          dietaryRestrictions: "",
          rsvpNote: "",
          "question:Song?": "Bohemian Rhapsody",
          "question:Plus one?": "",
          "column:Table": "'-3",
          "column:VIP": "true",
          "column:Score": "12.5",
          paymentStatus: "paid",
          paymentAmount: "5600",
          donationAmount: "1000"
        })
        expect(rows[1]).toMatchObject({ personId: bob, rsvpStatus: "Invited", attendanceStatus: "", "column:VIP": "", paymentStatus: "none", paymentAmount: "0", donationAmount: "" })
        // the raw text: quoted where RFC 4180 needs it, the formula prefixed
        expect(reply.text).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`)
        expect(reply.text).toContain(`"Lovelace, ""Countess"""`)

        // the RSVP page replaced the note and dietary restrictions: set them again and read them back
        yield* updateGuests(server, event.eventId, [{ personId: ada, dietaryRestrictions: ["vegan", "no nuts"], rsvpNote: "line 1\nline 2, with \"quotes\"" }])
        const again = (yield* exportGuestsCsv(server, event.eventId)).rows[0]!
        expect(again).toMatchObject({ dietaryRestrictions: "vegan; no nuts", rsvpNote: "line 1\nline 2, with \"quotes\"" })

        // payment columns: Team Member and above, ticketed events only
        const viewer = yield* member(server, "Viewer")
        const teamMember = yield* member(server, "Team Member")
        expect((yield* exportGuestsCsv(server, event.eventId, { token: null, headers: viewer })).header).toEqual(header.slice(0, -3))
        const seen = yield* exportGuestsCsv(server, event.eventId, { token: null, headers: teamMember })
        expect(seen.header).toEqual(header)
        expect(seen.rows[0]).toMatchObject({ paymentStatus: "paid", paymentAmount: "5600" })
        const free = yield* createEvent(server, { customColumns: ["Table"] })
        yield* addGuests(server, free.eventId, [{ personId: ada }])
        const plain = yield* exportGuestsCsv(server, free.eventId)
        expect(plain.header).toEqual([...FIXED_HEADER, "column:Table"])
        expect(plain.reply.headers.get("content-disposition")).toMatch(/filename="guests-event-[a-z0-9-]+-\d{4}-\d{2}-\d{2}\.csv"/)

        // no slug: the event's id names the file; an empty list is its header alone
        const unnamed = yield* createEvent(server, { primarySlug: null })
        const empty = yield* exportGuestsCsv(server, unnamed.eventId)
        expect(empty.records).toEqual([FIXED_HEADER])
        expect(empty.reply.headers.get("content-disposition")).toContain(`filename="guests-${unnamed.eventId}-`)

        // unknown and foreign events: 404 before anything is sent; no credentials: 401
        const stranger = yield* server.organization(`csv-guests-stranger-${process.pid}`)
        expectError(yield* server.request("GET", `/event/${event.eventId}/guestlist/export`, { token: stranger.token }), 404, "not_found")
        expectError(yield* server.request("GET", "/event/nope/guestlist/export"), 404, "not_found")
        expectError(yield* server.request("GET", `/event/${event.eventId}/guestlist/export`, { token: null }), 401, "unauthorized")
      }))
  })

  describe("round trip", () => {
    it.effect("export a list, import it into a new event of a fresh organization, export again: identical but for ids", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const shape = {
          ticketingEnabled: true,
          rsvpQuestions: [{ title: "Song?" }],
          customColumns: ["Table", "VIP", "__proto__", "Score"]
        }
        const a = yield* server.organization(`csv-guests-trip-a-${process.pid}`)
        const source = yield* createEvent(server, shape, a.token)
        const guests = [
          {
            firstName: "Zoë", lastName: "O'Brien", phone: "+33 1 23 45 67 89", company: "=1+2", position: "-CTO",
            update: {
              rsvpStatus: "Accepted", attendanceStatus: "Attended", dietaryRestrictions: ["vegan", "sans gluten"],
              rsvpNote: "line 1\r\nline 2, with \"quotes\"; and a semicolon", customColumns: { Table: "'=quoted already", VIP: true, ["__proto__"]: "proto", Score: 12.5 }
            }
          },
          { firstName: "李", lastName: "小龍", update: { rsvpStatus: "Declined", attendanceStatus: "No Show", customColumns: { Table: "+7" } } },
          { firstName: "Plain", lastName: "Person", update: {} },
          { firstName: "Maybe", lastName: "Waitlisted", company: "Acme", update: { rsvpStatus: "Waitlisted", rsvpNote: "@later" } }
        ]
        for (const [i, g] of guests.entries()) {
          const personId = yield* createPerson(server, {
            firstName: g.firstName, lastName: g.lastName, email: uniqueEmail(`trip${i}`),
            ...(g.phone === undefined ? {} : { phone: g.phone }),
            ...(g.company === undefined ? {} : { company: g.company }),
            ...(g.position === undefined ? {} : { position: g.position })
          }, a.token)
          yield* addGuests(server, source.eventId, [{ personId }], a.token)
          if (Object.keys(g.update).length > 0) yield* updateGuests(server, source.eventId, [{ personId, ...g.update }], a.token)
        }
        const first = yield* exportGuestsCsv(server, source.eventId, { token: a.token })

        const b = yield* server.organization(`csv-guests-trip-b-${process.pid}`)
        const target = yield* createEvent(server, shape, b.token)
        const imported = expectStatus(yield* importGuestsCsv(server, target.eventId, first.reply.text, { token: b.token }), 200).body
        expect(imported).toEqual({ dryRun: false, rows: 4, created: 4, updated: 0, unchanged: 0, added: 4, errors: [], unknownColumns: [] })
        conforms(GuestImport.Report, imported)
        const second = yield* exportGuestsCsv(server, target.eventId, { token: b.token })

        const withoutIds = (records: Array<Array<string>>) => records.map((r) => r.slice(1))
        expect(second.header).toEqual(first.header)
        expect(withoutIds(second.records)).toEqual(withoutIds(first.records))
        expect(second.rows.map((r) => r["personId"])).not.toContain(first.rows[0]!["personId"])
        // the stored values are the given ones, not the prefixed cells
        const stored = yield* guestList(server, target.eventId, b.token)
        expect(stored[0]).toMatchObject({
          firstName: "Zoë",
          phone: "+33 1 23 45 67 89",
          rsvpStatus: "Accepted",
          attendanceStatus: "Attended",
          dietaryRestrictions: ["vegan", "sans gluten"],
          rsvpNote: "line 1\r\nline 2, with \"quotes\"; and a semicolon",
          // a CSV cell is text: numbers and booleans arrive as their text
          customColumns: { Table: "'=quoted already", VIP: "true", ["__proto__"]: "proto", Score: "12.5" }
        })
        expect(Object.getPrototypeOf(stored[0].customColumns)).toBe(Object.prototype)
        expect(stored[1]).toMatchObject({ rsvpStatus: "Declined", attendanceStatus: "No Show", customColumns: { Table: "+7" } })
        const persons = expectStatus(yield* server.request("GET", `/person/${stored[0].personId}`, { token: b.token }), 200).body
        expect(persons).toMatchObject({ company: "=1+2", position: "-CTO" })

        // the same file into the list it came from: nothing changes but each status given is recorded again
        const back = expectStatus(yield* importGuestsCsv(server, source.eventId, first.reply.text, { token: a.token }), 200).body
        expect(back).toMatchObject({ rows: 4, created: 0, added: 0, updated: 4, unchanged: 0, errors: [] })
        const kept = yield* guestList(server, source.eventId, a.token)
        // a cell that reads as the stored number or boolean keeps the stored value
        expect(kept[0].customColumns).toEqual({ Table: "'=quoted already", VIP: true, ["__proto__"]: "proto", Score: 12.5 })
        expect(withoutIds((yield* exportGuestsCsv(server, source.eventId, { token: a.token })).records)).toEqual(withoutIds(first.records))
      }))
  })

  describe("files made by spreadsheets", () => {
    it.effect("UTF-8 BOM, ; separators, CRLF, quoted newlines, headers and statuses in any case, a custom column by its title", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-guests-sheet-${process.pid}`)
        const event = yield* createEvent(server, { customColumns: ["Table number"] }, org.token)
        const e1 = uniqueEmail("Sheet")
        const e2 = uniqueEmail("sheet")
        const csv = "\ufeffFirst Name;LAST_NAME;E-Mail;RSVP Status;attendance;Dietary needs;Notes;table number;Shoe size\r\n" +
          `Émile;Zola;${e1};accepted;NO-SHOW;"vegan; no nuts";"first line\r\nsecond line";12;44\r\n` +
          ";;;;;;;;\r\n" +
          `"Marie";"Curie";${e2.toUpperCase()};  maybe ;;;;;\r\n`
        const report = expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { token: org.token }), 200).body
        expect(report).toEqual({ dryRun: false, rows: 2, created: 2, updated: 0, unchanged: 0, added: 2, errors: [], unknownColumns: ["Shoe size"] })
        const guests = yield* guestList(server, event.eventId, org.token)
        expect(guests.map((g) => [g.firstName, g.email, g.rsvpStatus, g.attendanceStatus, g.dietaryRestrictions, g.rsvpNote, g.customColumns])).toEqual([
          ["Émile", e1, "Accepted", "No Show", ["vegan", "no nuts"], "first line\r\nsecond line", { "Table number": "12" }],
          ["Marie", e2.toUpperCase(), "Maybe", null, null, null, null]
        ])

        // Excel's `sep=` line, and tab-separated text
        const e3 = uniqueEmail("sep")
        const hinted = expectStatus(yield* importGuestsCsv(server, event.eventId, `sep=;\r\nemail;firstName;lastName\r\n${e3};Sep;Hint\r\n`, { token: org.token }), 200)
        expect(hinted.body).toMatchObject({ added: 1, created: 1, errors: [], unknownColumns: [] })
        const tabbed = expectStatus(yield* importGuestsCsv(server, event.eventId, `email\tStatus\n${e1}\tDeclined\n`, { token: org.token }), 200)
        expect(tabbed.body).toMatchObject({ rows: 1, added: 0, updated: 1, errors: [] })
        expect((yield* guestList(server, event.eventId, org.token))[0].rsvpStatus).toBe("Declined")
      }))

    it.scoped("refuses what is not a CSV it can read with a clear 400, and writes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const event = yield* createEvent(server)
        const before = yield* digest(server)
        const refused = (body: string | Uint8Array, pattern: RegExp) =>
          Effect.map(importGuestsCsv(server, event.eventId, body), (reply) => {
            expectError(reply, 400, "invalid_request")
            expect(reply.body.message).toMatch(pattern)
          })
        yield* refused("", /empty/)
        yield* refused("firstName,lastName\nA,B\n", /no email column/)
        yield* refused("email,E-mail\na@example.com,b@example.com\n", /are both email/)
        yield* refused(Buffer.from("\ufeffemail\na@example.com\n", "utf16le"), /UTF-16/)
        const tooMany = `email\n${Array.from({ length: 50_001 }, (_, i) => `too.many.${i}@example.com`).join("\n")}\n`
        yield* refused(tooMany, /more than 50000 rows/)
        expect(yield* digest(server)).toBe(before)
      }))
  })

  describe("POST /event/:id/guestlist/import", () => {
    it.scoped("hostile cells: formulas are stored as text and exported with the ' prefix; NUL and oversize cells are row errors", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-guests-hostile-${process.pid}`)
        const event = yield* createEvent(server, { customColumns: ["Remarks"] }, org.token)
        const evil = uniqueEmail("evil")
        const formula = "=HYPERLINK(\"http://evil\",\"x\")"
        const csv = `email,firstName,lastName,rsvpNote,column:Remarks,company\r\n${evil},"+SUM(A1:A9)",Evil,"${formula.replaceAll("\"", "\"\"")}",@cmd,-1\r\n`
        expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { token: org.token }), 200)
        const { reply, rows } = yield* exportGuestsCsv(server, event.eventId, { token: org.token })
        expect(rows[0]).toMatchObject({ email: evil, firstName: "'+SUM(A1:A9)", rsvpNote: `'${formula}`, "column:Remarks": "'@cmd", company: "'-1" })
        expect(reply.text).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`)
        const [guest] = yield* guestList(server, event.eventId, org.token)
        expect(guest).toMatchObject({ firstName: "+SUM(A1:A9)", rsvpNote: formula, customColumns: { Remarks: "@cmd" } })

        const before = yield* digest(server)
        const hostile = `email,firstName,lastName,rsvpNote,dietaryRestrictions,Shoe\r\n` +
          `${uniqueEmail("ok")},Ok,Row,Fine,,\r\n` +
          `${uniqueEmail("big")},Big,Cell,${"x".repeat(1_000_000)},${"y".repeat(101)},\r\n` +
          `${uniqueEmail("nul")},N\u0000L,Cell,Fine,,\r\n` +
          `<script>alert(1)</script>,A,B,,,\r\n`
        const rejected = expectStatus(yield* importGuestsCsv(server, event.eventId, hostile, { token: org.token }), 422).body
        conforms(GuestImport.Rejected, rejected)
        expect(rejected).toEqual({
          message: "The import was refused: 4 errors in 3 rows; nothing was written",
          code: "import_rejected",
          dryRun: false,
          rows: 4,
          created: 1,
          updated: 0,
          unchanged: 0,
          added: 1,
          errors: [
            { row: 2, column: "rsvpNote", message: "must be at most 5000 characters" },
            { row: 2, column: "dietaryRestrictions", message: "item 1 must be at most 100 characters" },
            { row: 3, column: "firstName", message: "holds the NUL character (U+0000)" },
            { row: 4, column: "email", message: "must be an email address" }
          ],
          unknownColumns: ["Shoe"]
        })
        expect(yield* digest(server)).toBe(before)
      }))

    it.scoped("a dry run validates and counts but writes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-guests-dry-${process.pid}`)
        const event = yield* createEvent(server, {}, org.token)
        const known = uniqueEmail("known")
        const listed = yield* createPerson(server, { email: known }, org.token)
        yield* addGuests(server, event.eventId, [{ personId: listed }], org.token)
        const before = yield* digest(server)
        const csv = `email,firstName,lastName,rsvpStatus\n${known.toUpperCase()},,,\n${uniqueEmail("new")},New,Guest,Accepted\n${uniqueEmail("bad")},,,\n`
        const report = expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { token: org.token, query: "?dryRun=true" }), 200).body
        conforms(GuestImport.Report, report)
        expect(report).toEqual({
          dryRun: true,
          rows: 3,
          created: 1,
          updated: 0,
          unchanged: 1,
          added: 1,
          errors: [
            { row: 3, column: "firstName", message: "is needed to create a contact (no active contact has this email)" },
            { row: 3, column: "lastName", message: "is needed to create a contact (no active contact has this email)" }
          ],
          unknownColumns: []
        })
        const clean = `email,firstName,lastName\n${uniqueEmail("clean")},C,D\n`
        expect(expectStatus(yield* importGuestsCsv(server, event.eventId, clean, { token: org.token, query: "?dryRun=1" }), 200).body)
          .toMatchObject({ dryRun: true, created: 1, added: 1 })
        expect(yield* digest(server)).toBe(before)
      }))

    it.scoped("one bad row: 422 naming its row and column, and nothing of the good rows is written", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-guests-bad-${process.pid}`)
        const event = yield* createEvent(server, {}, org.token)
        const before = yield* digest(server)
        const rows = Array.from({ length: 30 }, (_, i) => `${uniqueEmail(`bad${i}`)},Row,${i},${i === 17 ? "Present" : "Attended"}`)
        const reply = yield* importGuestsCsv(server, event.eventId, `E-mail,First Name,Last Name,Attendance\n${rows.join("\n")}\n`, { token: org.token })
        expectStatus(reply, 422)
        expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
        expect(reply.body).toMatchObject({
          code: "import_rejected",
          dryRun: false,
          rows: 30,
          created: 29,
          added: 29,
          errors: [{ row: 18, column: "Attendance", message: "must be one of Attended or No Show" }]
        })
        expect(yield* digest(server)).toBe(before)
        expect(yield* guestList(server, event.eventId, org.token)).toEqual([])
      }))

    it.effect("rows match active contacts by email and fill only their blanks; guests on the list are unchanged; removed ones come back", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-guests-match-${process.pid}`)
        const event = yield* createEvent(server, { customColumns: ["Table"] }, org.token)
        const adaEmail = uniqueEmail("Ada")
        const ada = yield* createPerson(server, { firstName: "Ada", lastName: "Lovelace", email: adaEmail, company: "Analytical" }, org.token)
        const phoned = uniqueEmail("phoned")
        const withPhone = yield* createPerson(server, { email: phoned, phone: "+1 555 0001" }, org.token)
        const archivedEmail = uniqueEmail("gone")
        const archived = yield* createPerson(server, { email: archivedEmail, company: "Old Co" }, org.token)
        expectStatus(yield* server.request("DELETE", `/person/${archived}`, { token: org.token }), 200)
        const removedEmail = uniqueEmail("removed")
        const removed = yield* createPerson(server, { email: removedEmail }, org.token)
        const listedEmail = uniqueEmail("listed")
        const listed = yield* createPerson(server, { email: listedEmail }, org.token)
        yield* addGuests(server, event.eventId, [{ personId: removed }, { personId: listed }, { personId: withPhone }], org.token)
        yield* updateGuests(server, event.eventId, [{ personId: removed, rsvpStatus: "Accepted", rsvpNote: "kept" }, { personId: listed, rsvpStatus: "Maybe" }], org.token)
        expectStatus(yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { token: org.token, body: { guests: [{ personId: removed }] } }), 200)

        const csv = "email,firstName,lastName,company,position,phone,column:Table,column:Nope\n" +
          `  ${adaEmail.toUpperCase()} ,Augusta,King,Other Co,Countess,+44 20 0000,,x\n` +
          `${adaEmail},,,,,+44 99 9999,4,\n` +
          `${archivedEmail},New,Person,New Co,,,,\n` +
          `${removedEmail},,,,,,,\n` +
          `${listedEmail},,,,,,,\n` +
          `${phoned},,,,,+1 555 0002,,\n`
        const report = expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { token: org.token }), 200).body
        expect(report).toEqual({
          dryRun: false,
          rows: 6,
          created: 1,
          updated: 1,
          unchanged: 2,
          added: 3,
          errors: [],
          unknownColumns: ["column:Nope"]
        })
        const person = expectStatus(yield* server.request("GET", `/person/${ada}`, { token: org.token }), 200).body
        expect(person).toMatchObject({ firstName: "Ada", lastName: "Lovelace", email: adaEmail, company: "Analytical", position: "Countess", phone: "+44 20 0000" })
        const other = expectStatus(yield* server.request("GET", `/person/${withPhone}`, { token: org.token }), 200).body
        expect(other.phone).toBe("+1 555 0001")
        expect(expectStatus(yield* server.request("GET", `/person/${archived}`, { token: org.token }), 200).body).toMatchObject({ archived: true, company: "Old Co" })

        const guests = yield* guestList(server, event.eventId, org.token)
        const byEmail = new Map(guests.map((g) => [g.email.toLowerCase(), g]))
        expect(guests).toHaveLength(5)
        expect(byEmail.get(adaEmail.toLowerCase())).toMatchObject({ rsvpStatus: "Invited", customColumns: { Table: "4" } })
        const fresh = byEmail.get(archivedEmail.toLowerCase())
        expect(fresh.personId).not.toBe(archived)
        // a removed guest comes back as Invited, with an "added" history entry, keeping their note
        const back = byEmail.get(removedEmail.toLowerCase())
        expect(back).toMatchObject({ personId: removed, rsvpStatus: "Invited", rsvpNote: "kept" })
        expect(back.rsvpStatusHistory.map((h: any) => h.status)).toEqual(["Invited", "Accepted", "Invited"])
        expect(byEmail.get(listedEmail.toLowerCase())).toMatchObject({ personId: listed, rsvpStatus: "Maybe" })
      }))

    it.effect("every RSVP status given is recorded in the history by the importing caller, as a guest-list update records it", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const event = yield* createEvent(server)
        const listedEmail = uniqueEmail("hist")
        const listed = yield* createPerson(server, { email: listedEmail })
        yield* addGuests(server, event.eventId, [{ personId: listed }])
        yield* updateGuests(server, event.eventId, [{ personId: listed, rsvpStatus: "Accepted" }])
        const teamMember = yield* member(server, "Team Member")
        const newEmail = uniqueEmail("histnew")
        const csv = `email,firstName,lastName,rsvpStatus\n${listedEmail},,,Accepted\n${newEmail},New,Guest,Maybe\n${newEmail},,,Declined\n`
        const report = expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { token: null, headers: teamMember }), 200).body
        expect(report).toMatchObject({ rows: 3, created: 1, added: 1, updated: 2, unchanged: 0 })
        const guests = yield* guestList(server, event.eventId)
        // the member's id: the actor of the entries of the guest their import created
        const memberId = guests.find((g) => g.email === newEmail).rsvpStatusHistory[0].actorId
        const history = (email: string) =>
          guests.find((g) => g.email === email).rsvpStatusHistory.map((h: any) => [h.status, h.actorType, h.actorId === memberId ? "member" : "other"])
        // the unchanged status is recorded too, as PUT records it
        expect(history(listedEmail)).toEqual([["Invited", "apiKey", "other"], ["Accepted", "apiKey", "other"], ["Accepted", "user", "member"]])
        expect(history(newEmail)).toEqual([["Invited", "user", "member"], ["Maybe", "user", "member"], ["Declined", "user", "member"]])
        expect(guests.find((g) => g.email === newEmail).rsvpStatus).toBe("Declined")
      }))

    it.effect("roles: a Viewer may export but not import (403, before the body is read); a foreign event is 404", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const event = yield* createEvent(server)
        const viewer = yield* member(server, "Viewer")
        const teamMember = yield* member(server, "Team Member")
        const csv = `email,firstName,lastName\n${uniqueEmail("role")},R,S\n`
        expect((yield* exportGuestsCsv(server, event.eventId, { token: null, headers: viewer })).header[0]).toBe("personId")
        expectError(yield* importGuestsCsv(server, event.eventId, csv, { token: null, headers: viewer }), 403, "forbidden")
        expectError(yield* importGuestsCsv(server, event.eventId, Buffer.from([0xff, 0xfe, 0x00]), { token: null, headers: viewer }), 403, "forbidden")
        expectError(yield* importGuestsCsv(server, event.eventId, csv, { token: null }), 401, "unauthorized")
        const stranger = yield* server.organization(`csv-guests-role-${process.pid}`)
        expectError(yield* importGuestsCsv(server, event.eventId, csv, { token: stranger.token }), 404, "not_found")
        expectError(yield* importGuestsCsv(server, "no-such-event", csv), 404, "not_found")
        // a file refused whole is a malformed request, said before the unknown event
        expectError(yield* importGuestsCsv(server, event.eventId, "firstName\nNo email column\n", { token: stranger.token }), 400, "invalid_request")
        // row errors are not: the event comes first
        expectError(yield* importGuestsCsv(server, "no-such-event", "email\nnot-an-email\n"), 404, "not_found")
        expect(expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { token: null, headers: teamMember }), 200).body.added).toBe(1)
      }))

    it.effect("an Idempotency-Key replays the first answer for the same CSV, and refuses another CSV with 422", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const event = yield* createEvent(server)
        const csv = `email,firstName,lastName,rsvpStatus\n${uniqueEmail("idem")},I,D,Accepted\n`
        const key = { "idempotency-key": `guests-csv-${process.pid}` }
        const first = expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { headers: key }), 200)
        expect(first.body.added).toBe(1)
        const replay = expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { headers: key }), 200)
        expect(replay.headers.get("idempotent-replayed")).toBe("true")
        expect(replay.text).toBe(first.text)
        const [guest] = yield* guestList(server, event.eventId)
        expect(guest.rsvpStatusHistory).toHaveLength(2)
        expectError(yield* importGuestsCsv(server, event.eventId, `email\n${uniqueEmail("idem")}\n`, { headers: key }), 422, "idempotency_key_reused")
      }))

    it.effect("/openapi.json documents both endpoints with their statuses", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const spec = expectStatus(yield* server.request("GET", "/openapi.json", { token: null }), 200).body
        const exported = spec.paths["/event/{id}/guestlist/export"].get
        expect(Object.keys(exported.responses).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500"])
        expect(Object.keys(exported.responses["200"].content)).toEqual(["text/csv"])
        const imported = spec.paths["/event/{id}/guestlist/import"].post
        expect(Object.keys(imported.responses).sort()).toEqual(["200", "400", "401", "403", "404", "409", "413", "422", "429", "500"])
        expect(Object.keys(imported.requestBody.content)).toEqual(["text/csv"])
        expect(imported.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["id", "dryRun", "Idempotency-Key"]))
        expect(imported.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/GuestImportReport" })
        expect(JSON.stringify(imported.responses["422"])).toContain("import_rejected")
        expect(JSON.stringify(imported.responses["422"])).toContain("IdempotencyKeyReused")
        expect(JSON.stringify(imported.responses["413"])).toContain("10485760")
        expect(spec.components.schemas["GuestImportReport"].required).toEqual(
          ["dryRun", "rows", "created", "updated", "unchanged", "added", "errors", "unknownColumns"]
        )
      }))
  })
})

/** Every notification of what was done so far (support/Outbox.ts): nothing comes after. */
const drain = (server: TestServer["Type"], hook: { readonly next: (timeoutMs?: number) => Effect.Effect<Received> }) =>
  Effect.gen(function*() {
    yield* outboxSettled(server)
    const arrived: Array<Received> = []
    for (;;) {
      const next = yield* Effect.either(Effect.timeout(hook.next(1_000), 10))
      if (next._tag === "Left") return arrived
      arrived.push(next.right)
    }
  })

layer(testServer(), { excludeTestServices: true })("guest list CSV notifications", (it) => {
  it.scoped("exactly one GuestList notification per import, with every affected guest; EventPerson for real status changes only", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const hook = yield* receiver
      const org = yield* server.organization(`csv-guests-hooks-${process.pid}`)
      for (const [path, type] of [["/list", "GuestList"], ["/person", "EventPerson"]] as const) {
        expectStatus(yield* server.request("POST", "/webhook", { token: org.token, body: { webhook: hook.url(path), type } }), 200)
      }
      const event = yield* createEvent(server, { name: "Hooked", customColumns: ["Table"] }, org.token)
      const same = uniqueEmail("same")
      const moved = uniqueEmail("moved")
      const quiet = uniqueEmail("quiet")
      const ids: Array<string> = []
      for (const email of [same, moved, quiet]) ids.push(yield* createPerson(server, { email }, org.token))
      yield* addGuests(server, event.eventId, ids.map((personId) => ({ personId })), org.token)
      yield* updateGuests(server, event.eventId, [{ personId: ids[0], rsvpStatus: "Accepted" }, { personId: ids[1], rsvpStatus: "Accepted" }], org.token)
      yield* drain(server, hook)

      // a dry run and a refused import notify nobody
      const yes = uniqueEmail("yes")
      const plain = uniqueEmail("plain")
      const csv = "email,firstName,lastName,rsvpStatus,attendanceStatus,column:Table\n" +
        `${yes},Yes,Guest,Accepted,,\n` +
        `${same},,,Accepted,,\n` +
        `${moved},,,Declined,,9\n` +
        `${quiet},,,,,\n` +
        `${plain},Plain,Guest,,,2\n`
      expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { token: org.token, query: "?dryRun=true" }), 200)
      expectStatus(yield* importGuestsCsv(server, event.eventId, `${csv}bad,,,,,\n`, { token: org.token }), 422)
      expect(yield* drain(server, hook)).toEqual([])

      const report = expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { token: org.token }), 200).body
      expect(report).toMatchObject({ rows: 5, created: 2, added: 2, updated: 2, unchanged: 1 })
      const arrived = yield* drain(server, hook)
      const lists = arrived.filter((r) => r.path === "/list")
      const persons = arrived.filter((r) => r.path === "/person")
      expect(lists).toHaveLength(1)
      // the affected guests in file order: put on the list, or changed (a new history entry included)
      expect(lists[0]!.json.map((g: any) => g.email)).toEqual([yes, same, moved, plain])
      expect(lists[0]!.json[0].rsvpStatusHistory.map((h: any) => [h.status, h.actionType])).toEqual([["Invited", "added"], ["Accepted", "updated"]])
      expect(lists[0]!.json[2]).toMatchObject({ rsvpStatus: "Declined", customColumns: { Table: "9" } })
      // EventPerson: the new guest who accepted (from Invited) and the one who declined
      expect(persons.map((r) => r.json[0].email).sort()).toEqual([moved, yes].sort())
      expect(persons.find((r) => r.json[0].email === moved)!.json[0].rsvpStatus).toBe("Declined")

      // the same file again: only the statuses given are recorded again; one notification still
      yield* importGuestsCsv(server, event.eventId, csv, { token: org.token })
      const again = yield* drain(server, hook)
      expect(again.filter((r) => r.path === "/list")).toHaveLength(1)
      expect(again.filter((r) => r.path === "/list")[0]!.json.map((g: any) => g.email)).toEqual([yes, same, moved])
      expect(again.filter((r) => r.path === "/person")).toEqual([])
    }), 60_000)
})

layer(testServer(), { excludeTestServices: true })("guest list CSV under concurrent adds", (it) => {
  it.effect("an import racing guest-list adds of its own emails lands: each guest on the list once, added once", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server)
      const tag = `race.${process.pid}`
      const lines = ["email,firstName,lastName,rsvpStatus"]
      for (let i = 0; i < 20_000; i++) lines.push(`${tag}.${i}@example.com,Race,${i},Accepted`)
      const raced = Array.from({ length: 40 }, (_, i) => `${tag}.${i * 500}@example.com`)
      const [report, adds] = yield* Effect.all([
        importGuestsCsv(server, event.eventId, `${lines.join("\n")}\n`),
        Effect.forEach(raced, (email, i) =>
          Effect.delay(
            Effect.map(server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ firstName: "Race", lastName: `${i}`, email }] } }), (r) => r.status),
            `${i * 30} millis`
          ), { concurrency: "unbounded" })
      ], { concurrency: "unbounded" })
      // planned again after a concurrent add, and at last under the write lock: the import always lands
      expectStatus(report, 200)
      expect(adds.every((status) => status === 200)).toBe(true)
      expect(report.body).toMatchObject({ rows: 20_000, errors: [] })
      // a guest an add put on the list first is one the import found there
      expect(report.body.added + report.body.updated).toBe(20_000)
      const guests = yield* guestList(server, event.eventId)
      expect(guests).toHaveLength(20_000)
      const emails = guests.map((g) => g.email)
      expect(new Set(emails).size).toBe(emails.length)
      for (const guest of guests.filter((g) => raced.includes(g.email))) {
        expect(guest.rsvpStatus).toBe("Accepted")
        expect(guest.rsvpStatusHistory.filter((h: any) => h.status === "Invited")).toHaveLength(1)
      }
    }), 60_000)
})
