import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Logger, Option, TestClock } from "effect"
import { join } from "node:path"
import { AppConfig } from "../src/Config/AppConfig.js"
import { type Claim, Idempotency, RETENTION, type Running } from "../src/Idempotency/Idempotency.js"
import { Members } from "../src/Organizations/Members.js"
import { DirectSql } from "../src/Db/DirectSql.js"
import { onPostgres, withDatabase } from "./support/Engine.js"
import { SqlLive } from "../src/Sql.js"
import { createEvent, createPerson, eventually, expectError, expectStatus, login, uniqueEmail } from "./support/Fixtures.js"
import { startServer } from "./support/Process.js"
import {
  ADMIN_EMAIL,
  API_TOKEN,
  ADMIN_PASSWORD,
  configFrom,
  send,
  temporaryDirectory,
  testEnvironment,
  TestServer,
  testServer
} from "./support/TestServer.js"

const key = (label: string) => ({ "idempotency-key": `${label}-${process.pid}-${Math.random()}` })

layer(testServer(), { excludeTestServices: true })("Idempotency-Key", (it) => {
  it.effect("replays the first response to the same request, without acting again", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const headers = key("create")
      const body = { firstName: "Idem", lastName: "Potent", email: uniqueEmail("idem") }
      const first = expectStatus(yield* server.request("POST", "/person", { body, headers }), 201)
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      const again = expectStatus(yield* server.request("POST", "/person", { body, headers }), 201)
      expect(again.text).toBe(first.text)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect((yield* server.request("GET", `/person/search?email=${encodeURIComponent(body.email)}`)).body.total).toBe(1)
      // errors are kept and replayed too (4xx), so a retry cannot turn into a different answer
      const conflict = key("conflict")
      expectError(yield* server.request("POST", "/person", { body, headers: conflict }), 409, "conflict")
      const replayed = expectError(yield* server.request("POST", "/person", { body, headers: conflict }), 409, "conflict")
      expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    }))

  it.effect("refuses the key with a different request (422), and keeps keys per caller", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const headers = key("mismatch")
      const email = uniqueEmail("mismatch")
      expectStatus(yield* server.request("POST", "/person", { body: { firstName: "A", lastName: "B", email }, headers }), 201)
      const other = yield* server.request("POST", "/person", { body: { firstName: "C", lastName: "D", email: uniqueEmail() }, headers })
      expectError(other, 422, "idempotency_key_reused")
      const event = yield* createEvent(server)
      expectError(yield* server.request("PATCH", `/event/${event.eventId}`, { body: { name: "X" }, headers }), 422, "idempotency_key_reused")
      const stranger = yield* server.organization("idem-other")
      expectStatus(
        yield* server.request("POST", "/person", { token: stranger.token, body: { firstName: "A", lastName: "B", email }, headers }),
        201
      )
    }))

  it.effect("keeps keys per organization: one sign-in acting in two organizations makes two requests of one key", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      // the bootstrap admin is a member of a second organization too
      const slug = "idem-second-org"
      const second = yield* server.organization(slug)
      yield* (yield* Members).addDirectly({ id: second.id, slug, name: slug }, {
        email: ADMIN_EMAIL,
        password: Option.none(),
        firstName: null,
        lastName: null,
        role: "Admin"
      }).pipe(Effect.orDie)
      const session = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD)
      const headers = key("per-org")
      const body = { firstName: "Two", lastName: "Organizations", email: uniqueEmail("per-org") }
      const inOrg = (organizationSlug: string) =>
        server.request("POST", "/person", { token: null, body, headers: { ...session.headers, ...headers, organizationSlug } })

      const inAcme = expectStatus(yield* inOrg("acme"), 201)
      // the same access token, key, method, path and body, for the other organization: acted on there
      const inSecond = expectStatus(yield* inOrg(slug), 201)
      expect(inSecond.headers.get("idempotent-replayed")).toBeNull()
      expect(inSecond.body.personId).not.toBe(inAcme.body.personId)
      const search = `/person/search?email=${encodeURIComponent(body.email)}`
      expect((yield* server.request("GET", search, { token: second.token })).body.persons.map((p: { personId: string }) => p.personId))
        .toEqual([inSecond.body.personId])
      expect((yield* server.request("GET", search)).body.persons.map((p: { personId: string }) => p.personId)).toEqual([inAcme.body.personId])
      // each organization replays its own first answer
      for (const [organizationSlug, first] of [["acme", inAcme], [slug, inSecond]] as const) {
        const again = expectStatus(yield* inOrg(organizationSlug), 201)
        expect(again.headers.get("idempotent-replayed")).toBe("true")
        expect(again.text).toBe(first.text)
      }
    }))

  it.effect("acts once for PUT and DELETE too", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server)
      const personId = yield* createPerson(server)
      yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } })
      const put = key("put")
      for (let i = 0; i < 3; i++) {
        expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId, rsvpStatus: "Accepted" }] }, headers: put }), 200)
      }
      const guest = (yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests[0]
      expect(guest.rsvpStatusHistory).toHaveLength(2)
      const del = key("delete")
      const body = { guests: [{ personId }] }
      expectStatus(yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { body, headers: del }), 200)
      yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body })
      expectStatus(yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { body, headers: del }), 200)
      expect((yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests).toHaveLength(1)
    }))

  it.effect("concurrent requests with one key act once: one fresh answer, the rest replays or 409", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server)
      const headers = key("running")
      const body = { guests: Array.from({ length: 500 }, (_, i) => ({ firstName: "Slow", lastName: `${i}`, email: uniqueEmail("slow") })) }
      const replies = yield* Effect.all(
        Array.from({ length: 6 }, () => server.request("POST", `/event/${event.eventId}/guestlist`, { body, headers })),
        { concurrency: "unbounded" }
      )
      const fresh = replies.filter((r) => r.status === 200 && r.headers.get("idempotent-replayed") === null)
      expect(fresh).toHaveLength(1)
      for (const r of replies) {
        if (r.status === 409) expectError(r, 409, "conflict")
        else expect([r.status, r.text]).toEqual([200, fresh[0]!.text])
      }
      expect((yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests).toHaveLength(500)
    }))

  it.effect("keeps nothing of a request whose client leaves, not even its interrupted answer: a retry runs it once", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      /** An event and the keyed import of 2,000 new guests, accepted: it gives the event loop turns, so a client leaving is seen while it runs. */
      const importing = Effect.gen(function*() {
        const event = yield* createEvent(server)
        const rows = Array.from({ length: 2_000 }, (_, n) => `Left,${n},${uniqueEmail("left")},Accepted`)
        return {
          eventId: event.eventId as string,
          path: `/event/${event.eventId}/guestlist/import`,
          body: ["firstName,lastName,email,rsvpStatus", ...rows].join("\n"),
          headers: { ...key("left"), "content-type": "text/csv" }
        }
      })
      const sent = (to: { path: string; body: string; headers: Record<string, string> }, signal?: AbortSignal) =>
        Effect.promise(() =>
          fetch(server.url + to.path, {
            method: "POST",
            headers: { ...to.headers, "x-api-key": API_TOKEN },
            body: to.body,
            ...(signal === undefined ? {} : { signal })
          }).then(async (r) => ({ status: r.status, text: await r.text() }), () => ({ status: 0, text: "left" }))
        )
      const calibration = yield* importing
      const [took] = yield* Effect.timed(sent(calibration))
      const lifeMs = Duration.toMillis(took)
      for (const fraction of [0.2, 0.5, 0.8]) {
        const request = yield* importing
        // the client goes away before the answer
        const left = yield* sent(request, AbortSignal.timeout(Math.round(fraction * lifeMs)))
        // the key is free once the request has ended, at once
        const again = yield* eventually(sent(request), (r) => r.status !== 409, 5_000)
        expect([again.status, again.text.slice(0, 16)], `left after ${fraction} of its life (${left.status})`).toEqual([200, "{\"dryRun\":false,"])
        const guests = (yield* server.request("GET", `/event/${request.eventId}/guestlist`)).body.guests as Array<{ rsvpStatusHistory: Array<unknown> }>
        expect(guests).toHaveLength(2_000)
        expect(new Set(guests.map((g) => g.rsvpStatusHistory.length)), "history entries per guest: added, then accepted, once").toEqual(new Set([2]))
      }
    }))

  it.effect("keeps nothing of a request whose answer could not be stored with it: 500, and a retry runs it once", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      // the answer's write fails (the key table refuses it)
      const refuse = onPostgres
        ? [
          "CREATE FUNCTION idempotency_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$",
          "CREATE TRIGGER idempotency_refuse BEFORE INSERT OR UPDATE ON idempotency_keys FOR EACH ROW WHEN (NEW.status IS NOT NULL) EXECUTE FUNCTION idempotency_refuse()"
        ]
        : ["INSERT", "UPDATE"].map((on) =>
          `CREATE TRIGGER idempotency_refuse_${on} BEFORE ${on} ON idempotency_keys WHEN NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'refused'); END`
        )
      const accept = onPostgres
        ? ["DROP TRIGGER idempotency_refuse ON idempotency_keys", "DROP FUNCTION idempotency_refuse()"]
        : ["DROP TRIGGER idempotency_refuse_INSERT", "DROP TRIGGER idempotency_refuse_UPDATE"]
      const run = (statements: ReadonlyArray<string>) =>
        Effect.promise(() => withDatabase(server.databaseEnv, async (query) => {
          for (const statement of statements) await query(statement)
        }))
      const headers = key("refused")
      const body = { firstName: "Not", lastName: "Kept", email: uniqueEmail("refused") }
      const search = `/person/search?email=${encodeURIComponent(body.email)}`
      yield* run(refuse)
      const refused = yield* Effect.ensuring(server.request("POST", "/person", { body, headers }), run(accept))
      expectError(refused, 500, "internal")
      // the person the request created went with its answer
      expect((yield* server.request("GET", search)).body.total).toBe(0)
      const again = expectStatus(yield* server.request("POST", "/person", { body, headers }), 201)
      expect(again.headers.get("idempotent-replayed")).toBeNull()
      expect((yield* server.request("GET", search)).body.total).toBe(1)
    }))

  it.effect("refuses malformed keys, and is not kept for answers holding a secret shown once", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const email = uniqueEmail("badkey")
      for (const bad of ["", "x".repeat(256), "tab\there", "é"]) {
        const reply = yield* server.request("POST", "/person", { body: { firstName: "A", lastName: "B", email }, headers: { "idempotency-key": bad } })
        expectError(reply, 400, "invalid_request")
      }
      expect((yield* server.request("GET", `/person/search?email=${encodeURIComponent(email)}`)).body.total).toBe(0)
      const headers = key("token")
      const first = expectStatus(yield* server.request("POST", "/api-token", { body: { name: "once" }, headers }), 200).body
      const second = expectStatus(yield* server.request("POST", "/api-token", { body: { name: "once" }, headers }), 200).body
      expect(second.token).not.toBe(first.token)
    }))
})

describe("Idempotency-Key across a restart", () => {
  it.scopedLive("still replays the first response after the server restarts", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const env = { ...testEnvironment(join(dir, "convene.db")), LOG_LEVEL: "Error" }
      const headers = key("restart")
      const body = { firstName: "Re", lastName: "Start", email: uniqueEmail("restart") }
      const first = yield* startServer(env)
      const reply = expectStatus(yield* send(first.url)("POST", "/person", { body, headers }), 201)
      yield* first.kill("SIGTERM")
      const second = yield* startServer(env)
      const again = expectStatus(yield* send(second.url)("POST", "/person", { body, headers }), 201)
      expect(again.text).toBe(reply.text)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
    }), 60_000)
})

// a file: reads outside the request's transaction go on beside it (an in-memory database has one connection)
const config = Layer.unwrapScoped(
  Effect.map(temporaryDirectory, (dir) => Layer.effect(AppConfig, configFrom(testEnvironment(join(dir, "convene.db")))))
)
const store = Layer.provideMerge(Idempotency.Default, SqlLive).pipe(Layer.provide(config))

layer(store)("Idempotency store", (it) => {
  const fingerprint = (text: string) => new TextEncoder().encode(text)
  const answer = { status: 201, contentType: "application/json", body: fingerprint("{\"ok\":true}") }
  const claim = (key: string, body = "a", caller = "caller") =>
    Effect.flatMap(Idempotency, (idempotency) => idempotency.claim(caller, key, fingerprint(body)))
  /** A write of the request, in its transaction: a row of a table of the test's own. */
  const write = (running: Running, value: string) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO written (value) VALUES (${value})`).pipe(
      Effect.provideService(SqlClient.TransactionConnection, running.transaction.connection)
    )
  const written = Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(DirectSql, (direct) => direct.rows<{ value: string }>(sql`SELECT value FROM written ORDER BY value`))).pipe(
      Effect.map((rows) => rows.map((r) => r.value))
    )
  const fresh = (c: Claim) => {
    expect(c._tag).toBe("Fresh")
    return (c as Extract<Claim, { _tag: "Fresh" }>).running
  }

  it.scoped("runs a free key's request in a transaction its answer commits with; replays, refuses, and lets go on the clock", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE written (value TEXT NOT NULL)`
      const first = fresh(yield* claim("k"))
      // while it runs, the key is held: any request with it is told so at once
      expect((yield* claim("k"))._tag).toBe("InProgress")
      expect((yield* claim("k", "b"))._tag).toBe("InProgress")
      yield* write(first, "first")
      // nothing of it is seen before it commits
      expect(yield* written).toEqual([])
      yield* first.complete(answer)
      expect(yield* written).toEqual(["first"])
      const replay = yield* claim("k")
      expect(replay).toEqual({ _tag: "Replay", response: { ...answer, body: expect.any(Uint8Array) } })
      if (replay._tag === "Replay") expect(new TextDecoder().decode(replay.response.body)).toBe("{\"ok\":true}")
      expect((yield* claim("k", "b"))._tag).toBe("Mismatch")
      // keys are per caller
      expect((yield* Effect.scoped(Effect.map(claim("k", "a", "someone else"), (c) => c._tag)))).toBe("Fresh")
      yield* TestClock.adjust(Duration.subtract(RETENTION, Duration.millis(1)))
      expect((yield* claim("k"))._tag).toBe("Replay")
      yield* TestClock.adjust(Duration.millis(1))
      // past its retention the key is free: the answer written over the old one
      const again = fresh(yield* claim("k", "b"))
      yield* again.complete({ ...answer, status: 200 })
      expect((yield* claim("k", "b"))).toMatchObject({ _tag: "Replay", response: { status: 200 } })
    }))

  it.scoped("keeps nothing of a request that answers 5xx or ends without an answer: its key is free at once", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM written`
      const failed = fresh(yield* claim("5xx"))
      yield* write(failed, "failed")
      yield* failed.complete({ ...answer, status: 503 })
      expect(yield* written).toEqual([])
      // the request's scope closes without an answer (its client left): rolled back as well
      yield* Effect.scoped(Effect.flatMap(claim("5xx"), (c) => write(fresh(c), "abandoned")))
      expect(yield* written).toEqual([])
      const ran = fresh(yield* claim("5xx"))
      yield* write(ran, "once")
      yield* ran.complete(answer)
      expect(yield* written).toEqual(["once"])
      expect((yield* claim("5xx"))._tag).toBe("Replay")
    }))
})

describe("Idempotency keys' purge", () => {
  /** Repeats `effect` every 50 ms of real time (the purge's statements end when the database answers) until `done` holds, 5 s at most. */
  const until = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
    Effect.gen(function*() {
      for (let i = 0;; i++) {
        const value = yield* effect
        if (done(value) || i === 100) return value
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      }
    })

  it.scoped("goes on after the database fails it: logged, and tried again an hour later", () =>
    Effect.gen(function*() {
      const database = yield* Layer.build(SqlLive.pipe(Layer.provide(config)))
      const sql = Context.get(database, SqlClient.SqlClient)
      const logged: Array<string> = []
      const recorder = Logger.make(({ message }) => {
        logged.push(Array.isArray(message) ? message.join(" ") : String(message))
      })
      yield* Layer.build(Idempotency.Default).pipe(Effect.provide(database), Effect.provide(Logger.add(recorder)))
      // the next purge fails: the table is away
      yield* sql`ALTER TABLE idempotency_keys RENAME TO idempotency_keys_away`
      yield* TestClock.adjust(Duration.hours(1))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 500)))
      yield* sql`ALTER TABLE idempotency_keys_away RENAME TO idempotency_keys`
      yield* sql`INSERT INTO idempotency_keys (caller_key, key, fingerprint, status, content_type, body, created_at)
        VALUES ('caller', 'old', ${new Uint8Array([1])}, 200, NULL, ${new Uint8Array()}, ${-Duration.toMillis(RETENTION)})`
      const left = sql<{ n: number }>`SELECT count(*) AS n FROM idempotency_keys`.pipe(Effect.map((rows) => Number(rows[0]!.n)))
      expect(yield* left).toBe(1)
      // and the one after it runs
      yield* TestClock.adjust(Duration.hours(1))
      expect(yield* until(left, (n) => n === 0)).toBe(0)
      expect(logged.some((line) => line === "Idempotency keys: deleting expired answers failed; trying again later")).toBe(true)
    }))
})
