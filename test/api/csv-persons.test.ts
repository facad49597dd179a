/**
 * Contacts as CSV (docs/integrators.md#csv-export-and-import) over a real server: `GET /person/export` and `POST /person/import`.
 * Exported files are read back with csv-parse; refusals are checked to leave the database as it
 * was (a digest of every row, read through a second connection).
 * A 50,000-row import under concurrent traffic: test/slow/csv-persons-scale.test.ts.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { PersonImport } from "../../src/Persons/Api.js"
import { databaseDigest } from "../support/Digest.js"
import { createPerson, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"
import { type ContactsImportOptions, customField, exportContactsCsv, importContactsCsv } from "../support/Csv.js"

type Server = TestServer["Type"]

/** The digest of the server's database now. */
const digest = (server: Server) => Effect.promise(() => databaseDigest(server.databaseEnv))

/** A body sent without the encoder decodes with its declared schema, field for field. */
const conforms = <A, I>(schema: Schema.Schema<A, I>, body: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema, { onExcessProperty: "error" })(body)
  expect(Schema.encodeSync(schema)(decoded)).toEqual(body)
}

const PERSON_HEADER = [
  "personId", "firstName", "lastName", "email", "phone", "company", "position", "birthday", "address", "apartment",
  "city", "state", "country", "postalCode", "profilePicture", "contextNote", "archived", "createdAt"
]

layer(testServer(), { excludeTestServices: true })("contacts CSV", (it) => {
  describe("GET /person/export", () => {
    it.effect("answers an RFC 4180 attachment: every person field, createdAt and one column per custom field", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-export-${process.pid}`)
        yield* customField(server, org.token, { fieldName: "Dietary needs", fieldType: "text" })
        yield* customField(server, org.token, { fieldName: "Score", fieldType: "number" })
        const tags = yield* customField(server, org.token, {
          fieldName: "Tags",
          fieldType: "multiselect",
          options: [{ value: "VIP", color: "#ff0000" }, { value: "a;b", color: "#00ff00" }, { value: "Speaker", color: "#0000ff" }]
        })
        const email = uniqueEmail("export")
        const id = yield* createPerson(server, {
          firstName: "Grace",
          lastName: "Hopper, \"Amazing\"",
          email,
          phone: "+1 555 0100",
          company: "=HYPERLINK(\"http://evil\",\"x\")",
          position: "@admiral",
          birthday: "1906-12-09",
          address: "1 Main St\nBuilding 2",
          apartment: "4B",
          city: "Arlington",
          state: "VA",
          country: "US",
          postalCode: "22201",
          contextNote: "met at\r\na conference",
          profilePicture: "https://example.com/grace.png"
        }, org.token)
        expectStatus(yield* server.request("PUT", `/person/${id}`, {
          token: org.token,
          body: {
            personId: id,
            customFields: [{ fieldName: "Dietary needs", value: "vegan" }, { fieldName: "Score", value: "-12.50" }],
            customFieldMultiselect: [{ fieldId: tags.fieldId, value: "VIP" }, { fieldId: tags.fieldId, value: "a;b" }]
          }
        }), 200)
        const archived = yield* createPerson(server, { firstName: "Old", lastName: "Contact" }, org.token)
        expectStatus(yield* server.request("DELETE", `/person/${archived}`, { token: org.token }), 200)

        const { header, records, reply, rows } = yield* exportContactsCsv(server, { token: org.token })
        expect(reply.headers.get("content-type")).toBe("text/csv; charset=utf-8")
        expect(reply.headers.get("content-disposition")).toMatch(
          new RegExp(`^attachment; filename="contacts-csv-export-${process.pid}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`)
        )
        expect(reply.text.startsWith("\ufeff")).toBe(false)
        expect(reply.text.endsWith("\r\n")).toBe(true)
        expect(header).toEqual([...PERSON_HEADER, "custom:Dietary needs", "custom:Score", "custom:Tags"])
        expect(records).toHaveLength(2)
        expect(rows[0]).toEqual({
          personId: id,
          firstName: "Grace",
          lastName: "Hopper, \"Amazing\"",
          email,
          phone: "'+1 555 0100",
          company: "'=HYPERLINK(\"http://evil\",\"x\")",
          position: "'@admiral",
          birthday: "1906-12-09",
          address: "1 Main St\nBuilding 2",
          apartment: "4B",
          city: "Arlington",
          state: "VA",
          country: "US",
          postalCode: "22201",
          profilePicture: "https://example.com/grace.png",
          contextNote: "met at\r\na conference",
          archived: "false",
          createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
          "custom:Dietary needs": "vegan",
          "custom:Score": "'-12.50",
          "custom:Tags": "VIP; a;b"
        })
        // the raw text: quoted where RFC 4180 needs it, the formula prefixed
        expect(reply.text).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`)
        expect(reply.text).toContain(`"Hopper, ""Amazing"""`)

        const old = yield* exportContactsCsv(server, { token: org.token, query: "?archived=true" })
        expect(old.rows.map((r) => [r["personId"], r["archived"]])).toEqual([[archived, "true"]])
        expect(old.reply.headers.get("content-disposition")).toMatch(/filename="contacts-csv-export-\d+-\d{4}-\d{2}-\d{2}\.csv"/)
        const none = yield* exportContactsCsv(server, { token: (yield* server.organization(`csv-empty-${process.pid}`)).token })
        expect(none.records).toEqual([PERSON_HEADER])
        expectError(yield* server.request("GET", "/person/export?archived=maybe"), 400, "invalid_request")
      }))
  })

  describe("round trip", () => {
    it.effect("export, import into a fresh organization, export again: identical but for ids and times", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const define = (token: string) =>
          Effect.gen(function*() {
            yield* customField(server, token, { fieldName: "Dietary needs", fieldType: "text" })
            yield* customField(server, token, { fieldName: "Score", fieldType: "number" })
            return yield* customField(server, token, {
              fieldName: "Tags",
              fieldType: "multiselect",
              options: [{ value: "VIP", color: "#ff0000" }, { value: "a;b", color: "#00ff00" }, { value: "Speaker", color: "#0000ff" }]
            })
          })
        const a = yield* server.organization(`csv-trip-a-${process.pid}`)
        const tags = yield* define(a.token)
        const people = [
          {
            firstName: "Zoë", lastName: "O'Brien", phone: "+33 1 23 45 67 89", company: "=1+2", position: "-CTO", birthday: "1990-02-28",
            address: "2 rue \"X\", bât. B", apartment: "\t3", city: "Paris", state: "IDF", country: "FR", postalCode: "75002",
            contextNote: "line 1\nline 2, with \"quotes\"", profilePicture: "https://example.com/z.png"
          },
          { firstName: "李", lastName: "小龍", company: "'=quoted already" },
          { firstName: "Plain", lastName: "Person" }
        ]
        for (const [i, fields] of people.entries()) {
          const id = yield* createPerson(server, { ...fields, email: uniqueEmail(`trip${i}`) }, a.token)
          if (i === 0) {
            expectStatus(yield* server.request("PUT", `/person/${id}`, {
              token: a.token,
              body: {
                personId: id,
                customFields: { "Dietary needs": "no nuts; no fish", Score: "000123.4500" },
                customFieldMultiselect: [{ fieldId: tags.fieldId, value: "Speaker" }, { fieldId: tags.fieldId, value: "a;b" }]
              }
            }), 200)
          }
          if (i === 1) {
            expectStatus(yield* server.request("PUT", `/person/${id}`, {
              token: a.token,
              body: { personId: id, customFields: [{ fieldName: "Score", value: "-7" }] }
            }), 200)
          }
        }
        const first = yield* exportContactsCsv(server, { token: a.token })

        const b = yield* server.organization(`csv-trip-b-${process.pid}`)
        yield* define(b.token)
        const imported = expectStatus(yield* importContactsCsv(server, first.reply.text, { token: b.token }), 200).body
        expect(imported).toEqual({ dryRun: false, rows: 3, created: 3, updated: 0, unchanged: 0, errors: [], unknownColumns: [] })
        conforms(PersonImport.Report, imported)
        const second = yield* exportContactsCsv(server, { token: b.token })

        const withoutIdsAndTimes = (records: Array<Array<string>>) => records.map((r) => r.filter((_, i) => i !== 0 && i !== 17))
        expect(second.header).toEqual(first.header)
        expect(withoutIdsAndTimes(second.records)).toEqual(withoutIdsAndTimes(first.records))
        expect(second.rows[0]!["company"]).toBe("'=1+2")
        expect(second.rows[1]!["company"]).toBe("''=quoted already")
        expect(second.rows.map((r) => r["personId"])).not.toContain(first.rows[0]!["personId"])
        // the stored values are the given ones, not the prefixed cells
        const stored = expectStatus(yield* server.request("GET", `/person/${second.rows[0]!["personId"]}`, { token: b.token }), 200).body
        expect(stored).toMatchObject({ company: "=1+2", position: "-CTO", apartment: "3", customFields: { Score: "000123.4500", Tags: ["Speaker", "a;b"] } })

        // importing the same file again changes nothing: every row matches by email, nothing is blank
        const again = expectStatus(yield* importContactsCsv(server, first.reply.text, { token: b.token }), 200).body
        expect(again).toMatchObject({ rows: 3, created: 0, updated: 0, unchanged: 3, errors: [] })
      }))
  })

  describe("files made by spreadsheets", () => {
    it.effect("UTF-8 BOM, ; separators, CRLF, quoted newlines, headers in any case and punctuation", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-sheet-${process.pid}`)
        const e1 = uniqueEmail("Sheet")
        const e2 = uniqueEmail("sheet")
        const csv = "\ufeffFirst name;LAST_NAME;E-Mail;Postal Code;Job title;contact note;Shoe size\r\n" +
          `Émile;Zola;${e1};75009;"Writer; novelist";"first line\r\nsecond line";44\r\n` +
          ";;;;;;\r\n" +
          `"Marie";"Curie";${e2.toUpperCase()};;;;\r\n`
        const report = expectStatus(yield* importContactsCsv(server, csv, { token: org.token }), 200).body
        expect(report).toEqual({ dryRun: false, rows: 2, created: 2, updated: 0, unchanged: 0, errors: [], unknownColumns: ["Shoe size"] })
        const { rows } = yield* exportContactsCsv(server, { token: org.token })
        expect(rows.map((r) => [r["firstName"], r["lastName"], r["email"], r["postalCode"], r["position"], r["contextNote"]])).toEqual([
          ["Émile", "Zola", e1, "75009", "Writer; novelist", "first line\r\nsecond line"],
          ["Marie", "Curie", e2.toUpperCase(), "", "", ""]
        ])

        // Excel's `sep=` line, and tab-separated text with firstName-style headers
        const e3 = uniqueEmail("sep")
        const hinted = expectStatus(yield* importContactsCsv(server, `sep=;\r\nemail;firstName;lastName\r\n${e3};Sep;Hint\r\n`, { token: org.token }), 200)
        expect(hinted.body).toMatchObject({ created: 1, errors: [], unknownColumns: [] })
        const e4 = uniqueEmail("tab")
        const tabbed = expectStatus(yield* importContactsCsv(server, `firstName\tlastName\temail\tcity\nTab\tSeparated\t${e4}\t\n`, { token: org.token }), 200)
        expect(tabbed.body).toMatchObject({ created: 1, errors: [], unknownColumns: [] })
        const found = expectStatus(yield* server.request("GET", `/person/search?email=${encodeURIComponent(e4)}`, { token: org.token }), 200).body
        expect(found.persons[0]).toMatchObject({ firstName: "Tab", lastName: "Separated" })
        expect(found.persons[0]).not.toHaveProperty("city")
      }))

    it.scoped("refuses what is not a CSV it can read with a clear 400, and writes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const before = yield* digest(server)
        const refused = (body: string | Uint8Array, pattern: RegExp, options: ContactsImportOptions = {}) =>
          Effect.map(importContactsCsv(server, body, options), (reply) => {
            expectError(reply, 400, "invalid_request")
            expect(reply.body.message).toMatch(pattern)
          })
        yield* refused("", /empty/)
        yield* refused("\r\n\r\n", /empty/)
        yield* refused("firstName,lastName\nA,B\n", /no email column/)
        yield* refused("email,E-mail\na@example.com,b@example.com\n", /column 1 \("email"\) and column 2 \("E-mail"\) are both email/)
        yield* refused("email,firstName\n\"a@example.com,A\n", /could not be read.*Quote Not Closed/i)
        const latin1 = Buffer.concat([Buffer.from("email,firstName,lastName\na@example.com,Ren"), Buffer.from([0xe9]), Buffer.from(",X\n")])
        yield* refused(latin1, /not valid UTF-8 \(line 2, byte 43\)/)
        yield* refused(Buffer.from("\ufeffemail\na@example.com\n", "utf16le"), /UTF-16/)
        yield* refused("e\u0000mail\na@example.com\n", /NUL/)
        yield* refused("email\na@example.com\n", /form upload/, { headers: { "content-type": "multipart/form-data; boundary=x" } })
        yield* refused("email\na@example.com\n", /charset=iso-8859-1/, { headers: { "content-type": "text/csv; charset=ISO-8859-1" } })
        const tooMany = `email\n${Array.from({ length: 50_001 }, (_, i) => `too.many.${i}@example.com`).join("\n")}\n`
        yield* refused(tooMany, /more than 50000 rows/)
        expect(yield* digest(server)).toBe(before)
      }))

    it.effect("takes up to 10 MiB (413 beyond), while JSON bodies keep their 1 MiB limit", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-size-${process.pid}`)
        const row = (i: number) => `size.${i}.${process.pid}@example.com,Size,Row${i},${"x".repeat(100)}\n`
        let body = "email,firstName,lastName,company\n"
        for (let i = 0; body.length < 3 * 1024 * 1024; i++) body += row(i)
        const big = expectStatus(yield* importContactsCsv(server, body, { token: org.token, query: "?dryRun=true" }), 200).body
        expect(big.errors).toEqual([])
        expect(big.created).toBe(big.rows)
        const over = "email\n" + "a".repeat(10 * 1024 * 1024)
        const tooLarge = expectError(yield* importContactsCsv(server, over, { token: org.token }), 413, "payload_too_large")
        expect(tooLarge.body.message).toMatch(/10485760 bytes/)
        // a chunked body (no Content-Length) over the limit: 413 too, found while reading
        const chunked = yield* importContactsCsv(server, new Blob([over]).stream(), { token: org.token })
        expectError(chunked, 413, "payload_too_large")
        const json = JSON.stringify({ firstName: "A", lastName: "B", email: uniqueEmail(), contextNote: "x".repeat(1_048_577) })
        expectError(yield* server.request("POST", "/person", { rawBody: json, headers: { "content-type": "application/json" } }), 413, "payload_too_large")
        expectError(
          yield* server.request("POST", "/person", { rawBody: json.slice(0, 1_100_000), headers: { "content-type": "text/csv" } }),
          413,
          "payload_too_large"
        )
      }))
  })

  describe("hostile cells", () => {
    it.scoped("a formula is stored as text and exported with the ' prefix; 1 MB cells and NUL are row errors; nothing written", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-hostile-${process.pid}`)
        const evil = uniqueEmail("evil")
        const formula = "=HYPERLINK(\"http://evil\",\"x\")"
        const csv = `email,firstName,lastName,company\r\n${evil},"+SUM(A1:A9)",Evil,"${formula.replaceAll("\"", "\"\"")}"\r\n`
        expectStatus(yield* importContactsCsv(server, csv, { token: org.token }), 200)
        const { reply, rows } = yield* exportContactsCsv(server, { token: org.token })
        expect(rows[0]).toMatchObject({ email: evil, firstName: "'+SUM(A1:A9)", company: `'${formula}` })
        expect(reply.text).toContain(`"'=HYPERLINK(""http://evil"",""x"")"`)
        const person = expectStatus(yield* server.request("GET", `/person/${rows[0]!["personId"]}`, { token: org.token }), 200).body
        expect(person).toMatchObject({ firstName: "+SUM(A1:A9)", company: formula })

        const before = yield* digest(server)
        const ok = uniqueEmail("ok")
        const hostile = `email,firstName,lastName,company,Remarks\r\n` +
          `${ok},Ok,Row,Fine,\r\n` +
          `${uniqueEmail("big")},Big,Cell,${"x".repeat(1_000_000)},${"y".repeat(1_000_000)}\r\n` +
          `${uniqueEmail("nul")},N\u0000L,Cell,Fine,\r\n`
        const rejected = expectStatus(yield* importContactsCsv(server, hostile, { token: org.token }), 422).body
        conforms(PersonImport.Rejected, rejected)
        expect(rejected).toEqual({
          message: "The import was refused: 2 errors in 2 rows; nothing was written",
          code: "import_rejected",
          dryRun: false,
          rows: 3,
          created: 1,
          updated: 0,
          unchanged: 0,
          errors: [
            { row: 2, column: "company", message: "must be at most 500 characters" },
            { row: 3, column: "firstName", message: "holds the NUL character (U+0000)" }
          ],
          unknownColumns: ["Remarks"]
        })
        expect(yield* digest(server)).toBe(before)
      }))
  })

  describe("POST /person/import", () => {
    it.scoped("a dry run validates and counts but writes nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-dry-${process.pid}`)
        const existing = uniqueEmail("dry")
        yield* createPerson(server, { email: existing }, org.token)
        const before = yield* digest(server)
        const csv = `email,firstName,lastName,city\n${existing.toUpperCase()},X,Y,Lyon\n${uniqueEmail("new")},New,Person,\n${uniqueEmail("bad")},,,\nnot-an-email,A,B,\n`
        const report = expectStatus(yield* importContactsCsv(server, csv, { token: org.token, query: "?dryRun=true" }), 200).body
        conforms(PersonImport.Report, report)
        expect(report).toEqual({
          dryRun: true,
          rows: 4,
          created: 1,
          updated: 1,
          unchanged: 0,
          errors: [
            { row: 3, column: "firstName", message: "is needed to create a contact (no active contact has this email)" },
            { row: 3, column: "lastName", message: "is needed to create a contact (no active contact has this email)" },
            { row: 4, column: "email", message: "must be an email address" }
          ],
          unknownColumns: []
        })
        expect(yield* digest(server)).toBe(before)
        const clean = `email,firstName,lastName\n${uniqueEmail("clean")},C,D\n`
        expect(expectStatus(yield* importContactsCsv(server, clean, { token: org.token, query: "?dryRun=1" }), 200).body).toMatchObject({ dryRun: true, created: 1 })
        expect(yield* digest(server)).toBe(before)
      }))

    it.scoped("one bad row: 422 naming its row and column, and nothing of the good rows is written", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-bad-${process.pid}`)
        const before = yield* digest(server)
        const rows = Array.from({ length: 30 }, (_, i) => `${uniqueEmail(`bad${i}`)},Row,${i},${i === 17 ? "1999-02-30" : "2000-01-01"}`)
        const reply = yield* importContactsCsv(server, `E-mail,First Name,Last Name,Date of birth\n${rows.join("\n")}\n`, { token: org.token })
        expectStatus(reply, 422)
        expect(reply.headers.get("content-type")).toMatch(/^application\/json/)
        expect(reply.body).toMatchObject({
          code: "import_rejected",
          dryRun: false,
          rows: 30,
          created: 29,
          errors: [{ row: 18, column: "Date of birth", message: "must be a real calendar date" }]
        })
        expect(yield* digest(server)).toBe(before)
        expect((yield* exportContactsCsv(server, { token: org.token })).rows).toEqual([])
      }))

    it.effect("rows matching an active person by email fill only its blank fields; archived persons are not matched", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-match-${process.pid}`)
        const email = uniqueEmail("Match")
        const id = yield* createPerson(server, { firstName: "Ada", lastName: "Lovelace", email, company: "Analytical", city: "" }, org.token)
        const archivedEmail = uniqueEmail("gone")
        const archived = yield* createPerson(server, { email: archivedEmail, company: "Old Co" }, org.token)
        expectStatus(yield* server.request("DELETE", `/person/${archived}`, { token: org.token }), 200)
        const withPhone = uniqueEmail("phoned")
        const phoned = yield* createPerson(server, { email: withPhone, phone: "+1 555 0001" }, org.token)

        const csv = "email,firstName,lastName,company,city,phone,birthday\n" +
          `  ${email.toUpperCase()} ,Augusta,King,Other Co,London,+44 20 0000,1815-12-10\n` +
          `${email},,,,Paris,+44 99 9999,\n` +
          `${archivedEmail},New,Person,New Co,,,\n` +
          `${withPhone},,,,,+1 555 0002,\n`
        const report = expectStatus(yield* importContactsCsv(server, csv, { token: org.token }), 200).body
        expect(report).toMatchObject({ rows: 4, created: 1, updated: 1, unchanged: 2, errors: [] })
        const ada = expectStatus(yield* server.request("GET", `/person/${id}`, { token: org.token }), 200).body
        expect(ada).toMatchObject({
          firstName: "Ada",
          lastName: "Lovelace",
          email,
          company: "Analytical",
          city: "London",
          phone: "+44 20 0000",
          birthday: "1815-12-10"
        })
        const phone = expectStatus(yield* server.request("GET", `/person/${phoned}`, { token: org.token }), 200).body
        expect(phone.phone).toBe("+1 555 0001")
        const gone = expectStatus(yield* server.request("GET", `/person/${archived}`, { token: org.token }), 200).body
        expect(gone).toMatchObject({ archived: true, company: "Old Co" })
        const fresh = expectStatus(yield* server.request("GET", `/person/search?email=${encodeURIComponent(archivedEmail)}`, { token: org.token }), 200).body
        expect(fresh.persons).toHaveLength(1)
        expect(fresh.persons[0]).toMatchObject({ firstName: "New", company: "New Co", archived: false })
        expect(fresh.persons[0].personId).not.toBe(archived)
      }))

    it.scoped("custom fields: custom:<name> or the name alone, validated as PUT /person/:id does, blank ones filled", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-custom-${process.pid}`)
        yield* customField(server, org.token, { fieldName: "Dietary needs", fieldType: "text" })
        yield* customField(server, org.token, { fieldName: "Score", fieldType: "number" })
        yield* customField(server, org.token, { fieldName: "__proto__", fieldType: "text" })
        yield* customField(server, org.token, {
          fieldName: "Tags",
          fieldType: "multiselect",
          options: [{ value: "VIP", color: "#ff0000" }, { value: "a;b", color: "#00ff00" }, { value: "Speaker", color: "#0000ff" }]
        })
        const known = uniqueEmail("known")
        const knownId = yield* createPerson(server, { email: known }, org.token)
        expectStatus(yield* server.request("PUT", `/person/${knownId}`, { token: org.token, body: { personId: knownId, customFields: { Score: "5" } } }), 200)

        const before = yield* digest(server)
        const bad = "email,firstName,lastName,custom:Score,Tags,custom:Nope\n" +
          `${uniqueEmail("c1")},A,B,12a,VIP,x\n` +
          `${uniqueEmail("c2")},A,B,3,VIP; Nobody,\n`
        const refused = expectStatus(yield* importContactsCsv(server, bad, { token: org.token }), 422).body
        expect(refused.errors).toEqual([
          { row: 1, column: "custom:Score", message: "Score takes a number" },
          { row: 2, column: "Tags", message: "not an option of Tags" }
        ])
        expect(refused.unknownColumns).toEqual(["custom:Nope"])
        expect(yield* digest(server)).toBe(before)

        const newEmail = uniqueEmail("c3")
        const good = "Email,First name,Last name,custom: score,TAGS,dietary needs,custom:__proto__\n" +
          `${newEmail},C,D,0042.10,"speaker ; A;B ;VIP",vegan,proto\n` +
          `${known},,,99,VIP,halal,\n`
        const report = expectStatus(yield* importContactsCsv(server, good, { token: org.token }), 200).body
        expect(report).toMatchObject({ created: 1, updated: 1, unchanged: 0, errors: [], unknownColumns: [] })
        const found = expectStatus(yield* server.request("GET", `/person/search?email=${encodeURIComponent(newEmail)}`, { token: org.token }), 200).body
        const created = expectStatus(yield* server.request("GET", `/person/${found.persons[0].personId}`, { token: org.token }), 200).body
        expect(created.customFields).toEqual({ "Dietary needs": "vegan", Score: "0042.10", ["__proto__"]: "proto", Tags: ["Speaker", "a;b", "VIP"] })
        const updated = expectStatus(yield* server.request("GET", `/person/${knownId}`, { token: org.token }), 200).body
        // Score had a value (kept); Tags and Dietary needs were blank (filled)
        expect(updated.customFields).toEqual({ Score: "5", "Dietary needs": "halal", Tags: ["VIP"] })
      }))

    it.effect("roles: a Viewer may export but not import (403, before the body is read); no credentials 401", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
        const add = (role: string) =>
          Effect.gen(function*() {
            const email = uniqueEmail(role.replace(" ", "").toLowerCase())
            const password = `pw-${email}`
            expectStatus(yield* server.request("POST", "/member", {
              token: null,
              headers: owner.headers,
              body: { email, password, firstName: "M", lastName: role, role }
            }), 200)
            return (yield* login(server, email, password, "acme")).headers
          })
        const viewer = yield* add("Viewer")
        const teamMember = yield* add("Team Member")
        const csv = `email,firstName,lastName\n${uniqueEmail("role")},R,S\n`
        expect((yield* exportContactsCsv(server, { headers: viewer })).header[0]).toBe("personId")
        expectError(yield* importContactsCsv(server, csv, { token: null, headers: viewer }), 403, "forbidden")
        // the role is checked before the body: even an unreadable one gets 403
        expectError(yield* importContactsCsv(server, Buffer.from([0xff, 0xfe, 0x00]), { token: null, headers: viewer }), 403, "forbidden")
        expectError(yield* importContactsCsv(server, csv, { token: null }), 401, "unauthorized")
        expectError(yield* server.request("GET", "/person/export", { token: null }), 401, "unauthorized")
        expect(expectStatus(yield* importContactsCsv(server, csv, { token: null, headers: teamMember }), 200).body.created).toBe(1)
      }))

    it.effect("an Idempotency-Key replays the first answer for the same CSV, and refuses another CSV with 422", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization(`csv-idem-${process.pid}`)
        const csv = `email,firstName,lastName\n${uniqueEmail("idem")},I,D\n`
        const key = { "idempotency-key": `csv-${process.pid}` }
        const first = expectStatus(yield* importContactsCsv(server, csv, { token: org.token, headers: key }), 200)
        expect(first.body.created).toBe(1)
        const replay = expectStatus(yield* importContactsCsv(server, csv, { token: org.token, headers: key }), 200)
        expect(replay.headers.get("idempotent-replayed")).toBe("true")
        expect(replay.text).toBe(first.text)
        expect((yield* exportContactsCsv(server, { token: org.token })).rows).toHaveLength(1)
        const other = `email,firstName,lastName\n${uniqueEmail("idem")},I,D\n`
        expectError(yield* importContactsCsv(server, other, { token: org.token, headers: key }), 422, "idempotency_key_reused")
        // the query is part of the request: a dry run is another request
        expectError(yield* importContactsCsv(server, csv, { token: org.token, headers: key, query: "?dryRun=true" }), 422, "idempotency_key_reused")
        // a refused import (422 with the report) is replayed too
        const badKey = { "idempotency-key": `csv-bad-${process.pid}` }
        const bad = `email,firstName,lastName\nnot-an-email,I,D\n`
        const refused = expectStatus(yield* importContactsCsv(server, bad, { token: org.token, headers: badKey }), 422)
        const again = expectStatus(yield* importContactsCsv(server, bad, { token: org.token, headers: badKey }), 422)
        expect(again.headers.get("idempotent-replayed")).toBe("true")
        expect(again.text).toBe(refused.text)
      }))

    it.effect("/openapi.json documents both endpoints with their statuses", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const spec = expectStatus(yield* server.request("GET", "/openapi.json", { token: null }), 200).body
        const exported = spec.paths["/person/export"].get
        expect(Object.keys(exported.responses).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500"])
        expect(Object.keys(exported.responses["200"].content)).toEqual(["text/csv"])
        expect(exported.parameters.map((p: { name: string }) => p.name)).toContain("archived")
        const imported = spec.paths["/person/import"].post
        expect(Object.keys(imported.responses).sort()).toEqual(["200", "400", "401", "403", "404", "409", "413", "422", "429", "500"])
        expect(Object.keys(imported.requestBody.content)).toEqual(["text/csv"])
        expect(imported.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["dryRun", "Idempotency-Key"]))
        expect(imported.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/PersonImportReport" })
        expect(JSON.stringify(imported.responses["422"])).toContain("import_rejected")
        expect(JSON.stringify(imported.responses["422"])).toContain("IdempotencyKeyReused")
        expect(JSON.stringify(imported.responses["413"])).toContain("10485760")
      }))
  })
})
