import { describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, TestClock } from "effect"
import { join } from "node:path"
import { AppConfig } from "../../src/Config/AppConfig.js"
import { ABANDONED_AFTER, Idempotency, RETENTION } from "../../src/Idempotency/Idempotency.js"
import { Members } from "../../src/Organizations/Members.js"
import { SqlLive } from "../../src/Sql.js"
import { createEvent, createPerson, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { startServer } from "../support/Process.js"
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  configFrom,
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

const store = Layer.provideMerge(Idempotency.Default, SqlLive).pipe(
  Layer.provide(Layer.effect(AppConfig, configFrom(testEnvironment(":memory:"))))
)

layer(store)("Idempotency store", (it) => {
  const fingerprint = (text: string) => new TextEncoder().encode(text)
  const answer = { status: 201, contentType: "application/json", body: fingerprint("{\"ok\":true}") }

  it.effect("reserves, replays, refuses, and lets go of keys on the clock", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const claim = (key: string, body = "a") => Effect.map(idempotency.claim("caller", key, fingerprint(body)), (c) => c._tag)
      expect(yield* claim("k")).toBe("Fresh")
      expect(yield* claim("k")).toBe("InProgress")
      expect(yield* claim("k", "b")).toBe("Mismatch")
      expect(yield* Effect.map(idempotency.claim("someone else", "k", fingerprint("a")), (c) => c._tag)).toBe("Fresh")
      // a key left running (its request died without answering) is free again after ABANDONED_AFTER
      yield* TestClock.adjust(ABANDONED_AFTER)
      expect(yield* claim("k")).toBe("Fresh")
      yield* idempotency.complete("caller", "k", answer)
      const replay = yield* idempotency.claim("caller", "k", fingerprint("a"))
      expect(replay).toEqual({ _tag: "Replay", response: { ...answer, body: expect.any(Uint8Array) } })
      if (replay._tag === "Replay") expect(new TextDecoder().decode(replay.response.body)).toBe("{\"ok\":true}")
      yield* TestClock.adjust(Duration.subtract(RETENTION, Duration.millis(1)))
      expect(yield* claim("k")).toBe("Replay")
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* claim("k")).toBe("Fresh")
      // a 5xx is not kept: the key is free at once
      yield* idempotency.complete("caller", "k", { ...answer, status: 503 })
      expect(yield* claim("k")).toBe("Fresh")
      // nor is a request that ends without an answer; releasing a kept answer changes nothing
      yield* idempotency.release("caller", "k")
      expect(yield* claim("k")).toBe("Fresh")
      yield* idempotency.complete("caller", "k", answer)
      yield* idempotency.release("caller", "k")
      expect(yield* claim("k")).toBe("Replay")
    }))
})
