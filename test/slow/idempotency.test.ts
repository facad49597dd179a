import { describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { join } from "node:path"
import { Members } from "../../src/Organizations/Members.js"
import { onPostgres, withDatabase } from "../support/Engine.js"
import { createEvent, createPerson, eventually, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { startServer } from "../support/Process.js"
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  API_TOKEN,
  send,
  temporaryDirectory,
  testEnvironment,
  TestServer,
  testServer
} from "../support/TestServer.js"

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
