/**
 * SQLite's own transaction path (src/Db/Sqlite.ts `withTransaction`): commit, rollback on a failure,
 * a defect or an interruption, savepoints inside, the connection's permit always given back, and
 * `DirectSql.writing` telling the credential cache when a transaction is open.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DirectSql } from "../../src/Db/DirectSql.js"
import * as Sqlite from "../../src/Db/Sqlite.js"

const database = () => Sqlite.layer({ filename: join(mkdtempSync(join(tmpdir(), "convene-tx-")), "tx.db") })

const setUp = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const direct = yield* DirectSql
  yield* sql`CREATE TABLE t (v INTEGER NOT NULL) STRICT`
  const values = Effect.map(sql<{ v: number }>`SELECT v FROM t ORDER BY v`, (rows) => rows.map((r) => r.v))
  return { sql, direct, values }
})

describe("SQLite transactions", () => {
  it.scoped("commit on success, roll back on a failure or a defect, and give the connection back each time", () =>
    Effect.gen(function*() {
      const { direct, sql, values } = yield* setUp
      expect(direct.writing()).toBe(false)
      yield* sql.withTransaction(Effect.gen(function*() {
        expect(direct.writing()).toBe(true)
        yield* sql`INSERT INTO t (v) VALUES (1)`
        yield* direct.run(sql`INSERT INTO t (v) VALUES (2)`)
      }))
      expect(direct.writing()).toBe(false)
      expect(yield* values).toEqual([1, 2])
      const failed = yield* Effect.exit(sql.withTransaction(Effect.zipRight(sql`INSERT INTO t (v) VALUES (3)`, Effect.fail("no"))))
      expect(failed).toEqual(Exit.fail("no"))
      const died = yield* Effect.exit(sql.withTransaction(Effect.zipRight(sql`INSERT INTO t (v) VALUES (4)`, Effect.die("boom"))))
      expect(Exit.isFailure(died)).toBe(true)
      expect(yield* values).toEqual([1, 2])
      expect(direct.writing()).toBe(false)
    }).pipe(Effect.provide(database())))

  it.scoped("a transaction inside another is a savepoint: its failure undoes only its own writes", () =>
    Effect.gen(function*() {
      const { sql, values } = yield* setUp
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (v) VALUES (1)`
        const inner = yield* Effect.exit(sql.withTransaction(Effect.zipRight(sql`INSERT INTO t (v) VALUES (2)`, Effect.fail("inner"))))
        expect(inner).toEqual(Exit.fail("inner"))
        yield* sql.withTransaction(sql`INSERT INTO t (v) VALUES (3)`)
      }))
      expect(yield* values).toEqual([1, 3])
    }).pipe(Effect.provide(database())))

  it.scoped("one at a time; interrupted while waiting or while running, nothing is kept and the next one runs", () =>
    Effect.gen(function*() {
      const { direct, sql, values } = yield* setUp
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (v) VALUES (1)`
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(inside)
      // a second one waits for the first; interrupted while waiting, it never runs
      const waiting = yield* Effect.fork(sql.withTransaction(sql`INSERT INTO t (v) VALUES (2)`))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(waiting)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      expect(yield* values).toEqual([1])
      // interrupted inside: rolled back, and the connection is free again
      const started = yield* Deferred.make<void>()
      const running = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (v) VALUES (3)`
        yield* Deferred.succeed(started, undefined)
        yield* Effect.never
      })))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(running)
      expect(direct.writing()).toBe(false)
      yield* sql.withTransaction(sql`INSERT INTO t (v) VALUES (4)`)
      expect(yield* values).toEqual([1, 4])
    }).pipe(Effect.provide(database())))
})
