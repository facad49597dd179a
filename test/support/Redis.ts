/**
 * A real Redis for the tests (Debian's `redis-server`), started on a free port in a temporary
 * directory with persistence off, stopped with the test's scope. `stop` and `start` again on the
 * same port let a test take Redis away from a running server and give it back; `pause` and
 * `resume` (SIGSTOP, SIGCONT) make it hang with its connections open, and answer again.
 *
 * Where `redis-server` is not installed, `redisAvailable` is false and the tests that need it are
 * skipped with a line saying so, except in CI (`CONVENE_CI=1`, set by .ci/run, which installs it):
 * there a missing Redis fails.
 */
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { freePort } from "./Ports.js"
import { tmpdir } from "node:os"
import { join } from "node:path"

const BINARY = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path))

export const redisAvailable = BINARY !== undefined
if (!redisAvailable) {
  if (process.env["CONVENE_CI"] === "1") throw new Error("redis-server is not installed: CI must run the Redis tests (apt-get install redis-server)")
  console.warn("redis-server is not installed: the shared rate-limit tests are skipped (apt-get install redis-server)")
}

export interface RedisServer {
  readonly url: string
  readonly port: number
  /** Stops it at once (SIGKILL): to the clients, Redis is gone. */
  readonly stop: Effect.Effect<void>
  /** Starts it again on the same port, empty. */
  readonly start: Effect.Effect<void>
  /** Freezes it (SIGSTOP): connections stay open, commands go unanswered. */
  readonly pause: Effect.Effect<void>
  /** Lets it run again (SIGCONT): it answers what it was sent meanwhile. */
  readonly resume: Effect.Effect<void>
}

const launch = (port: number, dir: string) =>
  Effect.async<ChildProcess, Error>((resume) => {
    const child = spawn(BINARY!, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (output.includes("Ready to accept connections")) resume(Effect.succeed(child))
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("exit", (code) => resume(Effect.fail(new Error(`redis-server exited (${code}):\n${output}`))))
  }).pipe(Effect.timeout("10 seconds"), Effect.orDie)

const kill = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGKILL")
  })

/** A Redis server for the scope. */
export const redisServer = Effect.gen(function*() {
  const dir = mkdtempSync(join(tmpdir(), "convene-redis-"))
  const port = yield* Effect.promise(freePort)
  let child = yield* launch(port, dir)
  yield* Effect.addFinalizer(() => Effect.zipRight(kill(child), Effect.sync(() => rmSync(dir, { recursive: true, force: true }))))
  const self: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: Effect.suspend(() => kill(child)),
    start: Effect.map(Effect.suspend(() => launch(port, dir)), (started) => {
      child = started
    }),
    pause: Effect.sync(() => {
      child.kill("SIGSTOP")
    }),
    resume: Effect.sync(() => {
      child.kill("SIGCONT")
    })
  }
  return self
})
