/**
 * Dashboard sessions over the database, on the suite's engine, under TestClock (the API's proof:
 * test/api/sessions.test.ts, test/slow/dashboard-security.browser.test.ts): a session is found by
 * its cookie while it lives, and not once it is idle past `SESSION_IDLE_TIMEOUT`, signed out, or
 * ended with the user's other sessions; a user keeps at most 20 (a new one ends the oldest, and
 * ended ones do not count); the purge deletes what has ended and keeps what lives.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, TestClock } from "effect"
import { MAX_SESSIONS_PER_USER, PURGE_INTERVAL, Sessions, sessionsPurge } from "../../src/Auth/Sessions.js"
import { SessionsRepo } from "../../src/Auth/SessionsRepo.js"
import { Members } from "../../src/Organizations/Members.js"
import { OrganizationsRepo } from "../../src/Organizations/OrganizationsRepo.js"
import { bareDatabase, TestDatabase } from "../support/Database.js"

const sessionRows = Effect.flatMap(TestDatabase, (db) =>
  Effect.map(db.query<{ n: number }>("SELECT count(*) AS n FROM sessions"), (rows) => Number(rows[0]!.n)))

/** A user of a new organization, as the operator adds one. */
const user = (slug: string) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase
    const { caller } = yield* db.organization(slug)
    const organization = yield* Effect.flatMap(OrganizationsRepo, (repo) => repo.organizationBySlug(slug))
    yield* (yield* Members).addDirectly(Option.getOrThrow(organization), {
      email: `owner@${slug}.test`,
      password: Option.some(Redacted.make(`password of ${slug}`)),
      firstName: "Owner",
      lastName: slug,
      role: "Super Admin"
    }).pipe(Effect.orDie)
    const [row] = yield* db.query<{ id: number }>("SELECT id FROM users WHERE email_key = ?", [`owner@${slug}.test`])
    return { userId: Number(row!.id), organizationId: caller.organizationId }
  })

const live = (token: string) => Effect.map(Effect.flatMap(Sessions, (sessions) => sessions.resume(token)), Option.isSome)

// no other service's timers to wake at every adjustment of the clock
const Tested = Layer.mergeAll(Sessions.Default, SessionsRepo.Default, OrganizationsRepo.Default, Members.Default).pipe(
  Layer.provideMerge(bareDatabase({ SESSION_IDLE_TIMEOUT: "2 minutes" }))
)

layer(Tested, { timeout: 120_000 })("dashboard sessions over the database (TestClock)", (it) => {
  it.effect("a user keeps at most 20 sessions: a new one ends the oldest, ended ones do not count", () =>
    Effect.gen(function*() {
      const sessions = yield* Sessions
      const { organizationId, userId } = yield* user("sessions-max")
      const tokens: Array<string> = []
      for (let i = 0; i < MAX_SESSIONS_PER_USER; i++) {
        tokens.push(yield* sessions.start(userId, organizationId))
        yield* TestClock.adjust("1 millis")
      }
      for (const token of tokens) expect(yield* live(token)).toBe(true)
      const newest = yield* sessions.start(userId, organizationId)
      expect(yield* live(newest)).toBe(true)
      expect(yield* live(tokens[0]!)).toBe(false)
      for (const token of tokens.slice(1)) expect(yield* live(token)).toBe(true)
      expect(yield* sessionRows).toBe(MAX_SESSIONS_PER_USER)
      // a signed-out one no longer counts
      yield* sessions.end(Option.getOrThrow(yield* sessions.resume(tokens[1]!)))
      yield* sessions.start(userId, organizationId)
      expect(yield* live(tokens[2]!)).toBe(true)
      // ending every session of the user but one
      const kept = Option.getOrThrow(yield* sessions.resume(newest))
      yield* sessions.endAllOfUser(userId, kept)
      expect(yield* live(newest)).toBe(true)
      expect(yield* live(tokens[2]!)).toBe(false)
      // what a session holds: its user, organization, CSRF token and flash
      yield* sessions.flash(kept, { kind: "success", message: "Saved «ok» 😀" })
      const read = Option.getOrThrow(yield* sessions.resume(newest))
      expect(read).toMatchObject({ userId, organizationId, email: "owner@sessions-max.test", flash: { kind: "success", message: "Saved «ok» 😀" } })
      expect(read.csrf.length).toBeGreaterThan(20)
    }))

  it.scoped("idle past SESSION_IDLE_TIMEOUT a session is over; the purge deletes ended sessions and keeps live ones", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const sessions = yield* Sessions
      const { organizationId, userId } = yield* user("sessions-purge")
      yield* db.query("DELETE FROM sessions")
      const idle = yield* sessions.start(userId, organizationId)
      const used = yield* sessions.start(userId, organizationId)
      const signedOut = yield* sessions.start(userId, organizationId)
      yield* sessions.end(Option.getOrThrow(yield* sessions.resume(signedOut)))
      yield* Layer.build(sessionsPurge.pipe(Layer.provide(SessionsRepo.Default)))
      // a session in use is touched (at most once a minute) and lives on
      for (let minute = 0; minute < 3; minute++) {
        yield* TestClock.adjust("61 seconds")
        expect(yield* live(used)).toBe(true)
      }
      expect(yield* live(idle)).toBe(false)
      yield* TestClock.adjust(PURGE_INTERVAL)
      expect(yield* sessionRows).toBe(0)
      yield* TestClock.adjust("9 minutes")
      const recent = yield* sessions.start(userId, organizationId)
      yield* TestClock.adjust("1 minute")
      expect(yield* sessionRows).toBe(1)
      expect(yield* live(recent)).toBe(true)
    }))
})
