/**
 * The service as its own process (the build under test, `dist/src/main.js`: Build.ts), for tests that kill it: SIGKILL
 * for crashes, SIGTERM for graceful shutdown. Output is kept for assertions about logs.
 */
import { Deferred, Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { BUILT_SERVICE } from "./Build.js"

export interface ServerProcess {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Effect.Effect<number | null>
  readonly kill: (signal: NodeJS.Signals) => Effect.Effect<number | null>
}

export interface StartOptions {
  /** Flags for node itself, e.g. the heap limits `npm start` runs with. */
  readonly nodeFlags?: ReadonlyArray<string>
}

export const startServer = (env: Record<string, string>, options: StartOptions = {}) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const child = spawn(process.execPath, [...(options.nodeFlags ?? []), BUILT_SERVICE], {
        env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "Info", ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      const listening = yield* Deferred.make<string, Error>()
      const exited = yield* Deferred.make<number | null>()
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        const match = /listening on (http:\/\/\S+)/.exec(output)
        if (match) Deferred.unsafeDone(listening, Effect.succeed(match[1]!))
      }
      child.stdout!.on("data", onData)
      child.stderr!.on("data", onData)
      child.on("exit", (code) => {
        Deferred.unsafeDone(exited, Effect.succeed(code))
        Deferred.unsafeDone(listening, Effect.fail(new Error(`server exited (${code}) before listening:\n${output}`)))
      })
      const url = yield* Deferred.await(listening).pipe(Effect.timeout("30 seconds"), Effect.orDie)
      const self: ServerProcess = {
        url,
        child,
        output: () => output,
        exited: Deferred.await(exited),
        kill: (signal) =>
          Effect.suspend(() => {
            child.kill(signal)
            return Deferred.await(exited)
          })
      }
      return self
    }),
    (server) => (server.child.exitCode === null && server.child.signalCode === null ? Effect.asVoid(server.kill("SIGKILL")) : Effect.void)
  )
