/**
 * Hostile input, generated: every endpoint of the API gets bodies, query strings and path ids built
 * by fast-check (the copy `effect` ships) from a valid request, with fields swapped for wrong types,
 * nulls, huge and unicode strings, SQL and HTML metacharacters, deep nesting and prototype keys, and
 * bodies sent with duplicate keys, cut short, nested past the limit or under foreign content types.
 *
 * Whatever arrives, the server answers without a 5xx; every error carries the API's error body
 * (`{ message, code, issues? }`, docs/integrators.md#errors); a
 * request its endpoint's own schema rejects gets 400; and a refused request leaves the database as it
 * was, compared by a digest of every row of every table, read through a second SQLite connection.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Either, FastCheck as fc, Option, Schema } from "effect"
import { Api } from "../../src/Api.js"
import { csvBodyRoutes, MAX_CSV_BYTES } from "../../src/Csv/CsvBody.js"
import { digestOf, digestWith } from "../support/Digest.js"
import { openDatabase } from "../support/Engine.js"
import { createEvent, createPerson, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, type Reply, send, TestServer, testServer } from "../support/TestServer.js"

const RUNS = Number(process.env["HOSTILE_RUNS"] ?? 40)

// --- what a refusal must look like ------------------------------------------------------------

const CODES: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  422: "idempotency_key_reused",
  429: "rate_limited",
  // Node's HTTP parser: a request line and headers over 16 KiB
  431: "invalid_request"
}

/** The more specific codes some statuses also answer with (docs/integrators.md#error-codes). */
const OTHER_CODES: Record<number, ReadonlyArray<string>> = {
  // a valid request for email invitations on a server without SMTP_URL and MAIL_FROM
  409: ["email_not_configured"]
}

const checkRefusal = (reply: Reply, label: string) => {
  expect(reply.headers.get("content-type"), label).toMatch(/^application\/json/)
  expect(reply.body, label).toBeTypeOf("object")
  expect(Object.keys(reply.body).filter((k) => !["message", "code", "issues"].includes(k)), label).toEqual([])
  expect([CODES[reply.status], ...(OTHER_CODES[reply.status] ?? [])], label).toContain(reply.body.code)
  expect(reply.body.message, label).toBeTypeOf("string")
  if (reply.body.issues !== undefined) {
    for (const issue of reply.body.issues) {
      expect(Object.keys(issue).sort(), label).toEqual(["message", "path"])
      expect(issue.path, label).toBeTypeOf("string")
      expect(issue.message, label).toBeTypeOf("string")
    }
  }
  expect(reply.text, label).not.toMatch(/SQLITE|sqlite|\bat .*\.[jt]s:\d+|SELECT |INSERT |UPDATE /)
}

// --- hostile values -----------------------------------------------------------------------------

const METACHARACTERS = [
  "'; DROP TABLE persons; --",
  "\" OR 1=1 --",
  "Robert'); DELETE FROM events WHERE ('1'='1",
  "%",
  "_",
  "%_%",
  "\\",
  "\\\"",
  "<script>alert(1)</script>",
  "\"><img src=x onerror=alert(1)>",
  "{{7*7}}${7*7}",
  "../../etc/passwd",
  "\u0000",
  "a\u0000b",
  "\u202eevil",
  "\ud800",
  "😀👩‍👩‍👧‍👦",
  "𝕳𝖊𝖑𝖑𝖔",
  "Ω≈ç√∫",
  "　",
  " \t\n ",
  "null",
  "true",
  "0",
  "-1",
  "1e309",
  "NaN",
  "2024-02-30T25:61:00Z",
  "__proto__",
  "constructor"
]

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...METACHARACTERS) },
  { weight: 2, arbitrary: fc.fullUnicodeString({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("x", "é", "😀", "%'"), fc.integer({ min: 100, max: 120_000 })).map(([s, n]) => s.repeat(n)) }
)

const nested = (depth: number, leaf: unknown, asArray: boolean): unknown => {
  let value = leaf
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value }
  return value
}

const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308, 0.1),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom("__proto__", "constructor", "prototype")), tie("value"), { maxKeys: 4 }),
    fc.tuple(fc.integer({ min: 20, max: 40 }), fc.boolean()).map(([depth, asArray]) => nested(depth, "deep", asArray))
  )
})).value

// --- requests built from valid ones -------------------------------------------------------------

/** Every path into a JSON value (objects and arrays), the root included. */
const pathsOf = (value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> => {
  const here = [prefix]
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => pathsOf(v, [...prefix, i])))
  if (typeof value === "object" && value !== null) return here.concat(...Object.entries(value).map(([k, v]) => pathsOf(v, [...prefix, k])))
  return here
}

type Mutation = { readonly at: number; readonly op: "set" | "delete" | "add"; readonly key: string; readonly value: unknown }

const mutate = (template: unknown, mutations: ReadonlyArray<Mutation>): unknown => {
  let body: any = structuredClone(template)
  for (const { at, op, key, value } of mutations) {
    const paths = pathsOf(body)
    const path = paths[at % paths.length]!
    if (path.length === 0) {
      body = op === "add" && typeof body === "object" && body !== null && !Array.isArray(body) ? { ...body, [key]: value } : value
      continue
    }
    const parent = path.slice(0, -1).reduce((node, step) => node[step], body)
    const last = path[path.length - 1]!
    if (op === "delete") {
      if (Array.isArray(parent)) parent.splice(Number(last), 1)
      else delete parent[last]
    } else if (op === "add" && typeof parent[last] === "object" && parent[last] !== null && !Array.isArray(parent[last])) {
      Object.defineProperty(parent[last], key, { value, enumerable: true, writable: true, configurable: true })
    } else {
      parent[last] = value
    }
  }
  return body
}

const mutations = fc.array(
  fc.record({ at: fc.nat(), op: fc.constantFrom("set" as const, "delete" as const, "add" as const), key: hostileString, value: hostileValue }),
  { minLength: 1, maxLength: 3 }
)

type Encoding = "json" | "duplicate-keys" | "cut-short" | "too-deep" | "content-type"
const encodings = fc.constantFrom<Encoding>("json", "json", "json", "duplicate-keys", "cut-short", "too-deep", "content-type")

interface Encoded {
  readonly text: string
  readonly contentType: string
  /** The value the server must see, or none when the text is not acceptable JSON. */
  readonly parsed: Option.Option<unknown>
}

const encode = (body: unknown, encoding: Encoding, decoy: unknown, contentType: string): Encoded => {
  const text = JSON.stringify(body) ?? "null"
  switch (encoding) {
    case "json":
      return { text, contentType: "application/json", parsed: Option.some(JSON.parse(text)) }
    case "duplicate-keys": {
      // a key sent twice: JSON.parse keeps the last, and so must the server
      if (!text.startsWith("{") || text === "{}") return { text, contentType: "application/json", parsed: Option.some(JSON.parse(text)) }
      const [firstKey] = Object.keys(JSON.parse(text))
      const doubled = `{${JSON.stringify(firstKey)}:${JSON.stringify(decoy) ?? "null"},${text.slice(1)}`
      return { text: doubled, contentType: "application/json", parsed: Option.some(JSON.parse(doubled)) }
    }
    case "cut-short":
      return { text: text.slice(0, Math.max(0, text.length - 1 - (text.length % 7))), contentType: "application/json", parsed: Option.none() }
    case "too-deep":
      return { text: `${"[".repeat(5000)}${text}${"]".repeat(5000)}`, contentType: "application/json", parsed: Option.none() }
    case "content-type":
      // bodies are JSON whatever the content type says
      return { text, contentType, parsed: Option.some(JSON.parse(text)) }
  }
}

const contentTypes = fc.constantFrom(
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "multipart/form-data",
  "application/xml",
  "application/merge-patch+json",
  "application/json; charset=utf-16",
  "image/png"
)

// --- the API, endpoint by endpoint --------------------------------------------------------------

interface Fixture {
  readonly ids: Record<string, ReadonlyArray<string>>
  readonly templates: Record<string, { readonly body?: unknown; readonly query?: Record<string, string> }>
}

const csvRoutes = csvBodyRoutes(Api)

const endpoints = Object.values(Api.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint) => ({
    key: `${endpoint.method} ${endpoint.path}`,
    method: endpoint.method,
    path: endpoint.path as string,
    /** Bodies are JSON of at most 1 MiB, but a CSV import takes 10 MiB. */
    maxBodyBytes: csvRoutes.matches(endpoint.method, endpoint.path) ? MAX_CSV_BYTES : 1_048_576,
    payload: endpoint.payloadSchema as Option.Option<Schema.Schema<unknown, unknown>>,
    urlParams: endpoint.urlParamsSchema as Option.Option<Schema.Schema<unknown, unknown>>
  }))
)

/**
 * Member management takes a Super Admin, and an invitation link a signed-in user (an API token stops
 * at 403 there): both get the bootstrap admin's session (the API token is an Admin's).
 */
const SUPER_ADMIN_ROUTES = [
  "POST /member",
  "PATCH /member/:userId",
  "DELETE /member/:userId",
  "DELETE /member/invitations/:invitationId",
  "GET /member/invitations/:token",
  "POST /member/invitations/:token/accept"
]

let setups = 0
const setup = Effect.gen(function*() {
  const server = yield* TestServer
  const person = yield* createPerson(server, { firstName: "Fuzz", lastName: "Target" })
  const other = yield* createPerson(server, { firstName: "Other", lastName: "Target" })
  const event = yield* createEvent(server, { ticketingEnabled: true })
  yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId: person }, { personId: other }] } })
  const purchase = expectStatus(
    yield* server.request("POST", `/event/${event.eventId}/purchase`, {
      body: { items: [{ personId: person, type: "TICKET", subtotal: 1000, tax: 100, serviceFee: 10 }] }
    }),
    200
  ).body
  const token = expectStatus(yield* server.request("POST", "/api-token", { body: { name: "fuzzed" } }), 200).body
  const stranger = yield* server.organization(`hostile-stranger-${++setups}`)
  const foreignPerson = yield* createPerson(server, {}, stranger.token)
  const foreignEvent = yield* createEvent(server, {}, stranger.token)
  // a member to change and remove (not the Super Admin whose session the member routes use)
  const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
  const member = expectStatus(
    yield* server.request("POST", "/member", {
      token: null,
      headers: owner.headers,
      body: { email: uniqueEmail("fuzzed-member"), password: "a long enough password", role: "Viewer" }
    }),
    200
  ).body
  const fixture: Fixture = {
    ids: {
      person: [person, other, foreignPerson],
      event: [event.eventId, foreignEvent.eventId],
      tokenId: [token.tokenId],
      purchaseId: [purchase.purchaseId],
      deliveryId: ["00000000-0000-4000-8000-000000000000"],
      userId: [member.userId, "00000000-0000-4000-8000-000000000000"],
      invitationId: ["00000000-0000-4000-8000-000000000000"],
      token: ["cvi_unknown"]
    },
    templates: {
      "POST /login": { body: { email: ADMIN_EMAIL, password: "not the password" } },
      "POST /member": { body: { email: uniqueEmail("member"), password: "a long enough password", firstName: "M", lastName: "N", role: "Viewer" } },
      "PATCH /member/:userId": { body: { role: "Team Member" } },
      "POST /api-token": { body: { name: "fuzz" } },
      "GET /person": { query: { limit: "10", skip: "0" } },
      "GET /person/search": { query: { query: "Fuzz", limit: "5" } },
      "POST /person": { body: { firstName: "Fuzz", lastName: "Created", email: uniqueEmail("fuzz") } },
      "PUT /person/:id": { body: { firstName: "Fuzz", city: "Paris" } },
      "PUT /persons": { body: { persons: [{ personId: person, city: "Oslo", customFields: { "Fuzz Field": "x" } }] } },
      "POST /custom-field": { body: { fieldName: "Fuzz Field", fieldType: "text" } },
      "GET /event": { query: { limit: "10", includePastEvents: "true" } },
      "GET /events": { query: { limit: "10" } },
      "POST /event": { body: { name: "Fuzz event", primaryDate: "2030-01-01T18:00:00Z", ticketingEnabled: true } },
      "PATCH /event/:id": { body: { name: "Fuzz renamed" } },
      "GET /event/:id/guestlist": { query: { personIds: `${person},${other}` } },
      "GET /changes": { query: { limit: "10", types: "person,guest" } },
      "GET /event/:id/guestlist/search": { query: { name: "Fuzz", limit: "5", generateRsvpLinks: "false" } },
      "POST /event/:id/guestlist": { body: { guests: [{ personId: person }, { firstName: "New", lastName: "Guest", email: uniqueEmail("guest") }] } },
      "PUT /event/:id/guestlist": { body: { guests: [{ personId: person, rsvpStatus: "Accepted" }] } },
      "DELETE /event/:id/guestlist": { body: { guests: [{ personId: other }] } },
      "POST /event/:id/purchase": { body: { invoiceNumber: "INV-FUZZ", items: [{ personId: person, type: "TICKET", subtotal: 500, tax: 50, serviceFee: 5 }] } },
      "POST /event/:id/purchase/:purchaseId/refund": { body: { amount: 1 } },
      // loopback: refused at registration here (private destinations are not allowed on this server)
      "POST /webhook": { body: { webhook: "http://127.0.0.1:9/hook", type: "Event" } },
      "DELETE /webhook": { body: { webhook: "http://127.0.0.1:9/hook" } },
      "GET /webhook/deliveries": { query: { status: "failed", limit: "10" } },
      "POST /webhook/test": { body: { webhook: "http://127.0.0.1:9/hook", type: "Event" } },
      "GET /person/export": { query: { archived: "false" } },
      "POST /event/:id/invitations": { body: { personIds: [person], subject: "Fuzz", message: "Come" } },
      "GET /event/:id/invitations": { query: { limit: "10", skip: "0" } },
      "POST /person/import": { body: `email,firstName,lastName\n${uniqueEmail("csv")},Fuzz,Imported\n`, query: { dryRun: "true" } },
      "POST /event/:id/guestlist/import": {
        body: `email,firstName,lastName,rsvpStatus\n${uniqueEmail("guestcsv")},Fuzz,Guest,Accepted\n`,
        query: { dryRun: "true" }
      }
    }
  }
  return fixture
})

const idsFor = (path: string, param: string, fixture: Fixture) =>
  param === "id" ? (path.startsWith("/person") ? fixture.ids["person"]! : fixture.ids["event"]!) : fixture.ids[param] ?? []

/** Whether a string has no lone surrogate (`encodeURIComponent` refuses those). */
const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

/** A path segment, already encoded: a valid id, a foreign one, hostile text, or malformed escapes. */
const pathParam = (ids: ReadonlyArray<string>) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids).map(encodeURIComponent) },
    {
      weight: 1,
      // "." and ".." would be folded away by URL normalisation before the request leaves
      arbitrary: hostileString.filter((s) => s.length > 0 && s.length < 2000 && s !== "." && s !== ".." && wellFormed(s))
        .map(encodeURIComponent)
    },
    { weight: 1, arbitrary: fc.constantFrom("%", "%ZZ", "%ED%A0%80", "%00", "%C0%AF", "%2F", "%252F", "%FF%FE") }
  )

const queryOf = (template: Record<string, string>, names: ReadonlyArray<string>) =>
  fc.record({
    changes: fc.array(fc.tuple(fc.constantFrom(...names, "unknownParam"), fc.option(hostileString.filter((s) => s.length < 4000))), { maxLength: 3 }),
    repeat: fc.boolean()
  }).map(({ changes, repeat }) => {
    const params = new URLSearchParams(template)
    for (const [name, value] of changes) {
      if (value === null) params.delete(name)
      else if (repeat) params.append(name, value)
      else params.set(name, value)
    }
    return params
  })

/** What the endpoint's own schemas say of the query (as the framework reads it: repeats become arrays). */
const queryIsValid = (schema: Option.Option<Schema.Schema<unknown, unknown>>, params: URLSearchParams) => {
  if (Option.isNone(schema)) return true
  const record: Record<string, string | Array<string>> = {}
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name)
    record[name] = values.length === 1 ? values[0]! : values
  }
  return Either.isRight(Schema.decodeUnknownEither(schema.value)(record))
}

layer(testServer({ WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "false" }), { excludeTestServices: true })("hostile input", (it) => {
  it.effect("the table of valid requests covers every endpoint that takes a body or a query", () =>
    Effect.gen(function*() {
      const fixture = yield* setup
      for (const endpoint of endpoints) {
        if (Option.isSome(endpoint.payload) || Option.isSome(endpoint.urlParams)) {
          expect(fixture.templates, endpoint.key).toHaveProperty([endpoint.key])
        }
      }
    }))

  it.scoped("every endpoint: generated input gets a 4xx with the error body, or a success; never a 5xx; refusals change nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const fixture = yield* setup
      const database = yield* Effect.acquireRelease(
        Effect.promise(() => openDatabase(server.databaseEnv)),
        (db) => Effect.promise(() => db.close())
      )
      // A refused request's digest after it is the next request's before: read once. Nothing else
      // writes meanwhile (the fixture's writes are done, and its receivers are refused), so a
      // change found is the request's own. On SQLite, the digest is read again only when another
      // connection committed since it was read (`PRAGMA data_version` moved): the same rows give
      // the same digest, and most requests commit nothing (reading every table after each was a
      // third of this test's time).
      let known: string | undefined
      let knownVersion: number | undefined
      const dataVersion = async () =>
        server.databaseEnv.DATABASE_URL === undefined
          ? Number((await database.query<{ data_version: number }>("PRAGMA data_version"))[0]!.data_version)
          : undefined
      const digest = async () => {
        const version = await dataVersion()
        if (known !== undefined && version === knownVersion) return known
        known = await digestWith(database.query)
        knownVersion = version
        return known
      }
      /** After a request: read the digest again (on PostgreSQL, always; on SQLite, if anything was committed). */
      const forget = () => {
        if (knownVersion === undefined) known = undefined
      }
      const request = send(server.url)
      const superAdmin = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
      const tally = { requests: 0, refused: 0, accepted: 0, schemaInvalid: 0, statuses: {} as Record<number, number> }

      for (const endpoint of endpoints) {
        const template = fixture.templates[endpoint.key] ?? {}
        const params = [...endpoint.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
        const names = Option.match(endpoint.urlParams, {
          onNone: () => [] as Array<string>,
          onSome: (schema) => Object.keys((schema as unknown as Schema.Struct<Schema.Struct.Fields>).fields)
        })
        const hasBody = endpoint.method !== "GET"
        const arbitrary = fc.record({
          path: fc.tuple(...params.map((p) => pathParam(idsFor(endpoint.path, p, fixture)))).map((values) =>
            params.reduce((path, p, i) => path.replace(`:${p}`, values[i]!), endpoint.path)),
          query: queryOf(template.query ?? {}, names.length > 0 ? names : ["q"]),
          mutations,
          encoding: hasBody ? encodings : fc.constant<Encoding>("json"),
          decoy: hostileValue,
          contentType: contentTypes
        })

        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(arbitrary, async (input) => {
              const body = Option.isSome(endpoint.payload) ? mutate(template.body ?? {}, input.mutations) : input.mutations[0]!.value
              const encoded = encode(body, input.encoding, input.decoy, input.contentType)
              const query = input.query.toString()
              const target = `${input.path}${query === "" ? "" : `?${query}`}`
              const before = await digest()
              const asSuperAdmin = SUPER_ADMIN_ROUTES.includes(endpoint.key)
              const reply = await Effect.runPromise(request(endpoint.method, target, {
                ...(hasBody ? { rawBody: encoded.text } : {}),
                ...(asSuperAdmin ? { token: null } : {}),
                headers: { ...(asSuperAdmin ? superAdmin.headers : {}), ...(hasBody ? { "content-type": encoded.contentType } : {}) }
              }))
              const label = `${endpoint.key} → ${endpoint.method} ${target.slice(0, 300)} ${encoded.text.slice(0, 300)} → ${reply.status} ${reply.text.slice(0, 300)}`
              tally.requests++
              tally.statuses[reply.status] = (tally.statuses[reply.status] ?? 0) + 1

              expect(reply.status, label).toBeLessThan(500)
              expect(reply.headers.get("x-request-id"), label).toBeTruthy()
              expect(reply.headers.get("x-powered-by"), label).toBeNull()

              const oversize = Buffer.byteLength(encoded.text) > endpoint.maxBodyBytes
              const payloadValid = !hasBody || Option.isNone(endpoint.payload) ||
                Option.match(encoded.parsed, {
                  onNone: () => false,
                  onSome: (value) => Either.isRight(Schema.decodeUnknownEither(endpoint.payload.pipe(Option.getOrThrow))(value))
                })
              const valid = payloadValid && queryIsValid(endpoint.urlParams, input.query)
              // near the limit, the line with the headers may pass it too
              const requestLine = target.length + endpoint.method.length
              const lineTooLong = requestLine > 16_384 || (requestLine > 15_000 && reply.status === 431)
              if (lineTooLong) expect(reply.status, label).toBe(431)
              else if (oversize && Option.isSome(endpoint.payload)) expect(reply.status, label).toBe(413)
              else if (!valid) {
                tally.schemaInvalid++
                // login is public: its refusal may also be the lock after repeated failures
                expect(endpoint.key === "POST /login" ? [400, 429] : [400], label).toContain(reply.status)
              }

              if (reply.status >= 400) {
                tally.refused++
                checkRefusal(reply, label)
                forget()
                expect(await digest(), `database changed by a refused request: ${label}`).toBe(before)
              } else {
                forget()
                tally.accepted++
                // 202: POST /member for an email that has a user already invites them
                expect([200, 201, 202], label).toContain(reply.status)
              }
            }),
            { numRuns: RUNS, endOnFailure: true }
          )
        )
      }
      // the generators must mostly produce input the API refuses, or the property proves little
      expect(tally.schemaInvalid).toBeGreaterThan(tally.requests / 3)
      yield* Effect.log(`hostile input: ${JSON.stringify(tally)}`)
      console.info(`hostile input: ${JSON.stringify(tally)}`)
    }), 300_000)

  it.effect("metacharacters are data: stored and returned as given (trimmed), never interpreted", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const name = fc.constantFrom(...METACHARACTERS, "O'Brien", "Zoë <b>", "李小龍", "%25", "a_b")
        // (U+0000 is refused, below; lone surrogates cannot be stored as UTF-8)
        .filter((s) => s.trim().length > 0 && !s.includes("\u0000") && wellFormed(s))
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(name, name, async (firstName, lastName) => {
            const email = uniqueEmail("meta")
            const created = await Effect.runPromise(server.request("POST", "/person", { body: { firstName, lastName, email } }))
            expect(created.status, created.text).toBe(201)
            const person = (await Effect.runPromise(server.request("GET", `/person/${created.body.personId}`))).body
            expect([person.firstName, person.lastName]).toEqual([firstName.trim(), lastName.trim()])
            const found = await Effect.runPromise(server.request("GET", `/person/search?query=${encodeURIComponent(firstName.trim())}&limit=100`))
            expect(found.status, found.text).toBe(200)
            for (const p of found.body.persons) {
              expect(`${p.firstName} ${p.lastName}`.toLowerCase()).toContain(firstName.trim().toLowerCase())
            }
          }),
          { numRuns: 60 }
        )
      )
      // the tables are all still there
      expectStatus(yield* server.request("GET", "/person?limit=1"), 200)
      expectStatus(yield* server.request("GET", "/event"), 200)
    }), 120_000)

  it.effect("refuses U+0000 in any string of a body or in a search term, saying where", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server)
      const nul = expectError(
        yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
          body: { guests: [{ firstName: "Ok", lastName: "Ok", email: uniqueEmail() }, { firstName: "a\u0000b", lastName: "x", email: uniqueEmail() }] }
        }),
        400,
        "invalid_request"
      )
      expect(nul.body.issues).toEqual([{ path: "guests.1.firstName", message: "must not contain the NUL character (U+0000)" }])
      expectError(yield* server.request("PUT", "/persons", { body: { persons: [{ personId: "x", customFields: { "a\u0000": "b" } }] } }), 400, "invalid_request")
      // an escaped backslash followed by "u0000" is six ordinary characters
      expectStatus(yield* server.request("POST", "/person", { body: { firstName: "back\\u0000slash", lastName: "x", email: uniqueEmail() } }), 201)
      for (const path of ["/person/search?query=a%00b", "/person/search?email=%00", `/event/${event.eventId}/guestlist/search?name=%00`]) {
        const reply = expectError(yield* server.request("GET", path), 400, "invalid_request")
        expect(reply.body.issues[0].message, path).toBe("must not contain the NUL character (U+0000)")
      }
      expect((yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests).toEqual([])
    }))

  it.scoped("the digest of the server's database, on its engine, sees a changed value in any row, but not an API token's last use", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const personId = yield* createPerson(server)
      const database = yield* Effect.acquireRelease(
        Effect.promise(() => openDatabase(server.databaseEnv)),
        (db) => Effect.promise(() => db.close())
      )
      const digest = () => Effect.promise(() => digestWith(database.query))
      const run = (text: string, params: ReadonlyArray<unknown>) => Effect.promise(() => database.query(text, params))
      const before = yield* digest()
      const [{ city }] = (yield* run("SELECT city FROM persons WHERE public_id = ?", [personId])) as [{ city: string | null }]
      yield* run("UPDATE persons SET city = ? WHERE public_id = ?", ["Digest City", personId])
      expect(yield* digest()).not.toBe(before)
      yield* run("UPDATE persons SET city = ? WHERE public_id = ?", [city, personId])
      expect(yield* digest()).toBe(before)
      yield* run("UPDATE api_tokens SET last_used_at = ?", [new Date().toISOString()])
      expect(yield* digest()).toBe(before)
    }))
})

describe("hostile input digest", () => {
  it("sees a change to any table", () => {
    const db = new Database(":memory:")
    db.exec("CREATE TABLE a (x TEXT) STRICT; CREATE TABLE b (y BLOB) STRICT; INSERT INTO a VALUES ('1'); INSERT INTO b VALUES (x'00')")
    const before = digestOf(db)
    db.exec("UPDATE b SET y = x'01'")
    expect(digestOf(db)).not.toBe(before)
    db.exec("UPDATE b SET y = x'00'")
    expect(digestOf(db)).toBe(before)
  })
})

