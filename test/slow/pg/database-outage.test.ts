/**
 * The database may restart, fail over or be cut off (CONTRACT §15): instances recover by
 * themselves, with no restart of their own, and keep §8's guarantees across it. Each test runs its
 * own PostgreSQL server (test/support/Postgres.ts), so that restarting it or cutting it off
 * disturbs nothing else, and instances of the service as processes.
 * - A restart: three instances take a steady load of guest-list writes and RSVP changes (each a
 *   `GuestList` and an `EventPerson` notification) through all of them while PostgreSQL restarts,
 *   once after 10 s down (a failover) and once at once (`pg_ctl restart -m fast`). Within 30 s of
 *   the database answering again, every instance's `/readyz` is 200, it answers requests, and it
 *   claims and delivers again (each is seen claiming), and its change feed answers (its first read
 *   having come while the database was down); in the end every notification is delivered,
 *   none was sent twice at once, and every accepted write's notification arrived.
 * - A network cut: one instance is cut off from the database (its connections silent, behind a
 *   proxy) while it sends four notifications to a receiver that takes 40 s to answer. It stops
 *   those attempts (uncounted) before the other instance may take them over, which it does once
 *   the cut-off instance's heartbeat is stale, well before their leases run out: each is delivered
 *   once more, never twice at once, and recorded once. When the network is back, the cut-off
 *   instance serves requests and claims and delivers again, by itself.
 * PostgreSQL only: on SQLite one process owns the database file, with no server to restart or cut.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { onPostgres, queryDatabase } from "../../support/Engine.js"
import { addGuest, call, claimantsNow, environment, within } from "../../support/Outage.js"
import { postgresServer } from "../../support/Postgres.js"
import { type ServerProcess, startServer } from "../../support/Process.js"
import { receiver } from "../../support/Receiver.js"
import { tcpProxy } from "../../support/TcpProxy.js"

describe.skipIf(!onPostgres)("the database restarts or is cut off (PostgreSQL only: on SQLite one process owns the file)", () => {
  it.scopedLive("three instances under load, PostgreSQL restarted twice: each serves, claims and delivers again within 30 s; nothing lost, nothing twice at once", () =>
    Effect.gen(function*() {
      const pg = yield* postgresServer
      const url = pg.url(yield* pg.createDatabase())
      const hook = yield* receiver
      hook.answer = () => ({ status: 200, afterMs: 150 })
      const env = { ...environment(url), WEBHOOK_TIMEOUT: "2 seconds" }
      const leaseMs = 2_000 + 30_000
      const instances: Array<ServerProcess> = []
      for (let i = 0; i < 3; i++) instances.push(yield* startServer(env))
      const urls = instances.map((instance) => instance.url)
      const logs = () => instances.map((instance, i) => `--- instance ${i}\n${instance.output().slice(-3_000)}`).join("\n")

      for (const [type, path] of [["EventPerson", "/person"], ["GuestList", "/list"]] as const) {
        expect((yield* call(urls[0]!, "POST", "/webhook", { webhook: hook.url(path), type }))?.status).toBe(200)
      }
      const event = yield* call(urls[0]!, "POST", "/event", { name: "Outage", primaryDate: "2031-06-01T18:00:00+02:00" })
      const eventId = event!.body.eventId as string

      /** GuestList bodies received, by person; EventPerson bodies received, by person and status. */
      const listed = () => new Set(hook.received.filter((r) => r.path === "/list").flatMap((r) => (r.json as Array<any>).map((g) => g?.personId)))
      const answered = () => new Set(hook.received.filter((r) => r.path === "/person").map((r) => `${r.json[0].personId}:${r.json[0].rsvpStatus}`))

      // the load: three writers through the three instances, each write to the next
      const accepted = { guests: new Set<string>(), answers: new Set<string>() }
      /** What the writes were answered while the database was away: 503 `unavailable`, never a 500. */
      const refusals = new Set<string>()
      let running = true
      let turn = 0
      const writer = Effect.gen(function*() {
        while (running) {
          const n = turn++
          const personId = yield* addGuest(urls[n % 3]!, eventId, `${process.pid}-${n}`)
          if (personId === undefined) {
            yield* Effect.sleep("200 millis")
            continue
          }
          accepted.guests.add(personId)
          const changed = yield* call(urls[(n + 1) % 3]!, "PUT", `/event/${eventId}/guestlist`, { guests: [{ personId, rsvpStatus: "Accepted" }] })
          if (changed?.status === 200) accepted.answers.add(`${personId}:Accepted`)
          else if (changed !== undefined) refusals.add(`${changed.status} ${changed.body?.code}`)
          yield* Effect.sleep("50 millis")
        }
      })
      const writers = yield* Effect.fork(Effect.all([writer, writer, writer], { concurrency: "unbounded", discard: true }))

      /**
       * After the database answers again: within 30 s, each instance's /readyz is 200, and a write
       * through it is accepted and its notification delivered; so again 15 s later (past the time
       * it takes an instance to notice what it lost); meanwhile each instance is seen claiming (its
       * claimant among those of the claims made since).
       */
      const recovers = (label: string, restart: Effect.Effect<void>, duringOutage: Effect.Effect<void> = Effect.void) =>
        Effect.gen(function*() {
          // the load runs before the restart: a few more writes accepted (it was a fixed 3 s)
          const before = accepted.guests.size
          expect(yield* within(10_000, Effect.sync(() => accepted.guests.size >= before + 9)), `${label}: the load runs before the restart`).toBe(true)
          const restarting = yield* Effect.fork(restart)
          yield* Effect.sleep("1500 millis")
          yield* duringOutage
          yield* Fiber.join(restarting)
          const answering = Date.now()
          const claimants = new Set<string>()
          const sampler = yield* Effect.fork(Effect.forever(Effect.zipRight(
            Effect.map(claimantsNow(url, answering, leaseMs), (seen) => seen.forEach((id) => claimants.add(id))),
            Effect.sleep("100 millis")
          )))
          const serves = (when: string, from: number, ms: number) =>
            Effect.gen(function*() {
              const each = yield* Effect.forEach(urls, (instanceUrl, i) =>
                Effect.gen(function*() {
                  const ready = yield* within(ms, Effect.map(call(instanceUrl, "GET", "/readyz", undefined, 5_000), (r) => r?.status === 200))
                  const readyAfter = Date.now() - from
                  let personId: string | undefined
                  yield* within(ms - readyAfter, Effect.map(addGuest(instanceUrl, eventId, `${label}-${i}-${Date.now()}`), (id) => (personId = id) !== undefined))
                  const delivered = personId !== undefined && (yield* within(ms - (Date.now() - from), Effect.sync(() => listed().has(personId))))
                  const feed = (yield* call(instanceUrl, "GET", "/changes?limit=1"))?.status
                  return { ready, readyAfter, accepted: personId !== undefined, delivered, deliveredAfter: Date.now() - from, feed }
                }), { concurrency: "unbounded" })
              console.info(`${label}, ${when}: ${JSON.stringify(each)}`)
              for (const [i, result] of each.entries()) {
                expect(result.ready, `${label}, ${when}: instance ${i}'s /readyz is 200\n${logs()}`).toBe(true)
                expect(result.accepted, `${label}, ${when}: instance ${i} accepts a write`).toBe(true)
                expect(result.delivered, `${label}, ${when}: instance ${i}'s write is delivered\n${logs()}`).toBe(true)
                expect(result.feed, `${label}, ${when}: instance ${i}'s change feed answers`).toBe(200)
              }
            })
          yield* serves("within 30 s of the database answering", answering, 30_000)
          yield* Effect.sleep(Duration.millis(Math.max(0, answering + 15_000 - Date.now())))
          yield* serves("15 s later", Date.now(), 10_000)
          yield* within(5_000, Effect.sync(() => claimants.size >= 3))
          yield* Fiber.interrupt(sampler)
          expect(claimants.size, `${label}: claimants seen since the database answered again\n${logs()}`).toBe(3)
        })

      // the instances' first reads of the change feed come while the database is down
      yield* recovers(
        "10 s down",
        pg.restart("10 seconds"),
        Effect.forEach(urls, (instanceUrl) => call(instanceUrl, "GET", "/changes?limit=1"), { discard: true })
      )
      yield* recovers("a fast restart", pg.restart())
      yield* Effect.sleep("2 seconds")
      running = false
      yield* Fiber.join(writers)

      // every delivery ends delivered (an outcome lost with the database is sent again once its
      // lease runs out), every message reached the receiver, none twice at once
      const count = (where: string) =>
        Effect.promise(() => queryDatabase<{ n: number }>({ DATABASE_PATH: "", DATABASE_URL: url }, "", [], `SELECT count(*)::int AS n FROM outbox_deliveries ${where}`))
          .pipe(Effect.map((rows) => rows[0]!.n))
      expect(yield* within(90_000, Effect.map(count("WHERE status <> 'delivered'"), (n) => n === 0)), `deliveries left\n${logs()}`).toBe(true)
      const messages = yield* Effect.promise(() =>
        queryDatabase<{ public_id: string }>({ DATABASE_PATH: "", DATABASE_URL: url }, "", [], "SELECT public_id FROM webhook_messages")
      )
      const ids = new Set(hook.received.map((r) => r.headers["webhook-id"]))
      expect(messages.filter((m) => !ids.has(m.public_id))).toEqual([])
      expect(hook.overlaps).toEqual([])
      expect([...refusals].filter((r) => r !== "503 unavailable"), "answers to writes while the database was away").toEqual([])
      // every accepted write's notifications arrived
      expect(accepted.guests.size).toBeGreaterThan(20)
      expect([...accepted.guests].filter((id) => !listed().has(id))).toEqual([])
      expect([...accepted.answers].filter((answer) => !answered().has(answer))).toEqual([])
      // no instance was restarted
      for (const instance of instances) expect(instance.child.exitCode).toBeNull()
      console.info(`database restarts: ${accepted.guests.size} guests, ${accepted.answers.size} answers, ${messages.length} messages, ${hook.received.length} requests`)
    }), 240_000)

  it.scopedLive("one instance cut off from the database: its attempts stop, the other takes them over early, once at a time; back, it serves and delivers by itself", () =>
    Effect.gen(function*() {
      const pg = yield* postgresServer
      const database = yield* pg.createDatabase()
      const url = pg.url(database)
      const proxy = yield* tcpProxy(pg.port)
      const hook = yield* receiver
      // the first arrival of each notification waits 40 s for its answer; the others are answered at once
      const seen = new Set<string>()
      hook.answer = (request) => {
        const id = String(request.headers["webhook-id"])
        if (seen.has(id)) return 200
        seen.add(id)
        return { status: 200, afterMs: 40_000 }
      }
      const env = { ...environment(url), WEBHOOK_TIMEOUT: "45 seconds" }
      const count = (sql: string) =>
        Effect.promise(() => queryDatabase<{ n: number }>({ DATABASE_PATH: "", DATABASE_URL: url }, "", [], sql)).pipe(Effect.map((rows) => rows[0]!.n))

      // the instance to be cut off reaches the database through the proxy; alone at first, it
      // claims the four notifications and sends them
      const cutOff = yield* startServer({ ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/${database}` })
      expect((yield* call(cutOff.url, "POST", "/webhook", { webhook: hook.url("/list"), type: "GuestList" }))?.status).toBe(200)
      const event = yield* call(cutOff.url, "POST", "/event", { name: "Cut off", primaryDate: "2031-06-01T18:00:00+02:00" })
      const eventId = event!.body.eventId as string
      for (let i = 0; i < 4; i++) expect(yield* addGuest(cutOff.url, eventId, `cut-${process.pid}-${i}`)).toBeDefined()
      expect(yield* within(10_000, Effect.sync(() => hook.received.length === 4))).toBe(true)
      const other = yield* startServer(env)
      const logs = () => `--- cut off\n${cutOff.output().slice(-3_000)}\n--- other\n${other.output().slice(-3_000)}`
      const before = new Set(
        (yield* Effect.promise(() =>
          queryDatabase<{ id: string }>({ DATABASE_PATH: "", DATABASE_URL: url }, "", [], "SELECT id FROM outbox_instances").catch(() => [])
        )).map((row) => row.id)
      )

      yield* proxy.cut
      const cutAt = Date.now()
      // the other instance sends each once more once the cut-off one's heartbeat is stale (15 s),
      // long before their leases (45 s + 30 s) run out; and never while the first is still open
      expect(yield* within(40_000, Effect.sync(() => hook.received.length >= 8)), logs()).toBe(true)
      const takenOver = Date.now() - cutAt
      expect(yield* within(10_000, Effect.map(count("SELECT count(*)::int AS n FROM outbox_deliveries WHERE status = 'delivered' AND attempts = 1"), (n) => n === 4)), logs())
        .toBe(true)
      expect(hook.overlaps).toEqual([])

      yield* proxy.heal
      const healedAt = Date.now()
      // by itself: ready, answering, and claiming and delivering again, under a new name
      expect(yield* within(30_000, Effect.map(call(cutOff.url, "GET", "/readyz", undefined, 5_000), (r) => r?.status === 200)), logs()).toBe(true)
      hook.answer = () => ({ status: 200, afterMs: 300 })
      const claimants = new Set<string>()
      const sampler = yield* Effect.fork(Effect.forever(Effect.zipRight(
        Effect.map(claimantsNow(url, healedAt, 45_000 + 30_000), (ids) => ids.forEach((id) => claimants.add(id))),
        Effect.sleep("50 millis")
      )))
      const guests: Array<string> = []
      yield* within(30_000, Effect.gen(function*() {
        const personId = yield* addGuest(cutOff.url, eventId, `back-${process.pid}-${Date.now()}`)
        if (personId !== undefined) guests.push(personId)
        return [...claimants].some((id) => !before.has(id))
      }))
      yield* Fiber.interrupt(sampler)
      expect([...claimants].filter((id) => !before.has(id)), `a new claimant of the cut-off instance\n${logs()}`).toHaveLength(1)
      const bodies = () => hook.received.map((r) => r.body).join("\n")
      expect(yield* within(10_000, Effect.sync(() => guests.every((id) => bodies().includes(id))))).toBe(true)
      expect(guests.length).toBeGreaterThan(0)
      expect(hook.overlaps).toEqual([])
      expect(Date.now() - healedAt).toBeLessThan(30_000)
      console.info(`network cut: taken over after ${takenOver} ms; back in ${Date.now() - healedAt} ms`)
    }), 150_000)
})
