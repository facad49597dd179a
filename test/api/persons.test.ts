import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createEvent, createPerson, createPersonWith, expectError, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

layer(testServer(), { excludeTestServices: true })("persons", (it) => {
  describe("POST /person and GET /person/:id", () => {
    it.effect("creates a person (201) and reads every field back", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const email = uniqueEmail("grace")
        const created = yield* server.request("POST", "/person", {
          body: {
            firstName: "  Grace ",
            lastName: "Hopper",
            email,
            company: "Navy",
            position: "Rear Admiral",
            phone: "+1 555 0100",
            birthday: "1906-12-09",
            address: "1 Main St",
            apartment: "4B",
            city: "Arlington",
            state: "VA",
            country: "US",
            postalCode: "22201",
            contextNote: "met at a conference",
            unknownField: "ignored"
          }
        })
        expectStatus(created, 201)
        expect(Object.keys(created.body)).toEqual(["personId"])
        const person = expectStatus(yield* server.request("GET", `/person/${created.body.personId}`), 200).body
        expect(person).toMatchObject({
          personId: created.body.personId,
          firstName: "Grace",
          lastName: "Hopper",
          email,
          company: "Navy",
          position: "Rear Admiral",
          phone: "+1 555 0100",
          birthday: "1906-12-09",
          address: "1 Main St",
          apartment: "4B",
          city: "Arlington",
          state: "VA",
          country: "US",
          postalCode: "22201",
          archived: false,
          customFields: {},
          customFieldsDetailed: [],
          eventHistory: []
        })
        expect(person).not.toHaveProperty("unknownField")
      }))

    it.effect("refuses missing or invalid fields with 400 and saves nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const email = uniqueEmail()
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ lastName: "L", email }, "firstName"],
          [{ firstName: "A", lastName: "L" }, "email"],
          [{ firstName: "  ", lastName: "L", email }, "firstName"],
          [{ firstName: "A", lastName: "L", email: "not-an-email" }, "email"],
          [{ firstName: "A", lastName: "L", email, birthday: "2021-02-30" }, "birthday"],
          [{ firstName: "A", lastName: "L", email, birthday: "12/09/1906" }, "birthday"],
          [{ firstName: "A", lastName: "L", email, birthday: null }, "birthday"],
          [{ firstName: "A", lastName: "L", email, birthday: "" }, "birthday"],
          [{ firstName: 42, lastName: "L", email }, "firstName"],
          [{ firstName: "A", lastName: "L", email, company: ["x"] }, "company"]
        ]
        for (const [body, path] of cases) {
          const reply = expectError(yield* server.request("POST", "/person", { body }), 400, "invalid_request")
          expect(reply.body.issues.map((i: { path: string }) => i.path)).toContain(path)
        }
        const search = yield* server.request("GET", `/person/search?email=${encodeURIComponent(email)}`)
        expect(search.body.total).toBe(0)
      }))

    it.effect("answers 409 for an email held by an active person, compared case-insensitively", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const email = uniqueEmail("dup")
        yield* createPerson(server, { email })
        const again = yield* server.request("POST", "/person", {
          body: { firstName: "B", lastName: "C", email: email.toUpperCase() }
        })
        expectError(again, 409, "conflict")
      }))

    it.effect("gives exactly one 201 for 50 concurrent creates of one email", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const email = uniqueEmail("race")
        const replies = yield* Effect.all(
          Array.from({ length: 50 }, () =>
            server.request("POST", "/person", { body: { firstName: "R", lastName: "C", email } })),
          { concurrency: "unbounded" }
        )
        expect(replies.filter((r) => r.status === 201)).toHaveLength(1)
        expect(replies.filter((r) => r.status === 409)).toHaveLength(49)
      }))

    it.effect("answers 404 for an unknown id", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        expectError(yield* server.request("GET", "/person/00000000-0000-0000-0000-000000000000"), 404, "not_found")
      }))
  })

  describe("GET /person", () => {
    it.effect("lists active persons in creation order with limit and skip", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("list-order")
        const client = yield* server.clientAs(org.token)
        const ids: Array<string> = []
        for (let i = 0; i < 5; i++) ids.push(yield* createPersonWith(client, { firstName: `P${i}` }))
        yield* client.persons.archive({ path: { id: ids[1]! } })
        const all = yield* client.persons.list({ urlParams: {} })
        expect(all.persons.map((p) => p.personId)).toEqual([ids[0], ids[2], ids[3], ids[4]])
        expect(all.persons[0]!.customFields).toEqual({})
        const page = yield* client.persons.list({ urlParams: { limit: 2, skip: 1 } })
        expect(page.persons.map((p) => p.personId)).toEqual([ids[2], ids[3]])
      }))

    it.effect("refuses a limit or skip out of range with 400", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        for (const query of ["limit=0", "limit=101", "limit=abc", "limit=1.5", "skip=-1", "skip=x"]) {
          const reply = expectError(yield* server.request("GET", `/person?${query}`), 400, "invalid_request")
          expect(reply.body.issues[0].path).toBe(query.split("=")[0])
        }
        expectStatus(yield* server.request("GET", "/person?limit=100&skip=0"), 200)
      }))

    it.effect("pages far from the start (found from the per-block counts) are the pages of the directory in order", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("deep-pages")
        const other = yield* server.organization("deep-pages-other")
        const importRows = (from: number, to: number) =>
          Effect.map(
            server.request("POST", "/person/import", {
              token: org.token,
              headers: { "content-type": "text/csv" },
              rawBody: ["email,firstName,lastName", ...Array.from({ length: to - from }, (_, i) => `deep${from + i}@blocks.test,Deep,P${from + i}`)].join("\n")
            }),
            (reply) => expect(expectStatus(reply, 200).body).toMatchObject({ created: to - from, errors: [] })
          )
        // another organization's persons take ids between this one's
        yield* importRows(0, 6_000)
        const others = [yield* createPerson(server, {}, other.token), yield* createPerson(server, {}, other.token)]
        yield* importRows(6_000, 12_500)
        const exported = expectStatus(yield* server.request("GET", "/person/export", { token: org.token }), 200).text
          .split("\r\n").slice(1).filter((line) => line !== "").map((line) => line.split(",")[0]!)
        expect(exported).toHaveLength(12_500)
        // archives move later persons' places; an unarchived person takes its place back
        for (const at of [3, 5_000, 10_020, 10_021, 12_000]) expectStatus(yield* server.request("DELETE", `/person/${exported[at]}`, { token: org.token }), 200)
        expectStatus(yield* server.request("POST", `/person/${exported[5_000]}/unarchive`, { token: org.token }), 200)
        expectStatus(yield* server.request("DELETE", `/person/${others[0]}`, { token: other.token }), 200)
        const active = exported.filter((_, at) => ![3, 10_020, 10_021, 12_000].includes(at))
        for (const [skip, limit] of [[9_999, 100], [10_000, 100], [10_001, 7], [10_016, 10], [11_263, 100], [12_400, 100], [12_490, 100], [12_496, 5], [12_497, 5], [20_000, 10]] as const) {
          const page = expectStatus(yield* server.request("GET", `/person?limit=${limit}&skip=${skip}`, { token: org.token }), 200).body
          expect({ skip, limit, ids: page.persons.map((p: { personId: string }) => p.personId) })
            .toEqual({ skip, limit, ids: active.slice(skip, skip + limit) })
        }
      }), 120_000)
  })

  describe("GET /person/search", () => {
    it.effect("finds by case-insensitive substring of first, last or full name", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("search-names")
        const client = yield* server.clientAs(org.token)
        const a = yield* createPersonWith(client, { firstName: "Marie", lastName: "Curie" })
        const b = yield* createPersonWith(client, { firstName: "Pierre", lastName: "Curie" })
        yield* createPersonWith(client, { firstName: "Ada", lastName: "Lovelace" })
        const search = (urlParams: Parameters<typeof client.persons.search>[0]["urlParams"]) => client.persons.search({ urlParams })
        const ids = (found: { readonly persons: ReadonlyArray<{ readonly personId: string }> }) => found.persons.map((p) => p.personId)
        expect(ids(yield* search({ query: "curie" }))).toEqual([a, b])
        expect(ids(yield* search({ query: "MARIE C" }))).toEqual([a])
        expect(ids(yield* search({ query: "erre" }))).toEqual([b])
        expect(yield* search({ query: "curie" })).toMatchObject({ total: 2, limit: 50, skip: 0 })
        const paged = yield* search({ query: "curie", limit: 1, skip: 1 })
        expect(paged).toMatchObject({ total: 2, limit: 1, skip: 1 })
        expect(ids(paged)).toEqual([b])
        // the total is the same whether the page is full, short, or past the end
        expect(yield* search({ query: "curie", limit: 1, skip: 0 })).toMatchObject({ total: 2, skip: 0 })
        expect(yield* search({ query: "curie", limit: 5, skip: 1 })).toMatchObject({ total: 2, skip: 1 })
        const past = yield* search({ query: "curie", limit: 5, skip: 7 })
        expect(past).toMatchObject({ total: 2, skip: 7 })
        expect(past.persons).toEqual([])
        expect(yield* search({ query: "curie", limit: 2, skip: 2 })).toMatchObject({ total: 2, persons: [] })
        expect(yield* search({ email: "nobody@x.example", skip: 3 })).toMatchObject({ total: 0, persons: [] })
      }))

    it.effect("keeps the name index in step with creates, renames and archives", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("search-index")
        const as = { token: org.token }
        const ids = (reply: { body: { persons: Array<{ personId: string }> } }) => reply.body.persons.map((p) => p.personId)
        const q = (query: string, extra = "") => server.request("GET", `/person/search?query=${encodeURIComponent(query)}${extra}`, as)
        const id = yield* createPerson(server, { firstName: "Bartholomew", lastName: "Quill" }, org.token)
        expect(ids(yield* q("tholo"))).toEqual([id])
        expect(ids(yield* q("w qu"))).toEqual([id])
        expectStatus(yield* server.request("PUT", `/person/${id}`, { ...as, body: { personId: id, firstName: "Zebediah" } }), 200)
        expect(ids(yield* q("tholo"))).toEqual([])
        expect(ids(yield* q("zebed"))).toEqual([id])
        expect(ids(yield* q("Zebediah Quill"))).toEqual([id])
        // a failed update (email taken) leaves the index as it was
        const other = yield* createPerson(server, {}, org.token)
        const taken = (yield* server.request("GET", `/person/${other}`, as)).body.email
        expectError(yield* server.request("PUT", `/person/${id}`, { ...as, body: { personId: id, firstName: "Ignored", email: taken } }), 409, "conflict")
        expect(ids(yield* q("ignored"))).toEqual([])
        expect(ids(yield* q("zebed"))).toEqual([id])
        yield* server.request("DELETE", `/person/${id}`, as)
        expect(ids(yield* q("zebed"))).toEqual([])
        expect(ids(yield* q("zebed", "&includeArchived=true"))).toEqual([id])
        // short queries still find substrings (no index for fewer than three characters)
        expect(ids(yield* q("qu", "&includeArchived=1"))).toContain(id)
      }))

    it.effect("treats LIKE metacharacters literally", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("search-meta")
        const pct = yield* createPerson(server, { firstName: "100%", lastName: "Sure" }, org.token)
        yield* createPerson(server, { firstName: "Plain", lastName: "Name" }, org.token)
        const reply = yield* server.request("GET", `/person/search?query=${encodeURIComponent("%")}`, { token: org.token })
        expect(reply.body.persons.map((p: { personId: string }) => p.personId)).toEqual([pct])
        const underscore = yield* server.request("GET", `/person/search?query=_`, { token: org.token })
        expect(underscore.body.total).toBe(0)
      }))

    it.effect("finds by exact email, case-insensitively, and excludes archived unless asked", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const email = uniqueEmail("Search.Me")
        const id = yield* createPerson(server, { email })
        const found = yield* server.request("GET", `/person/search?email=${encodeURIComponent(email.toUpperCase())}`)
        expect(found.body.persons.map((p: { personId: string }) => p.personId)).toEqual([id])
        expect(found.body.persons[0].email).toBe(email)
        const partial = yield* server.request("GET", `/person/search?email=${encodeURIComponent(email.slice(1))}`)
        expect(partial.body.total).toBe(0)
        yield* server.request("DELETE", `/person/${id}`)
        const hidden = yield* server.request("GET", `/person/search?email=${encodeURIComponent(email)}`)
        expect(hidden.body.total).toBe(0)
        for (const flag of ["true", "1"]) {
          const shown = yield* server.request("GET", `/person/search?email=${encodeURIComponent(email)}&includeArchived=${flag}`)
          expect(shown.body.persons.map((p: { personId: string; archived: boolean }) => [p.personId, p.archived])).toEqual([[id, true]])
        }
        for (const flag of ["false", "0"]) {
          const off = yield* server.request("GET", `/person/search?email=${encodeURIComponent(email)}&includeArchived=${flag}`)
          expect(off.body.total).toBe(0)
        }
        expectError(yield* server.request("GET", `/person/search?email=${encodeURIComponent(email)}&includeArchived=yes`), 400, "invalid_request")
      }))

    it.effect("needs exactly one of query and email", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        expectError(yield* server.request("GET", "/person/search"), 400, "invalid_request")
        expectError(yield* server.request("GET", "/person/search?query=a&email=a@b.co"), 400, "invalid_request")
        expectError(yield* server.request("GET", "/person/search?query="), 400, "invalid_request")
        expectError(yield* server.request("GET", "/person/search?query=a&limit=500"), 400, "invalid_request")
      }))
  })

  describe("GET /person/search against a naive substring filter", () => {
    /**
     * Random names over a small alphabet (so that terms match often), with letters whose lower
     * case is special (`İ` lower-cases to two characters, `ǅ` is title case, `ς`/`σ` and `ß` fold
     * elsewhere but not under `toLowerCase`), an emoji (two UTF-16 units, four UTF-8 bytes) and
     * LIKE's metacharacters. Persons come from every write path that makes or renames them (one by
     * one, contacts and guest-list CSV imports, guest lists, renames, bulk updates); after
     * each round every term must find exactly what `name.toLowerCase().includes(term.toLowerCase())`
     * finds over the persons as the API reads them back: the same ids in creation order, the same
     * total, with and without archived persons, whole and in random pages. The seed is printed
     * with a failure (SEARCH_SEED=<n> repeats a run).
     */
    const ALPHABET = ["a", "b", "n", "e", "é", "o", "ß", "ς", "σ", "İ", "K", "ǅ", "😀", "Ա", "ա", "-", "%", "_", "\\", " "]

    it.effect("finds the same persons, total and order, after creates, imports, guest lists, renames and archives", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const seed = Number(process.env["SEARCH_SEED"] ?? Math.floor(Math.random() * 2 ** 31))
        let state = seed
        const random = () => {
          // mulberry32
          state = (state + 0x6d2b79f5) | 0
          let t = Math.imul(state ^ (state >>> 15), 1 | state)
          t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
          return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
        }
        const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(random() * items.length)]!
        const word = (min: number, max: number) => {
          const length = min + Math.floor(random() * (max - min + 1))
          return Array.from({ length }, () => pick(ALPHABET)).join("")
        }
        const name = () => word(1, 5).trim() || pick(["a", "ǅ", "😀"])
        const org = yield* server.organization(`search-naive-${seed}`)
        const other = yield* server.organization(`search-naive-other-${seed}`)
        const as = { token: org.token }
        const ids: Array<string> = []

        // persons of another organization, with the same kind of names: never found
        for (let i = 0; i < 5; i++) {
          yield* createPerson(server, { firstName: name(), lastName: name() }, other.token)
        }
        // created one by one
        for (let i = 0; i < 20; i++) ids.push(yield* createPerson(server, { firstName: name(), lastName: name() }, org.token))
        // a CSV import
        const imported = Array.from({ length: 12 }, () => ({ firstName: name(), lastName: name(), email: uniqueEmail("import") }))
        const csv = ["firstName,lastName,email", ...imported.map((p) => [p.firstName, p.lastName, p.email].map((v) => `"${v}"`).join(","))].join("\r\n")
        expectStatus(yield* server.request("POST", "/person/import", { ...as, rawBody: csv, headers: { "content-type": "text/csv" } }), 200)
        for (const person of imported) {
          const found = yield* server.request("GET", `/person/search?email=${encodeURIComponent(person.email)}`, as)
          ids.push(found.body.persons[0].personId)
        }
        // a guest list's new persons
        const event = yield* createEvent(server, {}, org.token)
        const added = expectStatus(
          yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
            ...as,
            body: { guests: Array.from({ length: 8 }, () => ({ firstName: name(), lastName: name(), email: uniqueEmail("guest") })) }
          }),
          200
        )
        for (const guest of added.body.guests) ids.push(guest.personId)
        // a guest list's CSV import, which creates persons as the contacts import does
        const guestRows = Array.from({ length: 6 }, () => ({ firstName: name(), lastName: name(), email: uniqueEmail("guest-csv") }))
        const guestCsv = ["email,firstName,lastName", ...guestRows.map((p) => [p.email, p.firstName, p.lastName].map((v) => `"${v}"`).join(","))].join("\r\n")
        expectStatus(
          yield* server.request("POST", `/event/${event.eventId}/guestlist/import`, { ...as, rawBody: guestCsv, headers: { "content-type": "text/csv" } }),
          200
        )
        for (const person of guestRows) {
          const found = yield* server.request("GET", `/person/search?email=${encodeURIComponent(person.email)}`, as)
          ids.push(found.body.persons[0].personId)
        }

        const check = (round: string) =>
          Effect.gen(function*() {
            const persons: Array<{ personId: string; firstName: string; lastName: string; archived: boolean }> =
              expectStatus(yield* server.request("GET", `/person?ids=${ids.join(",")}`, as), 200).body.persons
            expect(persons).toHaveLength(ids.length)
            const names = persons.map((p) => `${p.firstName} ${p.lastName}`)
            const terms = [
              ...Array.from({ length: 30 }, () => {
                // a piece of a name, some of its letters upper-cased
                const characters = [...pick(names)]
                const start = Math.floor(random() * characters.length)
                const piece = characters.slice(start, start + 1 + Math.floor(random() * 5))
                return piece.map((c) => (random() < 0.3 ? c.toUpperCase() : c)).join("")
              }),
              ...Array.from({ length: 15 }, () => word(1, 4)),
              "a", "ς", "σ", "Σ", "İ", "i", "ss", "%", "_", "\\", "😀", "a b"
            ].map((term) => term.trim()).filter((term) => term !== "")
            for (const term of terms) {
              for (const includeArchived of [false, true]) {
                const expected = persons
                  .filter((p) => (includeArchived || !p.archived) && `${p.firstName} ${p.lastName}`.toLowerCase().includes(term.toLowerCase()))
                  .map((p) => p.personId)
                const query = `/person/search?query=${encodeURIComponent(term)}${includeArchived ? "&includeArchived=true" : ""}`
                const context = { seed, round, term, includeArchived }
                const whole = expectStatus(yield* server.request("GET", `${query}&limit=100`, as), 200).body
                expect({ ...context, ids: whole.persons.map((p: { personId: string }) => p.personId), total: whole.total })
                  .toEqual({ ...context, ids: expected, total: expected.length })
                const limit = 1 + Math.floor(random() * 4)
                const skip = Math.floor(random() * (expected.length + 2))
                const page = expectStatus(yield* server.request("GET", `${query}&limit=${limit}&skip=${skip}`, as), 200).body
                expect({ ...context, limit, skip, ids: page.persons.map((p: { personId: string }) => p.personId), total: page.total })
                  .toEqual({ ...context, limit, skip, ids: expected.slice(skip, skip + limit), total: expected.length })
              }
            }
          })
        yield* check("created")

        // renames one by one and in bulk, archives, and some of them restored
        const shuffled = [...ids].sort(() => random() - 0.5)
        for (const id of shuffled.slice(0, 8)) {
          const body = random() < 0.5 ? { personId: id, firstName: name() } : { personId: id, firstName: name(), lastName: name() }
          expectStatus(yield* server.request("PUT", `/person/${id}`, { ...as, body }), 200)
        }
        const bulk = shuffled.slice(8, 14).map((id) => ({ personId: id, lastName: name() }))
        expectStatus(yield* server.request("PUT", "/persons", { ...as, body: { persons: bulk } }), 200)
        const archived = shuffled.slice(4, 18)
        for (const id of archived) expectStatus(yield* server.request("DELETE", `/person/${id}`, as), 200)
        for (const id of archived.slice(0, 4)) expectStatus(yield* server.request("POST", `/person/${id}/unarchive`, as), 200)
        // renamed while archived
        expectStatus(yield* server.request("PUT", `/person/${archived[5]}`, { ...as, body: { personId: archived[5], firstName: name() } }), 200)
        yield* check("renamed and archived")
      }), 120_000)
  })

  describe("PUT /person/:id", () => {
    it.effect("updates fields; phoneNumber becomes the preferred phone; empty values clear", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer
        const id = yield* createPersonWith(client, { company: "Old Co", phone: "111" })
        const newEmail = uniqueEmail("renamed")
        expect(yield* client.persons.update({
          path: { id },
          payload: { personId: id, firstName: "Augusta", email: newEmail, phoneNumber: "222", company: "", city: "London" }
        })).toEqual({ success: true })
        const person = yield* client.persons.get({ path: { id } })
        expect(person).toMatchObject({ firstName: "Augusta", lastName: "Lovelace", email: newEmail, phone: "222", city: "London" })
        expect(person).not.toHaveProperty("company")
        yield* client.persons.update({ path: { id }, payload: { personId: id, phoneNumber: "111" } })
        expect((yield* client.persons.get({ path: { id } })).phone).toBe("111")
        expect((yield* client.persons.search({ urlParams: { email: newEmail } })).total).toBe(1)
      }))

    it.effect("needs personId equal to the path id (400) and a known person (404)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const id = yield* createPerson(server)
        expectError(yield* server.request("PUT", `/person/${id}`, { body: { personId: "other", firstName: "X" } }), 400, "invalid_request")
        expectError(yield* server.request("PUT", `/person/${id}`, { body: { firstName: "X" } }), 400, "invalid_request")
        expectError(
          yield* server.request("PUT", "/person/unknown", { body: { personId: "unknown", firstName: "X" } }),
          404,
          "not_found"
        )
        expect((yield* server.request("GET", `/person/${id}`)).body.firstName).toBe("Ada")
      }))

    it.effect("answers 409 when the new email belongs to another active person, changing nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const taken = uniqueEmail("taken")
        yield* createPerson(server, { email: taken })
        const id = yield* createPerson(server)
        const reply = yield* server.request("PUT", `/person/${id}`, { body: { personId: id, email: taken, firstName: "Changed" } })
        expectError(reply, 409, "conflict")
        expect((yield* server.request("GET", `/person/${id}`)).body.firstName).toBe("Ada")
      }))

    it.effect("keeps SMS consent for the phone (source api)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const id = yield* createPerson(server)
        expectError(yield* server.request("PUT", `/person/${id}`, { body: { personId: id, smsConsent: "optedIn" } }), 400, "invalid_request")
        expectStatus(yield* server.request("PUT", `/person/${id}`, { body: { personId: id, phoneNumber: "+15550001", smsConsent: "optedIn" } }), 200)
        expectError(yield* server.request("PUT", `/person/${id}`, { body: { personId: id, smsConsent: "yes" } }), 400, "invalid_request")
      }))
  })

  describe("custom fields", () => {
    it.effect("defines fields, validates values and shows them in both forms", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const org = yield* server.organization("fields")
        const as = { token: org.token }
        const tshirt = expectStatus(yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: "T-Shirt", fieldType: "text" } }), 200).body
        expect(tshirt).toMatchObject({ fieldName: "T-Shirt", fieldType: "text", options: [] })
        const visits = expectStatus(yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: "Visits", fieldType: "number" } }), 200).body
        const topics = expectStatus(
          yield* server.request("POST", "/custom-field", {
            ...as,
            body: { fieldName: "Topics", fieldType: "multiselect", options: [{ value: "Math", color: "#ff0000" }, { value: "Code", color: "#00FF00" }] }
          }),
          200
        ).body
        expect(topics.options.map((o: { value: string; color: string }) => [o.value, o.color])).toEqual([["Math", "#ff0000"], ["Code", "#00FF00"]])
        expectError(yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: "t-shirt", fieldType: "text" } }), 409, "conflict")
        expectError(
          yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: "X", fieldType: "text", options: [{ value: "a", color: "#fff" }] } }),
          400,
          "invalid_request"
        )
        expectError(yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: "Y", fieldType: "multiselect" } }), 400, "invalid_request")
        expectError(
          yield* server.request("POST", "/custom-field", { ...as, body: { fieldName: "Z", fieldType: "multiselect", options: [{ value: "a", color: "red" }] } }),
          400,
          "invalid_request"
        )
        const listed = expectStatus(yield* server.request("GET", "/custom-field", as), 200).body
        expect(listed.customFields.map((f: { fieldName: string }) => f.fieldName)).toEqual(["T-Shirt", "Visits", "Topics"])

        const id = yield* createPerson(server, {}, org.token)
        const ok = yield* server.request("PUT", `/person/${id}`, {
          ...as,
          body: {
            personId: id,
            customFields: [{ fieldId: tshirt.fieldId, value: "L" }, { fieldName: "visits", value: 3 }],
            customFieldMultiselect: [
              { fieldId: topics.fieldId, value: "Math" },
              { fieldId: topics.fieldId, value: topics.options[1].id }
            ]
          }
        })
        expectStatus(ok, 200)
        const person = (yield* server.request("GET", `/person/${id}`, as)).body
        expect(person.customFields).toEqual({ "T-Shirt": "L", Visits: "3", Topics: ["Math", "Code"] })
        const detailed = person.customFieldsDetailed
        expect(detailed.map((d: { fieldName: string; fieldType: string; value: unknown }) => [d.fieldName, d.fieldType, d.value])).toEqual([
          ["T-Shirt", "text", "L"],
          ["Visits", "number", "3"],
          ["Topics", "multiselect", ["Math", "Code"]]
        ])
        expect(detailed[2].options).toHaveLength(2)
        expect(typeof detailed[0].valueId).toBe("string")
        expect(detailed[0]).not.toHaveProperty("options")

        // legacy object form, and replacing all values of a multiselect field
        expectStatus(
          yield* server.request("PUT", `/person/${id}`, {
            ...as,
            body: { personId: id, customFields: { "T-Shirt": "M" }, customFieldMultiselect: [{ fieldId: topics.fieldId, value: "Code" }] }
          }),
          200
        )
        const listedPerson = (yield* server.request("GET", "/person", as)).body.persons.find((p: { personId: string }) => p.personId === id)
        expect(listedPerson.customFields).toEqual({ "T-Shirt": "M", Visits: "3", Topics: ["Code"] })

        // invalid values: 400 and nothing saved, not even the valid parts of the request
        for (const body of [
          { customFields: [{ fieldName: "Nope", value: "x" }] },
          { customFields: [{ fieldId: visits.fieldId, value: "many" }] },
          { customFieldMultiselect: [{ fieldId: topics.fieldId, value: "Art" }] },
          { customFields: [{ fieldId: topics.fieldId, value: "Math" }] },
          { customFieldMultiselect: [{ fieldId: tshirt.fieldId, value: "L" }] }
        ]) {
          expectError(
            yield* server.request("PUT", `/person/${id}`, { ...as, body: { personId: id, firstName: "Changed", ...body } }),
            400,
            "invalid_request"
          )
        }
        const after = (yield* server.request("GET", `/person/${id}`, as)).body
        expect(after.firstName).toBe("Ada")
        expect(after.customFields).toEqual({ "T-Shirt": "M", Visits: "3", Topics: ["Code"] })
      }))
  })

  describe("PUT /persons (bulk)", () => {
    it.effect("applies each item on its own and reports per item, in order", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const taken = uniqueEmail("bulk-taken")
        yield* createPerson(server, { email: taken })
        const a = yield* createPerson(server)
        const b = yield* createPerson(server)
        const reply = yield* server.request("PUT", "/persons", {
          body: {
            persons: [
              { personId: a, city: "Paris" },
              { personId: "missing", city: "Rome" },
              { personId: b, email: taken },
              { personId: b, birthday: "not a date" },
              { city: "Nowhere" },
              { personId: b, city: "Oslo" }
            ]
          }
        })
        expectStatus(reply, 200)
        expect(reply.body.results.map((r: { personId: string | null; success: boolean; error?: { code: string } }) => [r.personId, r.success, r.error?.code])).toEqual([
          [a, true, undefined],
          ["missing", false, "not_found"],
          [b, false, "conflict"],
          [b, false, "invalid_request"],
          [null, false, "invalid_request"],
          [b, true, undefined]
        ])
        expect((yield* server.request("GET", `/person/${a}`)).body.city).toBe("Paris")
        const person = (yield* server.request("GET", `/person/${b}`)).body
        expect(person.city).toBe("Oslo")
        expect(person.email).not.toBe(taken)
      }))

    it.effect("takes 1 to 100 items", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        expectError(yield* server.request("PUT", "/persons", { body: { persons: [] } }), 400, "invalid_request")
        const many = Array.from({ length: 101 }, () => ({ personId: "x" }))
        expectError(yield* server.request("PUT", "/persons", { body: { persons: many } }), 400, "invalid_request")
        expectError(yield* server.request("PUT", "/persons", { body: {} }), 400, "invalid_request")
        const hundred = Array.from({ length: 100 }, () => ({ personId: "x" }))
        expect(expectStatus(yield* server.request("PUT", "/persons", { body: { persons: hundred } }), 200).body.results).toHaveLength(100)
      }))
  })

  describe("archive and unarchive", () => {
    it.effect("archives, keeps the person readable, and restores unless the email is taken", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer
        const email = uniqueEmail("archived")
        const id = yield* createPersonWith(client, { email })
        expect(yield* client.persons.archive({ path: { id } })).toEqual({ success: true })
        expect((yield* client.persons.get({ path: { id } })).archived).toBe(true)
        const replacement = yield* createPersonWith(client, { email })
        expect((yield* Effect.flip(client.persons.unarchive({ path: { id } })))._tag).toBe("Conflict")
        yield* client.persons.archive({ path: { id: replacement } })
        expect(yield* client.persons.unarchive({ path: { id } })).toEqual({ success: true })
        expect((yield* client.persons.get({ path: { id } })).archived).toBe(false)
        expect((yield* Effect.flip(client.persons.archive({ path: { id: "nope" } })))._tag).toBe("NotFound")
      }))
  })

  describe("tenancy", () => {
    it.effect("treats another organization's person as unknown (404) and allows the same email there", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const other = yield* server.organization("other-org")
        const theirs = yield* server.clientAs(other.token)
        const email = uniqueEmail("shared")
        const mine = yield* createPersonWith(server.client, { email })
        yield* createPersonWith(theirs, { email })
        const unknown = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(effect), (e) => e._tag)
        expect(yield* unknown(theirs.persons.get({ path: { id: mine } }))).toBe("NotFound")
        expect(yield* unknown(theirs.persons.update({ path: { id: mine }, payload: { personId: mine, firstName: "X" } }))).toBe("NotFound")
        expect(yield* unknown(theirs.persons.archive({ path: { id: mine } }))).toBe("NotFound")
        expect(yield* unknown(theirs.persons.unarchive({ path: { id: mine } }))).toBe("NotFound")
        const search = yield* theirs.persons.search({ urlParams: { email } })
        expect(search.persons.map((p) => p.personId)).not.toContain(mine)
        expect((yield* server.client.persons.get({ path: { id: mine } })).firstName).toBe("Ada")
      }))
  })
})
