/**
 * The typed client (`src/Client`, `convene/client`) against a real server: the Effect client and
 * the promise wrapper make real calls and surface error answers as typed errors; the client's
 * import graph holds no server code. (The mirror example, a process of its own:
 * test/slow/client-mirror.test.ts.)
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { build } from "esbuild"
import {
  Conflict,
  Convene,
  ConveneError,
  createConveneClient,
  InvalidRequest,
  make,
  NotFound,
  RateLimited,
  Unauthorized
} from "../../src/Client/index.js"
import { uniqueEmail } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

const futureDate = "2031-06-01T20:00:00+02:00"

/** The failure of a promise, or a test failure when it succeeds. */
const rejection = (promise: Promise<unknown>) =>
  Effect.promise(() => promise.then(() => expect.fail("expected the call to fail"), (error: unknown) => error))


layer(testServer(), { excludeTestServices: true })("client", (it) => {
  describe("the Effect client", () => {
    it.scoped("creates, lists and reads persons, events and guests, and reads the change feed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("client-effect")
        const client = yield* make({ baseUrl: server.url, token }).pipe(Effect.provide(FetchHttpClient.layer))
        const email = uniqueEmail("ada")

        const { personId } = yield* client.persons.create({ payload: { firstName: "Ada", lastName: "Lovelace", email } })
        const person = yield* client.persons.get({ path: { id: personId } })
        expect(person).toMatchObject({ personId, firstName: "Ada", lastName: "Lovelace", email, archived: false })
        const { persons } = yield* client.persons.list({ urlParams: {} })
        expect(persons.map((p) => p.personId)).toEqual([personId])
        const byIds = yield* client.persons.list({ urlParams: { ids: `${personId},unknown-id` } })
        expect(byIds.persons.map((p) => p.personId)).toEqual([personId])

        const event = yield* client.events.create({ payload: { name: "Client launch", primaryDate: futureDate } })
        expect(event).toMatchObject({ name: "Client launch", primaryDate: futureDate })
        expect((yield* client.events.get({ path: { id: event.eventId } })).eventId).toBe(event.eventId)
        const listed = yield* client.events.list({ urlParams: { includePastEvents: true, limit: 10 } })
        expect(listed.events.map((e) => e.eventId)).toEqual([event.eventId])

        const added = yield* client.guests.add({ path: { id: event.eventId }, payload: { guests: [{ personId }] } })
        expect(added.guests).toMatchObject([{ personId, rsvpStatus: "Invited", email }])
        const guests = yield* client.guests.list({ path: { id: event.eventId }, urlParams: {} })
        expect(guests.guests.map((g) => g.personId)).toEqual([personId])

        const page = yield* client.changes.list({ urlParams: {} })
        expect(page.changes.map(({ type, action, id, eventId }) => ({ type, action, id, eventId }))).toEqual([
          { type: "person", action: "created", id: personId, eventId: undefined },
          { type: "event", action: "created", id: event.eventId, eventId: undefined },
          { type: "guest", action: "created", id: personId, eventId: event.eventId }
        ])
        expect(page.hasMore).toBe(false)
        const after = yield* client.changes.list({ urlParams: { after: page.nextCursor } })
        expect(after.changes).toEqual([])
      }))

    it.scoped("fails with the API's error classes, by status and code", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("client-effect-errors")
        // the client as a service, provided once
        const client = yield* Convene.pipe(Effect.provide(Convene.layer({ baseUrl: server.url, token })), Effect.provide(FetchHttpClient.layer))

        const missing = yield* Effect.flip(client.persons.get({ path: { id: "no-such-person" } }))
        expect(missing).toBeInstanceOf(NotFound)
        expect(missing._tag).toBe("NotFound")

        const email = uniqueEmail("twice")
        yield* client.persons.create({ payload: { firstName: "A", lastName: "B", email } })
        const twice = yield* Effect.flip(client.persons.create({ payload: { firstName: "A", lastName: "B", email } }))
        expect(twice).toBeInstanceOf(Conflict)

        // ids and limit together: the schema allows both, the server refuses the pair (400)
        const invalid = yield* Effect.flip(client.persons.list({ urlParams: { ids: "a", limit: 5 } }))
        expect(invalid).toBeInstanceOf(InvalidRequest)
        expect((invalid as InvalidRequest).issues?.length).toBeGreaterThan(0)

        const stranger = yield* make({ baseUrl: server.url, token: "cvn_not_a_token_0123456789abcdefghijklmnop" }).pipe(
          Effect.provide(FetchHttpClient.layer)
        )
        expect(yield* Effect.flip(stranger.persons.list({ urlParams: {} }))).toBeInstanceOf(Unauthorized)
      }))
  })

  describe("the promise client", () => {
    it.effect("creates, lists and reads persons, events and guests, and reads the change feed", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("client-promise")
        const client = createConveneClient({ baseUrl: server.url, token })
        const email = uniqueEmail("grace")
        const result = yield* Effect.promise(async () => {
          const { personId } = await client.persons.create({ firstName: "Grace", lastName: "Hopper", email })
          await client.persons.update(personId, { company: "Navy" })
          const person = await client.persons.get(personId)
          const page = await client.persons.list({ limit: 10 })
          const event = await client.events.create({ name: "Promise launch", primaryDate: futureDate })
          const added = await client.guests.add(event.eventId, [{ personId }])
          await client.guests.update(event.eventId, [{ personId, rsvpStatus: "Accepted" }])
          const guests = await client.guests.byPersonIds(event.eventId, [personId])
          await client.persons.archive(personId)
          const archived = await client.persons.byIds([personId])
          const changes = await client.changes.list({ limit: 100 })
          return { personId, person, page, event, added, guests, archived, changes }
        })
        expect(result.person).toMatchObject({ personId: result.personId, firstName: "Grace", company: "Navy" })
        expect(result.page.persons.map((p) => p.personId)).toEqual([result.personId])
        expect(result.event.name).toBe("Promise launch")
        expect(result.added.guests).toMatchObject([{ personId: result.personId, rsvpStatus: "Invited" }])
        expect(result.guests.guests).toMatchObject([{ personId: result.personId, rsvpStatus: "Accepted" }])
        expect(result.archived.persons).toMatchObject([{ personId: result.personId, archived: true }])
        expect(result.changes.changes.map((c) => `${c.type} ${c.action}`)).toEqual([
          "person created",
          "person updated",
          "event created",
          "guest created",
          "guest updated",
          "person archived"
        ])
      }))

    it.effect("throws ConveneError with the status, code, message and issues of the error body", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { token } = yield* server.organization("client-promise-errors")
        const client = createConveneClient({ baseUrl: server.url, token })

        const missing = yield* rejection(client.persons.get("no-such-person"))
        expect(missing).toBeInstanceOf(ConveneError)
        expect(missing).toBeInstanceOf(Error)
        expect(missing).toMatchObject({ status: 404, code: "not_found", issues: [] })
        expect((missing as ConveneError).message).toMatch(/./)

        const email = uniqueEmail("twice")
        yield* Effect.promise(() => client.persons.create({ firstName: "A", lastName: "B", email }))
        expect(yield* rejection(client.persons.create({ firstName: "A", lastName: "B", email }))).toMatchObject({
          status: 409,
          code: "conflict"
        })

        // limit 500, or an untrimmed name, break the schema before anything is sent
        const invalid = (yield* rejection(client.persons.list({ limit: 500 }))) as ConveneError
        expect(invalid).toMatchObject({ status: 0, code: "invalid_request" })
        expect(invalid.issues.map((i) => i.path)).toContain("limit")
        const untrimmed = (yield* rejection(client.persons.create({ firstName: " Ada", lastName: "B", email: uniqueEmail() }))) as ConveneError
        expect(untrimmed).toMatchObject({ status: 0, code: "invalid_request" })
        expect(untrimmed.issues.map((i) => i.path)).toContain("firstName")

        const refused = (yield* rejection(
          client.call((c) => c.persons.list({ urlParams: { ids: "a", skip: 1 } }))
        )) as ConveneError
        expect(refused).toMatchObject({ status: 400, code: "invalid_request" })
        expect(refused.issues.length).toBeGreaterThan(0)
        expect(refused.details).toMatchObject({ code: "invalid_request", message: refused.message })

        const unknownEvent = yield* rejection(client.guests.add("no-such-event", [{ personId: "x" }]))
        expect(unknownEvent).toMatchObject({ code: expect.stringMatching(/^(not_found|invalid_request)$/) })

        const stranger = createConveneClient({ baseUrl: server.url, token: "cvn_not_a_token_0123456789abcdefghijklmnop" })
        expect(yield* rejection(stranger.changes.list())).toMatchObject({ status: 401, code: "unauthorized" })

        const nowhere = createConveneClient({ baseUrl: "http://127.0.0.1:1", token })
        expect(yield* rejection(nowhere.persons.list())).toMatchObject({ status: 0, code: "request_failed" })
      }))
  })
})

layer(testServer({ RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_SECOND: "0.2" }), { excludeTestServices: true })("client rate limits", (it) => {
  it.scoped("a 429 is RateLimited (Effect) and a ConveneError with retryAfter (promises)", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization("client-limited")
      const effectClient = yield* make({ baseUrl: server.url, token }).pipe(Effect.provide(FetchHttpClient.layer))
      const promiseClient = createConveneClient({ baseUrl: server.url, token })
      yield* Effect.promise(() => Promise.allSettled([promiseClient.persons.list(), promiseClient.persons.list()]))
      const limited = yield* Effect.flip(effectClient.persons.list({ urlParams: {} }))
      expect(limited).toBeInstanceOf(RateLimited)
      expect((limited as RateLimited).retryAfter).toBeGreaterThan(0)
      const thrown = (yield* rejection(promiseClient.persons.list())) as ConveneError
      expect(thrown).toMatchObject({ status: 429, code: "rate_limited" })
      expect(thrown.retryAfter).toBeGreaterThan(0)
    }))
})

describe("the client's import graph", () => {
  const FORBIDDEN = /better-sqlite3|@effect\/sql|node:sqlite|nodemailer|preact|csv-parse|csv-stringify|^(node:)?fs(\/|$)/

  const graph = async (entry: string) => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "esm",
      write: false,
      metafile: true,
      packages: "external",
      logLevel: "silent"
    })
    const inputs = Object.keys(result.metafile.inputs)
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path))
    return { inputs, imports }
  }

  it("src/Client/index.ts reaches declarations only: no database, mail, templates, CSV or file system", async () => {
    const { inputs, imports } = await graph("src/Client/index.ts")
    expect(inputs).toContain("src/Api.ts")
    expect(inputs).toContain("src/Idempotency/Idempotent.ts")
    expect(imports.filter((path) => FORBIDDEN.test(path))).toEqual([])
    expect(inputs.filter((path) => FORBIDDEN.test(path) || /Repo\.ts$|Live\.ts$|\/Http\.ts$|Server\.ts$|Db\//.test(path))).toEqual([])
  })

  it("the same check finds the server's dependencies in the server", async () => {
    const { inputs, imports } = await graph("src/Server.ts")
    expect(imports).toContain("better-sqlite3")
    expect(imports.some((path) => path.startsWith("@effect/sql"))).toBe(true)
    expect(inputs).toContain("src/Idempotency/IdempotentLive.ts")
  })
})
