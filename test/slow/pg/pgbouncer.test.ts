/**
 * Convene behind PgBouncer in transaction mode (CONTRACT §15, `DATABASE_POOL_MODE=transaction`),
 * Debian's pgbouncer in front of a PostgreSQL server of the test's own (test/support/PgBouncer.ts):
 * each transaction, and each statement outside one, runs on whichever server connection is free.
 * - Instances starting together on an empty database migrate it once: the migrations' lock is the
 *   transaction's, not a session's (src/Db/PostgresLive.ts).
 * - Under a load of reads and writes through two instances, every request answers: no named
 *   prepared statement is used (with them, PgBouncer's server connections answered `prepared
 *   statement "convene_1" already exists` or `does not exist`), and the outbox delivers.
 * - PostgreSQL restarts behind PgBouncer: the instances, whose connections to PgBouncer stay
 *   open, serve and deliver again by themselves.
 * The rest of the PostgreSQL-specific files also run through a PgBouncer in the suite's PostgreSQL
 * pass (test/support/postgres-pass.mjs).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { AppConfig } from "../../../src/Config/AppConfig.js"
import { SqlLive } from "../../../src/Db/Sql.js"
import { onPostgres, queryDatabase } from "../../support/Engine.js"
import { addGuest, call, environment, within } from "../../support/Outage.js"
import { pgbouncer, pgbouncerAvailable } from "../../support/PgBouncer.js"
import { postgresServer } from "../../support/Postgres.js"
import { startServer } from "../../support/Process.js"
import { receiver } from "../../support/Receiver.js"
import { configFrom } from "../../support/TestServer.js"

describe.runIf(onPostgres && pgbouncerAvailable)("behind PgBouncer in transaction mode (DATABASE_POOL_MODE=transaction)", () => {
  it.scopedLive("instances starting together migrate an empty database once; two instances under load answer every request and deliver", () =>
    Effect.gen(function*() {
      const pg = yield* postgresServer
      const bouncer = yield* pgbouncer(pg.port)
      const database = yield* pg.createDatabase()
      const url = bouncer.url(database)

      // four starts at once (the service's own: src/Db/Sql.ts), through PgBouncer
      const config = Layer.effect(
        AppConfig,
        configFrom({ DATABASE_PATH: "/tmp/unused.db", DATABASE_URL: url, DATABASE_POOL_MODE: "transaction" })
      )
      const started = yield* Effect.all(
        Array.from({ length: 4 }, () => Effect.exit(Layer.build(SqlLive.pipe(Layer.provide(config))))),
        { concurrency: "unbounded" }
      ).pipe(Effect.scoped)
      expect(started.map((exit) => Exit.isSuccess(exit) ? "started" : Cause.pretty(exit.cause))).toEqual(["started", "started", "started", "started"])
      const applied = yield* Effect.promise(() =>
        queryDatabase<{ n: number; distinct: number }>(
          { DATABASE_PATH: "", DATABASE_URL: pg.url(database) },
          "",
          [],
          "SELECT count(*)::int AS n, count(DISTINCT migration_id)::int AS distinct FROM effect_sql_migrations"
        )
      )
      expect(applied[0]!.n).toBe(applied[0]!.distinct)
      expect(applied[0]!.n).toBeGreaterThan(20)

      const hook = yield* receiver
      const env = { ...environment(url), DATABASE_POOL_MODE: "transaction", DATABASE_POOL_SIZE: "6" }
      const instances = [yield* startServer(env), yield* startServer(env)]
      const urls = instances.map((instance) => instance.url)
      expect((yield* call(urls[0]!, "POST", "/webhook", { webhook: hook.url("/list"), type: "GuestList" }))?.status).toBe(200)
      const event = yield* call(urls[1]!, "POST", "/event", { name: "Pooled", primaryDate: "2031-06-01T18:00:00+02:00" })
      const eventId = event!.body.eventId as string

      // reads and writes through both instances at once: the same statement texts again and again
      const statuses: Array<number> = []
      const added: Array<string> = []
      yield* Effect.forEach(Array.from({ length: 40 }, (_, n) => n), (n) =>
        Effect.gen(function*() {
          const through = urls[n % 2]!
          const personId = yield* addGuest(through, eventId, `pooled-${process.pid}-${n}`)
          if (personId !== undefined) added.push(personId)
          for (let i = 0; i < 5; i++) statuses.push((yield* call(through, "GET", `/event/${eventId}/guestlist?limit=5`))?.status ?? 0)
        }), { concurrency: 8, discard: true })
      expect(added).toHaveLength(40)
      expect(statuses.filter((status) => status !== 200)).toEqual([])
      const listed = () => new Set(hook.received.flatMap((r) => (r.json as Array<{ personId: string }>).map((g) => g.personId)))
      expect(yield* within(20_000, Effect.sync(() => added.every((id) => listed().has(id))))).toBe(true)
      for (const instance of instances) expect(instance.output()).not.toMatch(/prepared statement/)
    }), 120_000)

  it.scopedLive("PostgreSQL restarts behind PgBouncer: the instance serves and delivers again by itself", () =>
    Effect.gen(function*() {
      const pg = yield* postgresServer
      const bouncer = yield* pgbouncer(pg.port)
      const url = bouncer.url(yield* pg.createDatabase())
      const hook = yield* receiver
      const instance = yield* startServer({ ...environment(url), DATABASE_POOL_MODE: "transaction" })
      expect((yield* call(instance.url, "POST", "/webhook", { webhook: hook.url("/list"), type: "GuestList" }))?.status).toBe(200)
      const event = yield* call(instance.url, "POST", "/event", { name: "Restarted", primaryDate: "2031-06-01T18:00:00+02:00" })
      const eventId = event!.body.eventId as string
      expect(yield* addGuest(instance.url, eventId, `before-${process.pid}`)).toBeDefined()
      yield* hook.next(10_000)

      // requests while PostgreSQL is away wait for it in PgBouncer, or, those whose connection the
      // shutdown ended, are refused 503 `unavailable` (retry later), never 500 (which of them meets
      // the moment is luck: src/Db/SqlErrors.ts `isConnectionLost` is tested on its own)
      const refusals = new Set<string>()
      const probing = yield* Effect.fork(Effect.forever(Effect.zipRight(
        Effect.map(call(instance.url, "GET", `/event/${eventId}`, undefined, 5_000), (reply) => {
          if (reply !== undefined && reply.status !== 200) refusals.add(`${reply.status} ${reply.body?.code}`)
        }),
        Effect.sleep("50 millis")
      )))
      yield* pg.restart("2 seconds")
      const back = Date.now()
      // within 30 s of the database answering again: ready, a write accepted, its notification delivered
      const personId = yield* Effect.gen(function*() {
        for (;;) {
          const id = yield* addGuest(instance.url, eventId, `after-${process.pid}-${Date.now()}`)
          if (id !== undefined || Date.now() - back > 30_000) return id
          yield* Effect.sleep("250 millis")
        }
      })
      expect(personId, instance.output().slice(-3_000)).toBeDefined()
      yield* Fiber.interrupt(probing)
      expect([...refusals].filter((r) => r !== "503 unavailable")).toEqual([])
      expect((yield* call(instance.url, "GET", "/readyz"))?.status).toBe(200)
      const arrived = yield* within(
        30_000 - (Date.now() - back),
        Effect.sync(() => hook.received.some((r) => (r.json as Array<{ personId: string }>).some((g) => g.personId === personId)))
      )
      expect(arrived, instance.output().slice(-3_000)).toBe(true)
    }), 120_000)
})
