/**
 * Concurrency: parallel writes to one guest keep every change, and the admin CLI, a second process
 * writing to the same SQLite file, gets through while the server is busy writing (busy timeout and
 * short transactions: no SQLITE_BUSY on either side). 50 parallel creates of one email are in
 * persons.test.ts.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber, Ref } from "effect"
import { cli } from "../support/Cli.js"
import { createEvent, createPerson, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

const STATUSES = ["Accepted", "Declined", "Maybe", "Invited"] as const

layer(testServer(), { excludeTestServices: true })("concurrency", (it) => {
  it.effect("parallel RSVP updates of one guest, from two callers, keep every history entry", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const session = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
      const event = yield* createEvent(server)
      const personId = yield* createPerson(server)
      expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } }), 200)
      const sent = Array.from({ length: 40 }, (_, i) => STATUSES[i % STATUSES.length]!)
      const replies = yield* Effect.all(
        sent.map((rsvpStatus, i) =>
          server.request("PUT", `/event/${event.eventId}/guestlist`, {
            body: { guests: [{ personId, rsvpStatus }] },
            ...(i % 2 === 0 ? {} : { token: null, headers: session.headers })
          })),
        { concurrency: "unbounded" }
      )
      for (const reply of replies) expectStatus(reply, 200)
      const guest = (yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests[0]
      const history: Array<{ status: string; actorId: string; actorType: string; createdAt: string }> = guest.rsvpStatusHistory
      expect(history).toHaveLength(1 + sent.length)
      expect(history[0]!.status).toBe("Invited")
      expect(history.slice(1).map((h) => h.status).sort()).toEqual([...sent].sort())
      expect(guest.rsvpStatus).toBe(history[history.length - 1]!.status)
      expect(new Set(history.map((h) => h.actorId)).size).toBe(2)
    }))

  it.effect("the admin CLI writes while the server is under write load: no SQLITE_BUSY anywhere", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server)
      const persons = yield* Effect.all(Array.from({ length: 50 }, () => createPerson(server)))
      const failures = yield* Ref.make<Array<string>>([])
      const served = yield* Ref.make(0)
      const write = (i: number) =>
        Effect.gen(function*() {
          const reply = i % 2 === 0
            ? yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
              body: { guests: Array.from({ length: 200 }, (_, n) => ({ firstName: "Load", lastName: `${i}-${n}`, email: uniqueEmail("load") })) }
            })
            : yield* server.request("PUT", "/persons", { body: { persons: persons.map((personId) => ({ personId, city: `City ${i}` })) } })
          yield* Ref.update(served, (n) => n + 1)
          if (reply.status !== 200) yield* Ref.update(failures, (all) => [...all, `${reply.status} ${reply.text}`])
        })
      // four callers writing back to back until the CLI is done
      const load = yield* Effect.all(
        Array.from({ length: 4 }, (_, caller) =>
          Effect.iterate(0, { while: () => true, body: (i) => Effect.as(write(caller * 100_000 + i), i + 1) })),
        { concurrency: "unbounded" }
      ).pipe(Effect.fork)

      const env = { ...server.databaseEnv, LOG_LEVEL: "Error" }
      const demo = yield* cli(env, "demo", "--org", "busy-demo")
      const tokens = yield* Effect.all(Array.from({ length: 3 }, (_, i) => cli(env, "token", "create", "--org", "acme", "--name", `busy-${i}`)))
      yield* Fiber.interrupt(load)

      for (const result of [demo, ...tokens]) {
        expect(result.code, result.stderr).toBe(0)
        expect(result.stdout + result.stderr).not.toMatch(/SQLITE_BUSY|database is locked/i)
      }
      expect(yield* Ref.get(failures)).toEqual([])
      expect(yield* Ref.get(served)).toBeGreaterThan(10)
      // what the CLI wrote is there, and what the server wrote too
      const listed = yield* cli(env, "token", "list", "--org", "acme")
      for (const i of [0, 1, 2]) expect(listed.stdout).toContain(`busy-${i}`)
      expect((yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests.length).toBeGreaterThanOrEqual(200)
    }), 120_000)
})
