/**
 * Dashboard sessions (CONTRACT §18, docs/integrators.md#the-dashboard) on a clock the test moves
 * (support/JumpClock.ts, standing still between jumps: a jump of 10 minutes costs nothing, where a
 * TestClock runs every background pass of the server in between): a user keeps at most 20 (a new
 * sign-in ends the oldest), and ended sessions are deleted by the server's purge fiber (which a
 * failing database does not stop: test/unit/recurring.test.ts).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { MAX_SESSIONS_PER_USER } from "../../src/Auth/Sessions.js"
import { addMember, dashboardClient, type DashboardClient } from "../support/Dashboard.js"
import { queryDatabase } from "../support/Engine.js"
import { makeJumpClock, serverWith } from "../support/JumpClock.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

type Server = TestServer["Type"]

const ORIGIN = "https://convene.test"
const owner = { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }

const sessionRows = (server: Server) =>
  Effect.map(
    Effect.promise(() => queryDatabase<{ n: number }>(server.databaseEnv, "SELECT count(*) AS n FROM sessions")),
    (rows) => Number(rows[0]!.n)
  )

const signedIn = (server: Server, account: { readonly email: string; readonly password: string } = owner) =>
  Effect.gen(function*() {
    const client = dashboardClient(server.url, { origin: ORIGIN })
    expect((yield* client.signIn(account)).status).toBe(303)
    return client
  })

/** Waits (in real time, up to 20 s) until the table holds `n` sessions; a pass woken by a jump runs after it. */
const untilSessionRows = (server: Server, n: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      if ((yield* sessionRows(server)) === n) return
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
    }
    expect(yield* sessionRows(server)).toBe(n)
  })

/** Whether the client's session still opens a page (an ended one is sent to sign in). */
const live = (client: DashboardClient) => Effect.map(client.get("/app/events"), (page) => page.status === 200)

const clock = makeJumpClock({ still: true })
const jump = clock.advance

const sessionsServer = testServer({ SESSION_IDLE_TIMEOUT: "2 minutes" }).pipe(Layer.provide(serverWith(clock)))

layer(sessionsServer, { excludeTestServices: true, timeout: 120_000 })("dashboard sessions (a clock the test moves)", (it) => {
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
      const ended = yield* sessionRows(server)
      expect(ended).toBeGreaterThan(1)
      // the purge runs at start and every 10 minutes. A minute before the next, another user signs
      // in (the owner signs in no more: a sign-in deletes its user's ended sessions itself)
      yield* jump("9 minutes")
      const other = yield* server.organization(`sessions-${process.pid}`)
      const recent = yield* signedIn(server, yield* addMember({ id: other.id, slug: `sessions-${process.pid}`, name: "Other" }, "Viewer"))
      expect(yield* sessionRows(server)).toBe(ended + 1)
      // at the next purge, the owner's sessions are idle past 2 minutes or signed out: deleted; the
      // session in use is kept
      yield* jump("1 minute")
      yield* untilSessionRows(server, 1)
      expect(yield* live(idle)).toBe(false)
      expect(yield* live(recent)).toBe(true)
    }), 60_000)
})
