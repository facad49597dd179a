/**
 * Retention passes alone, under TestClock (moved from test/api/retention.test.ts and
 * test/api/sessions.test.ts, which drive the server's passes end to end): a recurring pass
 * (src/Runtime/Background.ts) that fails or dies is logged and the next one runs after its pause; the
 * sessions purge goes on past a failing database; deleting in batches stops at a short batch.
 */
import * as SqlError from "@effect/sql/SqlError"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Layer, Logger, TestClock, TestContext } from "effect"
import { PURGE_INTERVAL, sessionsPurge } from "../../src/Auth/Sessions.js"
import { SessionsRepo } from "../../src/Auth/SessionsRepo.js"
import { AppConfig } from "../../src/Config/AppConfig.js"
import { deleteInBatches, repeatedly, retentionPause } from "../../src/Runtime/Background.js"
import { configFrom } from "../support/TestServer.js"

describe("a repeatedly pass", () => {
  it.live("that fails or dies is logged, and the next one runs after the pause as planned", () =>
    Effect.gen(function*() {
      let runs = 0
      const pass = Effect.suspend(() => {
        runs++
        return runs === 1 ? Effect.fail("database away") : runs === 2 ? Effect.die("a defect") : Effect.void
      })
      const logged: Array<string> = []
      const logger = Logger.make(({ cause, logLevel, message }) => logged.push(`${logLevel.label} ${String(message)} ${Cause.pretty(cause)}`))
      yield* repeatedly("test pass", pass, "1 minute").pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      yield* TestClock.adjust("1 second")
      expect(runs).toBe(1)
      yield* TestClock.adjust("1 minute")
      expect(runs).toBe(2)
      yield* TestClock.adjust("2 minutes")
      expect(runs).toBe(4)
      expect(logged).toHaveLength(2)
      expect(logged[0]).toMatch(/^WARN test pass failed; tried again in .*database away/s)
      expect(logged[1]).toMatch(/^WARN test pass failed; tried again in .*a defect/s)
    }).pipe(Effect.scoped, Effect.provide(TestContext.TestContext)))
})

describe("the sessions purge", () => {
  it.effect("survives a failing database: the failed pass is logged, the next one runs", () =>
    Effect.gen(function*() {
      let passes = 0
      const repo = SessionsRepo.make({
        deleteEnded: () => {
          passes++
          return passes === 2 ? Effect.fail(new SqlError.SqlError({ message: "database unreachable" })) : Effect.succeed(0)
        }
      } as unknown as SessionsRepo)
      const config = yield* configFrom({ LOG_LEVEL: "None" })
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(sessionsPurge.pipe(Layer.provide(Layer.succeed(SessionsRepo, repo)), Layer.provide(Layer.succeed(AppConfig, config))))
        yield* TestClock.adjust("1 millis")
        expect(passes).toBe(1)
        yield* TestClock.adjust(PURGE_INTERVAL)
        expect(passes).toBe(2)
        yield* TestClock.adjust(PURGE_INTERVAL)
        expect(passes).toBe(3)
        yield* TestClock.adjust(PURGE_INTERVAL)
        expect(passes).toBe(4)
      }))
    }))
})

describe("deleting in batches", () => {
  const backlog = (rows: number) => {
    let left = rows
    const batches: Array<number> = []
    const deleteBatch = (size: number) =>
      Effect.sync(() => {
        const batch = Math.min(size, left)
        left -= batch
        batches.push(batch)
        return batch
      })
    return { batches, deleteBatch }
  }

  it.effect("runs batch after batch until one comes back short, and answers how many it deleted", () =>
    Effect.gen(function*() {
      const some = backlog(2_500)
      expect(yield* deleteInBatches(1_000, some.deleteBatch)).toBe(2_500)
      expect(some.batches).toEqual([1_000, 1_000, 500])
      // whole batches end with an empty one
      const whole = backlog(2_000)
      expect(yield* deleteInBatches(1_000, whole.deleteBatch)).toBe(2_000)
      expect(whole.batches).toEqual([1_000, 1_000, 0])
    }))

  it("pauses a tenth of the retention between passes, at most 10 minutes, at least 100 ms", () => {
    expect(Duration.toMillis(retentionPause(Duration.millis(300)))).toBe(100)
    expect(Duration.toMillis(retentionPause(Duration.minutes(1)))).toBe(6_000)
    expect(Duration.toMillis(retentionPause(Duration.days(30)))).toBe(600_000)
  })
})
