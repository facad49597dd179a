/**
 * The key store (src/Idempotency/Idempotency.ts) on its own: a free key's request runs in a
 * transaction its answer commits with, a held key is told at once, answers past their retention
 * are purged, and the purge goes on after a failure.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Logger, TestClock } from "effect"
import { join } from "node:path"
import { AppConfig } from "../../src/Config/AppConfig.js"
import { DirectSql } from "../../src/Db/DirectSql.js"
import { type Claim, Idempotency, RETENTION, type Running } from "../../src/Idempotency/Idempotency.js"
import { SqlLive } from "../../src/Db/Sql.js"
import { configFrom, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

// a file: reads outside the request's transaction go on beside it (an in-memory database has one connection)
const config = Layer.unwrapScoped(
  Effect.map(temporaryDirectory, (dir) => Layer.effect(AppConfig, configFrom(testEnvironment(join(dir, "convene.db")))))
)
const store = Layer.provideMerge(Idempotency.Default, SqlLive).pipe(Layer.provide(config))

layer(store)("Idempotency store", (it) => {
  const fingerprint = (text: string) => new TextEncoder().encode(text)
  const answer = { status: 201, contentType: "application/json", body: fingerprint("{\"ok\":true}") }
  const claim = (key: string, body = "a", caller = "caller") =>
    Effect.flatMap(Idempotency, (idempotency) => idempotency.claim(caller, key, fingerprint(body)))
  /** A write of the request, in its transaction: a row of a table of the test's own. */
  const write = (running: Running, value: string) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO written (value) VALUES (${value})`).pipe(
      Effect.provideService(SqlClient.TransactionConnection, running.transaction.connection)
    )
  const written = Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(DirectSql, (direct) => direct.unchecked.rows<{ value: string }>(sql`SELECT value FROM written ORDER BY value`))).pipe(
      Effect.map((rows) => rows.map((r) => r.value))
    )
  const fresh = (c: Claim) => {
    expect(c._tag).toBe("Fresh")
    return (c as Extract<Claim, { _tag: "Fresh" }>).running
  }

  it.scoped("runs a free key's request in a transaction its answer commits with; replays, refuses, and lets go on the clock", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE written (value TEXT NOT NULL)`
      const first = fresh(yield* claim("k"))
      // while it runs, the key is held: any request with it is told so at once
      expect((yield* claim("k"))._tag).toBe("InProgress")
      expect((yield* claim("k", "b"))._tag).toBe("InProgress")
      yield* write(first, "first")
      // nothing of it is seen before it commits
      expect(yield* written).toEqual([])
      yield* first.complete(answer)
      expect(yield* written).toEqual(["first"])
      const replay = yield* claim("k")
      expect(replay).toEqual({ _tag: "Replay", response: { ...answer, body: expect.any(Uint8Array) } })
      if (replay._tag === "Replay") expect(new TextDecoder().decode(replay.response.body)).toBe("{\"ok\":true}")
      expect((yield* claim("k", "b"))._tag).toBe("Mismatch")
      // keys are per caller
      expect((yield* Effect.scoped(Effect.map(claim("k", "a", "someone else"), (c) => c._tag)))).toBe("Fresh")
      yield* TestClock.adjust(Duration.subtract(RETENTION, Duration.millis(1)))
      expect((yield* claim("k"))._tag).toBe("Replay")
      yield* TestClock.adjust(Duration.millis(1))
      // past its retention the key is free: the answer written over the old one
      const again = fresh(yield* claim("k", "b"))
      yield* again.complete({ ...answer, status: 200 })
      expect((yield* claim("k", "b"))).toMatchObject({ _tag: "Replay", response: { status: 200 } })
    }))

  it.scoped("keeps nothing of a request that answers 5xx or ends without an answer: its key is free at once", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM written`
      const failed = fresh(yield* claim("5xx"))
      yield* write(failed, "failed")
      yield* failed.complete({ ...answer, status: 503 })
      expect(yield* written).toEqual([])
      // the request's scope closes without an answer (its client left): rolled back as well
      yield* Effect.scoped(Effect.flatMap(claim("5xx"), (c) => write(fresh(c), "abandoned")))
      expect(yield* written).toEqual([])
      const ran = fresh(yield* claim("5xx"))
      yield* write(ran, "once")
      yield* ran.complete(answer)
      expect(yield* written).toEqual(["once"])
      expect((yield* claim("5xx"))._tag).toBe("Replay")
    }))
})

describe("Idempotency keys' purge", () => {
  /** Repeats `effect` every 50 ms of real time (the purge's statements end when the database answers) until `done` holds, 5 s at most. */
  const until = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
    Effect.gen(function*() {
      for (let i = 0;; i++) {
        const value = yield* effect
        if (done(value) || i === 100) return value
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      }
    })

  it.scoped("goes on after the database fails it: logged, and tried again an hour later", () =>
    Effect.gen(function*() {
      const database = yield* Layer.build(SqlLive.pipe(Layer.provide(config)))
      const sql = Context.get(database, SqlClient.SqlClient)
      const logged: Array<string> = []
      const recorder = Logger.make(({ message }) => {
        logged.push(Array.isArray(message) ? message.join(" ") : String(message))
      })
      yield* Layer.build(Idempotency.Default).pipe(Effect.provide(database), Effect.provide(Logger.add(recorder)))
      // the next purge fails: the table is away
      yield* sql`ALTER TABLE idempotency_keys RENAME TO idempotency_keys_away`
      yield* TestClock.adjust(Duration.hours(1))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 500)))
      yield* sql`ALTER TABLE idempotency_keys_away RENAME TO idempotency_keys`
      yield* sql`INSERT INTO idempotency_keys (caller_key, key, fingerprint, status, content_type, body, created_at)
        VALUES ('caller', 'old', ${new Uint8Array([1])}, 200, NULL, ${new Uint8Array()}, ${-Duration.toMillis(RETENTION)})`
      const left = sql<{ n: number }>`SELECT count(*) AS n FROM idempotency_keys`.pipe(Effect.map((rows) => Number(rows[0]!.n)))
      expect(yield* left).toBe(1)
      // and the one after it runs
      yield* TestClock.adjust(Duration.hours(1))
      expect(yield* until(left, (n) => n === 0)).toBe(0)
      expect(logged.some((line) => line.startsWith("idempotency keys' retention failed"))).toBe(true)
    }))
})
