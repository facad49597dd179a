/**
 * Background passes (src/Runtime/Background.ts), on `TestClock`: a pass that fails, dies or is interrupted
 * from inside (a database error, a bug, an interrupted statement) is logged and the next one runs
 * after the pause, where `Effect.repeat` stopped for good at the first failure; only closing the
 * scope stops them.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, LogLevel, Scope, TestClock, TestContext } from "effect"
import { repeatedly } from "../../src/Runtime/Background.js"

describe("repeatedly", () => {
  it.effect("a failed, dead or interrupted pass is logged, and the next one runs after the pause, until the scope closes", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      // this logger alone, at every level, whatever the files run before this one in the worker left
      const logger = Layer.merge(
        Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message)))),
        Logger.minimumLogLevel(LogLevel.All)
      )
      let runs = 0
      const pass = Effect.suspend(() => {
        runs++
        return runs === 1
          ? Effect.fail("the database is unreachable")
          : runs === 2
          ? Effect.die(new Error("a bug"))
          : runs === 3
          ? Effect.interrupt
          : Effect.void
      })
      const scope = yield* Scope.make()
      yield* repeatedly("a pass", pass, "1 second").pipe(Scope.extend(scope), Effect.provide(logger))
      yield* TestClock.adjust("0 millis")
      expect(runs).toBe(1)
      for (let i = 2; i <= 5; i++) {
        yield* TestClock.adjust("1 second")
        expect(runs).toBe(i)
      }
      expect(logged).toEqual(["a pass failed; tried again in 1s", "a pass failed; tried again in 1s", "a pass failed; tried again in 1s"])

      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("10 seconds")
      expect(runs).toBe(5)
    }).pipe(Effect.provide(TestContext.TestContext)))
})
