import { describe, expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { copyFileSync } from "node:fs"
import { join } from "node:path"
import { concertOf, dayFrom, studiosName } from "../../src/Cli/DemoData.js"
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
        // the test server's environment: its first start's organization (acme) and its public address
        const env = { ...server.databaseEnv, LOG_LEVEL: "None", BOOTSTRAP_ORG_SLUG: "acme", PUBLIC_BASE_URL: "https://convene.test" }
        const result = yield* cli(env, "demo")
        expect(result.code, result.stderr).toBe(0)
        // the address the server really has; the first start's Super Admin is told where to find it
        expect(result.stdout).toContain("owner@acme.test (of \"acme\") can open it now: sign in at https://convene.test/app")
        expect(result.stdout).toContain("Public page: https://convene.test/o/demo")
        expect(result.stdout).not.toContain("localhost")
        const token = result.stdout.match(/cvn_[A-Za-z0-9_-]{32,}/)![0]
        const as = { token }
        const search = (yield* server.request("GET", "/person/search?query=a&limit=1", as)).body
        expect(search.total).toBeGreaterThan(250)
        const events = (yield* server.request("GET", "/event?includePastEvents=true&showOrganizationEvents=true", as)).body.events
        // names fit their dates (no "Spring" day in November)
        const day = dayFrom(Date.now())
        expect(events.map((e: { name: string }) => e.name)).toEqual([studiosName(day(-40, 10)), concertOf(day(30, 19)).name, "Pottery Workshop", "Annual Gala"])
        expect(studiosName(new Date("2026-11-20T15:00:00Z"))).toBe("Autumn Open Studios")
        expect(concertOf(new Date("2026-12-28T23:00:00Z")).name).toBe("Winter Concert at the Arts Center")
        expect(concertOf(new Date("2027-07-01T23:00:00Z")).name).toBe("Summer Concert in the Park")
        // the first start's Super Admin is a Super Admin of the demo too
        const members = (yield* server.request("GET", "/member", as)).body
        expect(JSON.stringify(members)).toContain("owner@acme.test")
        // public, registration open: the organization's public face shows it
        const listed = (yield* server.request("GET", "/o/demo/events.json", { token: null })).body.events
        expect(listed.map((e: { name: string }) => e.name)).toEqual([events[1].name, "Pottery Workshop"])
        expect(listed[0]).toMatchObject({ registrationOpen: true, url: `https://convene.test/e/${events[1].primarySlug}` })
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
