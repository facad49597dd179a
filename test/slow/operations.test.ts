import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { copyFileSync } from "node:fs"
import { join } from "node:path"
import { cli } from "../support/Cli.js"
import { onPostgres } from "../support/Engine.js"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { send, temporaryDirectory, TestServer, testServer } from "../support/TestServer.js"

layer(testServer(), { excludeTestServices: true })("operations", (it) => {
  describe("backups", () => {
    it.scoped.runIf(onPostgres)("on PostgreSQL, refuses with a line pointing to the database's own tools", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const result = yield* cli({ ...server.databaseEnv, LOG_LEVEL: "None" }, "backup", "--to", "/tmp/never-written.db")
        expect(result.code).toBe(1)
        expect(result.stderr).toMatch(/pg_dump/)
      }))
    // SQLite's online backup of the database file
    it.scoped.skipIf(onPostgres)("writes a consistent backup of the live database while it takes writes, and it restores", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const dir = yield* temporaryDirectory
        const event = yield* createEvent(server, { name: "Backed up" })
        const before = Array.from({ length: 200 }, (_, i) => ({ firstName: "Kept", lastName: `${i}`, email: uniqueEmail("kept") }))
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: before } }), 200)

        // writes keep coming while the backup runs in another process
        let writing = true
        const writer = Effect.gen(function*() {
          while (writing) yield* server.request("POST", "/person", { body: { firstName: "During", lastName: "Backup", email: uniqueEmail("during") } })
        })
        const fiber = yield* Effect.fork(writer)
        const backupPath = join(dir, "nightly.db")
        const result = yield* cli({ DATABASE_PATH: server.databasePath, LOG_LEVEL: "None" }, "backup", "--to", backupPath)
        writing = false
        yield* fiber.await
        expect(result.code, result.stderr).toBe(0)
        expect(result.stdout).toMatch(/integrity_check: ok/)
        expect((yield* cli({ DATABASE_PATH: server.databasePath }, "backup", "--to", backupPath)).code).toBe(1)

        // restore: the backup file becomes the database of a fresh server
        const restoredPath = join(dir, "restored.db")
        copyFileSync(backupPath, restoredPath)
        const restored = Context.get(yield* Layer.build(testServer({ DATABASE_PATH: restoredPath })), TestServer)
        const api = send(restored.url)
        const guests = (yield* api("GET", `/event/${event.eventId}/guestlist`)).body.guests
        expect(guests).toHaveLength(200)
        expect(guests.map((g: { lastName: string }) => g.lastName)).toEqual(before.map((g) => g.lastName))
        // the writes that committed before the snapshot are in it, whole: every person row is readable
        const during = (yield* api("GET", "/person/search?query=during%20backup&limit=100")).body
        for (const person of during.persons) expectStatus(yield* api("GET", `/person/${person.personId}`), 200)
      }), 60_000)
  })

  describe("demo data", () => {
    it.scoped("loads a living demo organization in one command", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const result = yield* cli({ ...server.databaseEnv, LOG_LEVEL: "None" }, "demo")
        expect(result.code, result.stderr).toBe(0)
        const token = result.stdout.match(/cvn_[A-Za-z0-9_-]{32,}/)![0]
        const as = { token }
        const search = (yield* server.request("GET", "/person/search?query=a&limit=1", as)).body
        expect(search.total).toBeGreaterThan(250)
        const events = (yield* server.request("GET", "/event?includePastEvents=true&showOrganizationEvents=true", as)).body.events
        expect(events.map((e: { name: string }) => e.name)).toEqual(["Spring Open Studios", "Summer Concert in the Park", "Pottery Workshop", "Annual Gala"])
        const studios = (yield* server.request("GET", `/event/${events[0].eventId}/guestlist`, as)).body.guests
        expect(studios).toHaveLength(120)
        expect(studios.some((g: { attendanceStatus: string | null }) => g.attendanceStatus === "Attended")).toBe(true)
        const concert = (yield* server.request("GET", `/event/${events[1].eventId}/guestlist`, as)).body.guests
        expect(concert.filter((g: { rsvpLink: string | null }) => g.rsvpLink !== null)).toHaveLength(50)
        expect(concert.some((g: { rsvpStatusHistory: Array<unknown> }) => g.rsvpStatusHistory.length >= 3)).toBe(true)
        const gala = (yield* server.request("GET", `/event/${events[3].eventId}/guestlist`, as)).body.guests
        const statuses = new Set(gala.map((g: { paymentStatus: string }) => g.paymentStatus))
        for (const status of ["paid", "refunded", "chargeback", "none"]) expect(statuses).toContain(status)
        expect((yield* cli({ ...server.databaseEnv }, "demo")).code).toBe(1)
      }), 60_000)
  })
})
