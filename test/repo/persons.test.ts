/**
 * Persons over the database, on the suite's engine (the API's proof: test/api/persons.test.ts,
 * test/api/stored-values.test.ts): one active person per email however many create it at once;
 * search by name (a case-insensitive substring, LIKE's metacharacters as text) and by exact email;
 * pages far from the start, found from the per-block counts (`persons_blocks`); custom fields in
 * both forms, names like `__proto__` included, and numbers that keep every digit; text of every
 * kind stored and read back as given.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { Caller } from "../../src/Domain/Caller.js"
import { CustomFields } from "../../src/Persons/CustomFields.js"
import { CreateCustomField, CreatePerson, UpdatePerson } from "../../src/Persons/Domain.js"
import { Persons } from "../../src/Persons/Persons.js"
import { onPostgres } from "../support/Engine.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const create = (caller: Caller, fields: Record<string, unknown>) =>
  Effect.flatMap(Persons, (persons) =>
    persons.create(caller, Schema.decodeUnknownSync(CreatePerson)({ firstName: "Ada", lastName: "Lovelace", ...fields })))

const update = (caller: Caller, id: string, fields: Record<string, unknown>) =>
  Effect.flatMap(Persons, (persons) => persons.update(caller, id, Schema.decodeUnknownSync(UpdatePerson)({ personId: id, ...fields })))

const field = (caller: Caller, fields: Record<string, unknown>) =>
  Effect.flatMap(CustomFields, (customFields) =>
    customFields.create(caller.organizationId, Schema.decodeUnknownSync(CreateCustomField)(fields)))

/** A CSV import of `from` to `to` persons (`deep<n>@blocks.test`), as POST /person/import runs it. */
const importRange = (caller: Caller, from: number, to: number) =>
  Effect.flatMap(Persons, (persons) =>
    persons.importCsv(
      caller,
      ["email,firstName,lastName", ...Array.from({ length: to - from }, (_, i) => `deep${from + i}@blocks.test,Deep,P${from + i}`)].join("\n"),
      {}
    ))

// PostgreSQL's text holds no NUL: the service writes U+FFFD there instead (src/Db/Postgres.ts)
const nul = onPostgres ? "\uFFFD" : "\u0000"

layer(testDatabase(), { excludeTestServices: true, timeout: 120_000 })("persons over the database", (it) => {
  it.effect("one active person per email, compared case-insensitively, however many create it at once", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("persons-unique")
      const results = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) => Effect.either(create(caller, { email: i % 2 === 0 ? "race@example.org" : "RACE@Example.org" })),
        { concurrency: "unbounded" }
      )
      expect(results.filter((r) => r._tag === "Right")).toHaveLength(1)
      expect(results.filter((r) => r._tag === "Left").map((r) => r._tag === "Left" && r.left._tag)).toEqual(Array(19).fill("Conflict"))
      // another organization may hold the same email
      const other = yield* db.organization("persons-unique-other")
      expect((yield* Effect.either(create(other.caller, { email: "race@example.org" })))._tag).toBe("Right")
    }))

  it.effect("search by name substring or exact email, archived persons only when asked; the name index follows renames and archives", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("persons-search")
      const persons = yield* Persons
      const names = [["Ada", "Lovelace"], ["Grace", "Hopper"], ["Adaline", "Ödegaard"], ["Zoë", "李小龍"], ["100%", "Real_Name"], ["Ann", "Adams"]]
      const ids: Array<string> = []
      for (const [i, [firstName, lastName]] of names.entries()) {
        ids.push((yield* create(caller, { firstName, lastName, email: `Person${i}@Search.test` })).personId)
      }
      const found = (query: string, extra: Record<string, unknown> = {}) =>
        Effect.map(persons.search(caller, { query, ...extra }), (r) => ({ total: r.total, names: r.persons.map((p) => `${p.firstName} ${p.lastName}`) }))
      expect(yield* found("ada")).toEqual({ total: 3, names: ["Ada Lovelace", "Adaline Ödegaard", "Ann Adams"] })
      expect(yield* found("LOVELACE")).toEqual({ total: 1, names: ["Ada Lovelace"] })
      expect(yield* found("ada love")).toEqual({ total: 1, names: ["Ada Lovelace"] })
      expect(yield* found("李小")).toEqual({ total: 1, names: ["Zoë 李小龍"] })
      expect(yield* found("ödeg")).toEqual({ total: 1, names: ["Adaline Ödegaard"] })
      expect(yield* found("0%")).toEqual({ total: 1, names: ["100% Real_Name"] })
      expect(yield* found("l%n")).toEqual({ total: 0, names: [] })
      expect(yield* found("l_n")).toEqual({ total: 1, names: ["100% Real_Name"] })
      expect(yield* found("e_a")).toEqual({ total: 0, names: [] })
      expect(yield* found("ada", { limit: 1, skip: 1 })).toEqual({ total: 3, names: ["Adaline Ödegaard"] })
      const byEmail = yield* persons.search(caller, { email: "person1@SEARCH.test" })
      expect(byEmail.persons.map((p) => p.personId)).toEqual([ids[1]])

      yield* update(caller, ids[0]!, { lastName: "Byron" })
      expect(yield* found("lovelace")).toEqual({ total: 0, names: [] })
      expect(yield* found("byron")).toEqual({ total: 1, names: ["Ada Byron"] })
      yield* persons.archive(caller, ids[1]!)
      expect((yield* found("hopper")).total).toBe(0)
      expect((yield* found("hopper", { includeArchived: true })).total).toBe(1)
      expect((yield* persons.search(caller, { email: "person1@search.test" })).total).toBe(0)
      expect((yield* persons.search(caller, { email: "person1@search.test", includeArchived: true })).total).toBe(1)
      yield* persons.unarchive(caller, ids[1]!)
      expect((yield* found("hopper")).total).toBe(1)
      // the dashboard's browse: the same finds, archived ones on their own
      const browsed = yield* persons.browse(caller, { term: "ada", archived: false, limit: 10, skip: 0 })
      expect(browsed.total).toBe(3)
    }))

  it.effect("pages far from the start, found from the per-block counts, are the pages of the directory in order", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("deep-pages")
      const other = yield* db.organization("deep-pages-other")
      const persons = yield* Persons
      // another organization's persons take ids between this one's
      expect((yield* importRange(caller, 0, 6_000)).created).toBe(6_000)
      const others = [(yield* create(other.caller, { email: "o1@example.org" })).personId, (yield* create(other.caller, { email: "o2@example.org" })).personId]
      expect((yield* importRange(caller, 6_000, 12_500)).created).toBe(6_500)
      const all: Array<string> = []
      for (let skip = 0; skip < 12_500; skip += 2_500) all.push(...(yield* persons.list(caller, { limit: 2_500, skip })).persons.map((p) => p.personId))
      expect(all).toHaveLength(12_500)
      // archives move later persons' places; an unarchived person takes its place back
      for (const at of [3, 5_000, 10_020, 10_021, 12_000]) yield* persons.archive(caller, all[at]!)
      yield* persons.unarchive(caller, all[5_000]!)
      yield* persons.archive(other.caller, others[0]!)
      const active = all.filter((_, at) => ![3, 10_020, 10_021, 12_000].includes(at))
      for (const [skip, limit] of [[9_999, 100], [10_000, 100], [10_001, 7], [10_016, 10], [11_263, 100], [12_400, 100], [12_490, 100], [12_496, 5], [12_497, 5], [20_000, 10]] as const) {
        const page = yield* persons.list(caller, { limit, skip })
        expect({ skip, limit, ids: page.persons.map((p) => p.personId) }).toEqual({ skip, limit, ids: active.slice(skip, skip + limit) })
      }
      const browsed = yield* persons.browse(caller, { term: "", archived: false, limit: 10, skip: 12_490 })
      expect({ total: browsed.total, ids: browsed.persons.map((p) => p.personId) }).toEqual({ total: 12_496, ids: active.slice(12_490) })
    }))

  it.effect("custom fields in both forms, any name, numbers with every digit; text of every kind as given", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("persons-fields")
      const persons = yield* Persons
      const tshirt = yield* field(caller, { fieldName: "T-Shirt", fieldType: "text" })
      const account = yield* field(caller, { fieldName: "Account", fieldType: "number" })
      const topics = yield* field(caller, { fieldName: "Topics", fieldType: "multiselect", options: [{ value: "Math", color: "#ff0000" }, { value: "Code", color: "#00FF00" }] })
      for (const fieldName of ["__proto__", "constructor"]) yield* field(caller, { fieldName, fieldType: "text" })
      expect((yield* Effect.either(field(caller, { fieldName: "t-shirt", fieldType: "text" })))._tag).toBe("Left")

      const text = `Zoë "Z" <b>\n\ttab \\ 李小龍 😀 \u2028 O'Brien ${nul}end`
      const { personId } = yield* create(caller, { email: "fields@example.org", contextNote: "note" })
      yield* update(caller, personId, {
        contextNote: text,
        customFields: [{ fieldId: tshirt.fieldId, value: "L" }, { fieldName: "account", value: "12345678901234567890123" }],
        customFieldMultiselect: [{ fieldId: topics.fieldId, value: "Math" }, { fieldId: topics.fieldId, value: topics.options[1]!.id }]
      })
      let read = yield* persons.get(caller, personId)
      expect(read.contextNote).toBe(text)
      expect(read.customFields).toEqual({ "T-Shirt": "L", Account: "12345678901234567890123", Topics: ["Math", "Code"] })
      expect(read.customFieldsDetailed.map((d) => [d.fieldName, d.fieldType, d.value])).toEqual([
        ["T-Shirt", "text", "L"],
        ["Account", "number", "12345678901234567890123"],
        ["Topics", "multiselect", ["Math", "Code"]]
      ])
      // the legacy object form (keys that are an object's own names too), replacing a multiselect's values
      const legacy = JSON.parse(`{"__proto__":"proto value","constructor":"ctor value","T-Shirt":"M"}`) as Record<string, string>
      yield* update(caller, personId, { customFields: legacy, customFieldMultiselect: [{ fieldId: topics.fieldId, value: "Code" }] })
      read = yield* persons.get(caller, personId)
      expect(Object.entries(read.customFields).sort()).toEqual(
        [["Account", "12345678901234567890123"], ["T-Shirt", "M"], ["Topics", ["Code"]], ["__proto__", "proto value"], ["constructor", "ctor value"]].sort()
      )
      // decimals, signs and leading zeros as written; an exact JSON number as its shortest text
      for (const value of ["0.10", "-3.1415926535897932384626", "007", 42.5]) {
        yield* update(caller, personId, { customFields: [{ fieldId: account.fieldId, value }] })
        expect((yield* persons.get(caller, personId)).customFields["Account"]).toBe(String(value))
      }
      // the list's form is the detail's
      const listed = (yield* persons.list(caller, { ids: personId })).persons[0]!
      expect(listed.customFields).toEqual((yield* persons.get(caller, personId)).customFields)
    }))

  it.effect("bulk updates apply each item on its own, reported in order", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const { caller } = yield* db.organization("persons-bulk")
      const persons = yield* Persons
      const a = (yield* create(caller, { email: "a@bulk.test" })).personId
      const b = (yield* create(caller, { email: "b@bulk.test" })).personId
      const { results } = yield* persons.bulkUpdate(caller, [
        { personId: a, firstName: "Alpha" },
        { personId: "unknown", firstName: "X" },
        { personId: b, email: "A@bulk.test" },
        { personId: b, company: "Beta Inc" }
      ])
      expect(results.map((r) => r.success)).toEqual([true, false, false, true])
      expect((yield* persons.get(caller, a)).firstName).toBe("Alpha")
      expect(yield* persons.get(caller, b)).toMatchObject({ email: "b@bulk.test", company: "Beta Inc" })
    }))
})
