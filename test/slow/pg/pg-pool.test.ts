/**
 * PostgreSQL's pool of connections under pressure (README "Several instances on PostgreSQL"): a
 * small pool (`DATABASE_POOL_SIZE`), none of whose connections is held for good, and
 * another client of the database holding the write lock (a long import elsewhere) or a table
 * lock (slow statements):
 * - writers queued behind the lock take two connections between them, and reads go on with the
 *   rest: a person, a plain search (a read transaction), an idempotent replay (its key is read
 *   without the write lock); the writes commit once the lock is free;
 * - when every connection stays busy, a request answers 503 `unavailable` after
 *   `DATABASE_ACQUIRE_TIMEOUT` instead of waiting for ever, and the service recovers with the pool.
 * It runs in the PostgreSQL pass of the suite (`npm run test:pg`), the configuration check on both.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Chunk, Context, Duration, Effect, Fiber, Layer, Redacted, Stream } from "effect"
import Pg from "pg"
import { DirectSql } from "../../../src/Db/DirectSql.js"
import * as Postgres from "../../../src/Db/Postgres.js"
import * as PreparedStatements from "../../../src/Db/PreparedStatements.js"
import { WRITE_LOCK } from "../../../src/Db/Postgres.js"
import { onPostgres, viaPgBouncer } from "../../support/Engine.js"
import { createEvent, createPerson, expectError, expectStatus, uniqueEmail } from "../../support/Fixtures.js"
import { configFrom, type Reply, TestServer, testEnvironment, testServer } from "../../support/TestServer.js"

/** A client of the test server's database of its own, closed with the scope. */
const outsider = Effect.gen(function*() {
  const { databaseEnv } = yield* TestServer
  return yield* Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Pg.Client({ connectionString: databaseEnv.DATABASE_URL })
      await client.connect()
      return client
    }),
    (client) => Effect.promise(() => client.end())
  )
})

const query = (client: Pg.Client, text: string) => Effect.promise(() => client.query(text))

/** A pool of the service's own (`Postgres.layer`) on the test server's database, closed with the scope. */
const ownPool = (options: Omit<Postgres.Options, "url">) =>
  Effect.gen(function*() {
    const { databaseEnv } = yield* TestServer
    const mode = viaPgBouncer ? { mode: "transaction" as const } : {}
    const context = yield* Layer.build(Postgres.layer({ url: Redacted.make(databaseEnv.DATABASE_URL!), ...mode, ...options }))
    return { sql: Context.get(context, SqlClient.SqlClient), direct: Context.get(context, DirectSql) }
  })

/** The reply and how long it took, in milliseconds. */
const timed = <A>(self: Effect.Effect<Reply<A>>) =>
  Effect.gen(function*() {
    const started = Date.now()
    const reply = yield* self
    return { reply, ms: Date.now() - started }
  })

describe("DATABASE_POOL_SIZE and DATABASE_ACQUIRE_TIMEOUT", () => {
  it.effect("are validated at start with a line naming them", () =>
    Effect.gen(function*() {
      const bad = (env: Record<string, string>) =>
        configFrom({ ...testEnvironment("/tmp/x.db"), ...env }).pipe(Effect.flip, Effect.catchAllDefect((d) => Effect.succeed(String(d))), Effect.map(String))
      expect(yield* bad({ DATABASE_POOL_SIZE: "3" })).toContain("DATABASE_POOL_SIZE must be an integer from 4 to 1000 (got \"3\")")
      expect(yield* bad({ DATABASE_POOL_SIZE: "many" })).toContain("DATABASE_POOL_SIZE must be an integer from 4 to 1000")
      expect(yield* bad({ DATABASE_ACQUIRE_TIMEOUT: "0s" })).toContain("DATABASE_ACQUIRE_TIMEOUT must be a duration")
      const config = yield* configFrom({ ...testEnvironment("/tmp/x.db"), DATABASE_POOL_SIZE: "25", DATABASE_ACQUIRE_TIMEOUT: "2 seconds" })
      expect(config.databasePool.size).toBe(25)
      expect(Duration.toMillis(config.databasePool.acquireTimeout)).toBe(2_000)
    }))
})

describe.runIf(onPostgres)("PostgreSQL's pool under pressure", () => {
  // four connections: two for writers, two left for everything else
  layer(testServer({ DATABASE_POOL_SIZE: "4", DATABASE_ACQUIRE_TIMEOUT: "2 seconds" }), { excludeTestServices: true })("writers behind the write lock", (it) => {
    it.scoped("take two connections between them: reads, a plain search and an idempotent replay still answer", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const personId = yield* createPerson(server)
        const event = yield* createEvent(server)
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } }), 200)
        const idempotent = {
          body: { firstName: "Once", lastName: "Only", email: uniqueEmail("once") },
          headers: { "idempotency-key": `pool-${process.pid}` }
        }
        const first = expectStatus(yield* server.request("POST", "/person", idempotent), 201)

        // a long write elsewhere: another client of the database holds the write lock
        const importer = yield* outsider
        yield* query(importer, "BEGIN")
        yield* query(importer, `SELECT pg_advisory_xact_lock(${WRITE_LOCK})`)
        const writers = yield* Effect.forEach([1, 2, 3, 4], (i) =>
          Effect.fork(server.request("POST", "/person", { body: { firstName: "Queued", lastName: String(i), email: uniqueEmail("queued") } })))
        yield* Effect.sleep("500 millis")

        const read = yield* timed(server.request("GET", `/person/${personId}`))
        expectStatus(read.reply, 200)
        expect(read.ms).toBeLessThan(1_500)
        const search = yield* timed(server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${personId}`))
        expect(expectStatus(search.reply, 200).body.guests.map((g: { personId: string }) => g.personId)).toEqual([personId])
        expect(search.ms).toBeLessThan(1_500)
        const replay = yield* timed(server.request("POST", "/person", idempotent))
        expectStatus(replay.reply, 201)
        expect(replay.reply.headers.get("idempotent-replayed")).toBe("true")
        expect(replay.reply.body).toEqual(first.body)
        expect(replay.ms).toBeLessThan(1_500)

        // the writers waited for the lock, not for a connection: all of them commit once it is free
        for (const writer of writers) expect(writer.unsafePoll()).toBeNull()
        yield* query(importer, "COMMIT")
        for (const writer of writers) expectStatus(yield* Fiber.join(writer), 201)
      }), 30_000)
  })

  layer(testServer({ DATABASE_POOL_SIZE: "4", DATABASE_ACQUIRE_TIMEOUT: "1 second" }), { excludeTestServices: true })("every connection busy", (it) => {
    it.scoped("a request answers 503 unavailable after DATABASE_ACQUIRE_TIMEOUT, not never; the service recovers", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const personId = yield* createPerson(server)
        // slow statements: another client locks the persons table, and four reads of a person
        // each hold a connection while they wait for it
        const locker = yield* outsider
        yield* query(locker, "BEGIN")
        yield* query(locker, "LOCK TABLE persons IN ACCESS EXCLUSIVE MODE")
        const stuck = yield* Effect.forEach([1, 2, 3, 4], () => Effect.fork(server.request("GET", `/person/${personId}`)))
        yield* Effect.sleep("500 millis")

        const refused = yield* timed(server.request("GET", "/event"))
        expectError(refused.reply, 503, "unavailable")
        expect(refused.reply.headers.get("retry-after")).toBe("1")
        expect(refused.reply.text).not.toMatch(/timeout exceeded|SqlError|pg/)
        expect(refused.ms).toBeGreaterThanOrEqual(900)
        expect(refused.ms).toBeLessThan(3_000)
        const refusedEmail = uniqueEmail("noroom")
        const write = yield* timed(server.request("POST", "/person", { body: { firstName: "No", lastName: "Room", email: refusedEmail } }))
        expectError(write.reply, 503, "unavailable")
        expect(write.ms).toBeLessThan(3_000)

        yield* query(locker, "ROLLBACK")
        for (const fiber of stuck) expectStatus(yield* Fiber.join(fiber), 200)
        expectStatus(yield* server.request("GET", "/event"), 200)
        // the refused write changed nothing
        expect(expectStatus(yield* server.request("GET", `/person/search?email=${encodeURIComponent(refusedEmail)}`), 200).body.total).toBe(0)
        expectStatus(yield* server.request("POST", "/person", { body: { firstName: "Now", lastName: "Room", email: refusedEmail } }), 201)
      }), 30_000)
  })
})

describe.runIf(onPostgres)("a read transaction interrupted while it waits for a connection", () => {
  layer(testServer(), { excludeTestServices: true })("on PostgreSQL", (it) => {
    it.scoped("leaves no connection behind: the pool serves statements, read transactions and snapshots after it", () =>
      Effect.gen(function*() {
        const { direct, sql } = yield* ownPool({ maxConnections: 2, acquireTimeout: "1 second" })
        // both connections busy; two read transactions (as a download's snapshot) wait for one,
        // and their clients leave before it comes
        const busy = yield* Effect.forEach([1, 2], () => Effect.fork(sql`SELECT pg_sleep(0.5)`))
        yield* Effect.sleep("100 millis")
        const waiting = yield* Effect.forEach([1, 2], () => Effect.fork(direct.readTransaction(direct.unchecked.rows(sql`SELECT 1 AS one`))))
        yield* Effect.sleep("100 millis")
        yield* Effect.forEach(waiting, Fiber.interrupt)
        yield* Effect.forEach(busy, Fiber.join)
        // the connections the pool handed to them came back: two statements at once, within the
        // second DATABASE_ACQUIRE_TIMEOUT gives, then a read transaction and a snapshot
        expect(yield* Effect.all([sql`SELECT 1 AS one`, sql`SELECT 2 AS one`], { concurrency: 2 })).toEqual([[{ one: 1 }], [{ one: 2 }]])
        expect(yield* direct.readTransaction(direct.unchecked.rows(sql`SELECT 3 AS one`))).toEqual([{ one: 3 }])
        expect(yield* Stream.runCollect(direct.snapshot(Stream.fromEffect(direct.unchecked.rows(sql`SELECT 4 AS one`)))).pipe(Effect.map(Chunk.toArray)))
          .toEqual([[{ one: 4 }]])
        // and none was left inside a transaction
        const client = yield* outsider
        const open = yield* query(client, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'idle in transaction'")
        expect(open.rows).toEqual([{ n: 0 }])
      }), 30_000)
  })
})

// a connection of the pool is a server connection, told by its backend's process id: not through
// PgBouncer, where each statement may run on another (and the outsider's on the pool's own)
describe.runIf(onPostgres && !viaPgBouncer)("a statement PostgreSQL refuses outside a transaction", () => {
  layer(testServer(), { excludeTestServices: true })("on PostgreSQL", (it) => {
    it.scoped("leaves its connection in the pool; a connection that was lost is replaced", () =>
      Effect.gen(function*() {
        const { direct, sql } = yield* ownPool({ maxConnections: 1, acquireTimeout: "2 seconds" })
        const pid = direct.unchecked.first<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`).pipe(Effect.map((row) => row!.pid))
        const first = yield* pid
        // division by zero (SQLSTATE 22012): the statement fails, its connection serves the next
        const refused = yield* Effect.flip(direct.unchecked.rows(sql`SELECT 1 / ${0} AS x`))
        expect((refused.cause as { code?: string }).code).toBe("22012")
        expect(yield* pid).toBe(first)
        // the connection ends under it (an administrator, a restart): the next statement gets a new one
        const client = yield* outsider
        yield* Effect.promise(() => client.query("SELECT pg_terminate_backend($1)", [first]))
        yield* Effect.ignore(direct.unchecked.rows(sql`SELECT 1 AS one`))
        const second = yield* pid
        expect(second).not.toBe(first)
        expect(yield* direct.unchecked.rows(sql`SELECT 2 AS two`)).toEqual([{ two: 2 }])
      }), 30_000)
  })
})

describe.runIf(onPostgres)("a statement whose fiber is interrupted (its client left)", () => {
  layer(testServer(), { excludeTestServices: true })("on PostgreSQL", (it) => {
    it.scoped("runs to its end, as on SQLite: nothing is cancelled, neither it nor the next statement on its connection", () =>
      Effect.gen(function*() {
        const client = yield* outsider
        yield* query(client, "CREATE TABLE interrupted_probe (n integer)")
        const { sql } = yield* ownPool({ maxConnections: 4 })
        // a pooled statement, and a write transaction's, each interrupted while it runs
        const pooled = yield* Effect.fork(sql`INSERT INTO interrupted_probe SELECT 1 FROM pg_sleep(0.4)`)
        const transaction = yield* Effect.fork(sql.withTransaction(sql`INSERT INTO interrupted_probe SELECT 2 FROM pg_sleep(0.4)`))
        yield* Effect.sleep("100 millis")
        yield* Fiber.interrupt(pooled)
        yield* Fiber.interrupt(transaction)
        // the pool's next statements (the first ones on the interrupted statement's connection)
        for (let i = 0; i < 12; i++) expect(yield* sql<{ i: number }>`SELECT ${i}::int AS i`).toEqual([{ i }])
        yield* Effect.sleep("500 millis")
        // the pooled statement ended and committed; the transaction was rolled back
        expect((yield* query(client, "SELECT n FROM interrupted_probe ORDER BY n")).rows).toEqual([{ n: 1 }])
        // and no cancellation was ever sent on this database (an idle session shows its last
        // statement; PgBouncer keeps the sessions of the run's other files open, this check among them)
        const cancelled = yield* query(
          client,
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%pg_cancel_backend%' AND pid <> pg_backend_pid() AND datname = current_database()"
        )
        expect(cancelled.rows).toEqual([{ n: 0 }])
      }), 30_000)
  })
})

describe("PreparedStatements: the names of recurring statement texts", () => {
  it("names a text the second time it runs, always with the same name, and at most PREPARED_MAX texts", () => {
    const prepared = new PreparedStatements.PreparedStatements()
    expect(prepared.nameOf("SELECT $1")).toBeUndefined()
    const name = prepared.nameOf("SELECT $1")
    expect(name).toMatch(/^convene_\d+$/)
    expect(prepared.nameOf("SELECT $1")).toBe(name)
    expect(prepared.nameOf("SELECT $1, $2")).toBeUndefined()
    // a search's plan depends on its pattern: planned anew each time
    const search = "SELECT id FROM persons WHERE name_key LIKE $1"
    expect([prepared.nameOf(search), prepared.nameOf(search), prepared.nameOf(search)]).toEqual([undefined, undefined, undefined])
    for (let i = 0; prepared.size < PreparedStatements.PREPARED_MAX; i++) {
      prepared.nameOf(`SELECT ${i}, $1`)
      prepared.nameOf(`SELECT ${i}, $1`)
    }
    // no more names once the bound is reached; the named keep theirs
    expect(prepared.nameOf("SELECT $1, $2")).toBeUndefined()
    expect(prepared.nameOf("SELECT $1, $2")).toBeUndefined()
    expect(prepared.size).toBe(PreparedStatements.PREPARED_MAX)
    expect(prepared.nameOf("SELECT $1")).toBe(name)
  })
})

// prepared once per server connection: not through PgBouncer, where none is prepared
// (DATABASE_POOL_MODE=transaction, test/pgbouncer.test.ts)
describe.runIf(onPostgres && !viaPgBouncer)("statements the service runs again and again", () => {
  layer(testServer(), { excludeTestServices: true })("on PostgreSQL", (it) => {
    it.scoped("are prepared once on a connection, not parsed on every execution; others run as before", () =>
      Effect.gen(function*() {
        // one connection, so that every statement below runs in the session whose statements are read
        const { sql } = yield* ownPool({ maxConnections: 1 })
        const preparedTexts = sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements ORDER BY statement`
        expect(yield* preparedTexts).toEqual([])
        for (let i = 0; i < 6; i++) expect(yield* sql<{ i: number }>`SELECT ${i}::int AS i`).toEqual([{ i }])
        expect(yield* sql<{ n: string }>`SELECT ${"once"}::text AS n`).toEqual([{ n: "once" }])
        // the recurring text is prepared, the text run once is not
        expect((yield* preparedTexts).map((row) => row.statement)).toEqual(["SELECT $1::int AS i"])
        // a prepared text that fails, twice: the error each time, and the connection serves on
        for (let i = 0; i < 2; i++) {
          const failed = yield* Effect.flip(sql`SELECT 1 / ${0}::int AS broken`)
          expect(String(failed.cause)).toContain("division by zero")
        }
        expect(yield* sql<{ i: number }>`SELECT ${7}::int AS i`).toEqual([{ i: 7 }])
        // in a transaction rolled back: the prepared statement stays, its rows go
        yield* sql`CREATE TEMPORARY TABLE prepared_probe (n integer)`
        const insert = (n: number) => sql`INSERT INTO prepared_probe (n) VALUES (${n})`
        yield* insert(1)
        yield* sql.withTransaction(Effect.zipRight(insert(2), Effect.fail("undo"))).pipe(Effect.ignore)
        yield* insert(3)
        expect(yield* sql<{ n: number }>`SELECT n FROM prepared_probe ORDER BY n`).toEqual([{ n: 1 }, { n: 3 }])
        expect((yield* preparedTexts).map((row) => row.statement)).toContain("INSERT INTO prepared_probe (n) VALUES ($1)")
        // several statements in one text without parameters (as a migration's) still run
        yield* sql.unsafe("SELECT 1; SELECT 2")
        // another instance's migration adds a column under a prepared `SELECT *`: PostgreSQL
        // refuses that plan once, and the text runs unnamed from then on, with the new column
        const everything = sql<Record<string, number | null>>`SELECT * FROM prepared_probe WHERE n = ${1}`
        expect(yield* everything).toEqual([{ n: 1 }])
        expect(yield* everything).toEqual([{ n: 1 }])
        yield* sql`ALTER TABLE prepared_probe ADD COLUMN m integer`
        const refused = yield* Effect.flip(everything)
        expect(String(refused.cause)).toContain("cached plan must not change result type")
        expect(yield* everything).toEqual([{ n: 1, m: null }])
        expect(yield* everything).toEqual([{ n: 1, m: null }])
      }), 30_000)
  })
})
