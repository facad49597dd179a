/**
 * Retention (docs/integrators.md; CONTRACT §18): what outlives its use is deleted, so that under a
 * steady workload the database stops growing.
 *
 * The workload test runs a whole server on a clock the test moves forward (support/JumpClock.ts):
 * each round does what organizers do in a day (dashboard sign-ins, CSV uploads left at their
 * preview, invitations issued, accepted, replaced), then the clock jumps `ROUND` ahead. After each
 * jump the retentions wake; once no row past its keeping is left (`RETAINED`'s `stale`), every
 * table's rows are counted. Once the longest keeping has passed (the warm-up), no count may exceed
 * what it was at the end of the warm-up.
 *
 * A recurring pass alone (its failures logged, the next pass as planned): test/unit/recurring.test.ts.
 *
 * To cover another table: add a `Retained` entry (its table and which rows are past keeping at a
 * time) and, if the workload does not make its rows yet, a step in `round`.
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { INVITATION_TTL } from "../../src/Organizations/Invitations.js"
import { DRAFT_LIFETIME } from "../../src/Web/Imports/ImportDrafts.js"
import { addMember, type DashboardClient, newOrganization, type PageReply, SESSION_COOKIE, signIn, textOf } from "../support/Dashboard.js"
import { queryDatabase } from "../support/Engine.js"
import { createEvent, eventually, expectStatus, login } from "../support/Fixtures.js"
import { makeJumpClock, serverWith } from "../support/JumpClock.js"
import { TestServer, testServer } from "../support/TestServer.js"

const ORIGIN = "https://convene.test"

/** A table the retentions keep from growing, and the condition of its rows past keeping at a time. */
interface Retained {
  readonly table: string
  /** How long a row stays at most (the warm-up outlasts the longest). */
  readonly keptFor: Duration.Duration
  /** A SQL condition with one `?`, and its value at `now` (ms since the epoch). */
  readonly stale: (now: number) => readonly [condition: string, value: string | number]
}

const iso = (millis: number) => new Date(millis).toISOString()

const RETAINED: ReadonlyArray<Retained> = [
  { table: "import_drafts", keptFor: DRAFT_LIFETIME, stale: (now) => ["created_at <= ?", iso(now - Duration.toMillis(DRAFT_LIFETIME))] },
  { table: "member_invitations", keptFor: INVITATION_TTL, stale: (now) => ["expires_at <= ?", iso(now)] }
]

/** The time one round of the workload stands for. */
const ROUND = Duration.hours(20)
/** Rounds until the longest kept rows of the first round are gone. */
const WARM_UP = Math.ceil(Math.max(...RETAINED.map((r) => Duration.toMillis(r.keptFor))) / Duration.toMillis(ROUND))
const STEADY = 4

type Counts = Readonly<Record<string, { readonly rows: number; readonly stale: number }>>

/** Every table's rows, and of them those past keeping at `now`. */
const countRows = (server: TestServer["Type"], tables: ReadonlyArray<Retained>, now: number) =>
  Effect.promise(async () => {
    const counts: Record<string, { rows: number; stale: number }> = {}
    for (const { stale, table } of tables) {
      const [condition, value] = stale(now)
      const [row] = await queryDatabase<{ rows: number; stale: number }>(
        server.databaseEnv,
        `SELECT count(*) AS rows, count(CASE WHEN ${condition} THEN 1 END) AS stale FROM ${table}`,
        [value]
      )
      counts[table] = { rows: Number(row!.rows), stale: Number(row!.stale) }
    }
    return counts as Counts
  })

/** A file sent with an import page's upload form, as a browser sends it; the preview's address follows. */
const upload = (browser: DashboardClient, path: string, csv: string) =>
  Effect.gen(function*() {
    const token = yield* browser.csrf
    const reply = yield* Effect.promise(async (): Promise<PageReply> => {
      const form = new FormData()
      form.append("_csrf", token)
      form.append("file", new Blob([csv], { type: "text/csv" }), "people.csv")
      const encoded = new Response(form)
      const response = await fetch(browser.url + path, {
        method: "POST",
        body: new Uint8Array(await encoded.arrayBuffer()),
        headers: { cookie: `${SESSION_COOKIE}=${browser.session()}`, origin: ORIGIN, "content-type": encoded.headers.get("content-type")! },
        redirect: "manual"
      })
      return { status: response.status, html: await response.text(), location: response.headers.get("location"), headers: response.headers }
    })
    expect(reply.status, textOf(reply.html).slice(0, 300)).toBe(303)
  })

const clock = makeJumpClock()

layer(testServer().pipe(Layer.provide(serverWith(clock))), { excludeTestServices: true })("retention under a steady workload", (it) => {
  it.effect("drafts and invitations past keeping are deleted after each jump, and the tables stop growing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* newOrganization(server, "steady")
      const owner = yield* addMember(org, "Super Admin")
      const uploaders = [yield* addMember(org, "Team Member"), yield* addMember(org, "Team Member")]
      const elsewhere = yield* newOrganization(server, "elsewhere")
      // users of the instance already: POST /member invites them
      const waiting = yield* addMember(elsewhere, "Viewer")
      const joiner = yield* addMember(elsewhere, "Viewer")
      const event = yield* createEvent(server, {}, org.token)
      const csv = (round: number) => `email,firstName\r\nround${round}@example.com,Round ${round}\r\n`

      /** One day's work: drafts left at their preview, an invitation replaced, one accepted then undone. */
      const round = (n: number) =>
        Effect.gen(function*() {
          for (const member of uploaders) {
            const browser = yield* signIn(server.url, member, { origin: ORIGIN })
            yield* upload(browser, "/app/contacts/import", csv(n))
            yield* upload(browser, `/app/events/${event.eventId}/guests/import`, csv(n))
          }
          const admin = (yield* login(server, owner.email, owner.password, org.slug)).headers
          const invite = (email: string) =>
            Effect.map(server.request("POST", "/member", { token: null, headers: admin, body: { email, password: "ignored anyway", role: "Viewer" } }), (reply) =>
              new URL(expectStatus(reply, 202).body.inviteUrl as string).pathname.split("/").pop()!)
          // the earlier link of `waiting` is revoked by the new one; nobody ever accepts it
          yield* invite(waiting.email)
          const link = yield* invite(joiner.email)
          const user = (yield* login(server, joiner.email, joiner.password)).headers
          expectStatus(yield* server.request("POST", `/member/invitations/${link}/accept`, { token: null, headers: user }), 200)
          expectStatus(yield* server.request("DELETE", `/member/${joiner.userId}`, { token: null, headers: admin }), 200)
        })

      const history: Array<Counts> = []
      for (let n = 0; n < WARM_UP + STEADY; n++) {
        yield* round(n)
        clock.jump(ROUND)
        const counts = yield* eventually(
          Effect.suspend(() => countRows(server, RETAINED, clock.now())),
          (counts) => Object.values(counts).every((c) => c.stale === 0),
          10_000
        )
        for (const [table, { stale }] of Object.entries(counts)) expect(stale, `${table}: rows past keeping after round ${n}`).toBe(0)
        history.push(counts)
      }

      for (const { table } of RETAINED) {
        const rows = history.map((counts) => counts[table]!.rows)
        const plateau = rows[WARM_UP - 1]!
        expect(Math.max(...rows.slice(WARM_UP)), `${table} grows: ${rows.join(", ")}`).toBeLessThanOrEqual(plateau)
      }
      // this workload's own figures: every draft is abandoned within a round, and the invitations of
      // the last 7 days (two a round) are kept, whatever became of them
      expect(history.map((counts) => counts["import_drafts"]!.rows)).toEqual(history.map(() => 0))
      const live = Math.floor(Duration.toMillis(INVITATION_TTL) / Duration.toMillis(ROUND))
      expect(history.map((counts) => counts["member_invitations"]!.rows)).toEqual(history.map((_, n) => 2 * Math.min(n + 1, live)))
    }), { timeout: 180_000 })
})
