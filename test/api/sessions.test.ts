/**
 * Dashboard sessions (CONTRACT §18, docs/integrators.md#the-dashboard) under TestClock: a user keeps
 * at most 20 (a new sign-in ends the oldest), and ended sessions are deleted by the server's purge
 * fiber (which a failing database does not stop: test/unit/recurring.test.ts).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { MAX_SESSIONS_PER_USER } from "../../src/Auth/Sessions.js"
import { dashboardClient, type DashboardClient } from "../support/Dashboard.js"
import { queryDatabase } from "../support/Engine.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

type Server = TestServer["Type"]

const ORIGIN = "https://convene.test"
const owner = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }

const sessionRows = (server: Server) =>
  Effect.map(
    Effect.promise(() => queryDatabase<{ n: number }>(server.databaseEnv, "SELECT count(*) AS n FROM sessions")),
    (rows) => Number(rows[0]!.n)
  )

const signedIn = (server: Server) =>
  Effect.gen(function*() {
    const client = dashboardClient(server.url, { origin: ORIGIN })
    expect((yield* client.signIn(owner)).status).toBe(303)
    return client
  })

/** Whether the client's session still opens a page (an ended one is sent to sign in). */
const live = (client: DashboardClient) => Effect.map(client.get("/app/events"), (page) => page.status === 200)

layer(testServer({ SESSION_IDLE_TIMEOUT: "2 minutes" }), { timeout: 120_000 })("dashboard sessions (TestClock)", (it) => {
  it.effect("a user keeps at most 20 sessions: a new sign-in ends the oldest", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const clients: Array<DashboardClient> = []
      for (let i = 0; i < MAX_SESSIONS_PER_USER; i++) clients.push(yield* signedIn(server))
      expect(yield* sessionRows(server)).toBe(MAX_SESSIONS_PER_USER)
      for (const client of clients) expect(yield* live(client)).toBe(true)

      const newest = yield* signedIn(server)
      expect(yield* live(newest)).toBe(true)
      expect(yield* live(clients[0]!)).toBe(false)
      for (const client of clients.slice(1)) expect(yield* live(client)).toBe(true)
      expect(yield* sessionRows(server)).toBe(MAX_SESSIONS_PER_USER)
      // signed out ones do not count toward the 20
      yield* clients[1]!.post("/app/logout")
      yield* signedIn(server)
      expect(yield* live(clients[2]!)).toBe(true)
    }), 60_000)

  it.effect("ended sessions are deleted by the purge (signed out, idle past SESSION_IDLE_TIMEOUT); live ones stay", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const idle = yield* signedIn(server)
      const signedOut = yield* signedIn(server)
      yield* signedOut.post("/app/logout")
      expect(yield* sessionRows(server)).toBeGreaterThan(0)
      // the purge runs at start and every 10 minutes: at the next, every session is idle past 2
      // minutes (no sign-in since, which would have deleted the user's ended ones itself)
      yield* TestClock.adjust("10 minutes")
      expect(yield* sessionRows(server)).toBe(0)
      expect(yield* live(idle)).toBe(false)
      // a session in use is kept
      yield* TestClock.adjust("9 minutes")
      const recent = yield* signedIn(server)
      yield* TestClock.adjust("1 minute")
      expect(yield* sessionRows(server)).toBe(1)
      expect(yield* live(recent)).toBe(true)
    }), 60_000)
})
