/**
 * The JSON logger alone (src/Runtime/Logging.ts): every line names the instance, from a fiber of its
 * own, a background fiber, or the request line written with `logAt`; `INSTANCE_ID` and its default.
 * The service's log lines as a process writes them: test/slow/logging.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Logger, LogLevel } from "effect"
import { hostname } from "node:os"
import { logAt, makeJsonLogger } from "../../src/Runtime/Logging.js"
import { configFrom } from "../support/TestServer.js"

const lines = (output: string) =>
  output.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { message: string; instance: string })

describe("the JSON logger", () => {
  it.effect("INSTANCE_ID names the instance; unset, the host name and the process id", () =>
    Effect.gen(function*() {
      expect((yield* configFrom({ DATABASE_PATH: ":memory:" })).instanceId).toBe(`${hostname()}:${process.pid}`)
      expect((yield* configFrom({ DATABASE_PATH: ":memory:", INSTANCE_ID: " web-1 " })).instanceId).toBe("web-1")
    }))

  it.scoped("names the instance on every line: a fiber's own, a background fiber's, and the request line written with logAt", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const { flush, logger } = makeJsonLogger("web-7:42", (text) => written.push(text))
      const logged = Logger.replace(Logger.defaultLogger, logger)
      yield* Effect.gen(function*() {
        yield* Effect.logInfo("in the foreground")
        const done = yield* Deferred.make<void>()
        yield* Effect.forkScoped(Effect.zipRight(Effect.logWarning("in a background fiber"), Deferred.succeed(done, undefined)))
        yield* Deferred.await(done)
        const fiber = yield* Effect.fork(Effect.never)
        logAt(fiber, LogLevel.Info, "request", () => ({ status: 200 }))
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.provide(logged))
      flush()
      const parsed = lines(written.join(""))
      expect(parsed.map((l) => l.message)).toEqual(["in the foreground", "in a background fiber", "request"])
      for (const line of parsed) expect(line.instance).toBe("web-7:42")
    }))
})
