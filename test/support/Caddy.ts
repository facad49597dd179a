/**
 * Caddy for the tests (Debian's `caddy` package, 2.6.2): the project's own Caddyfile, the one
 * compose.yaml mounts, run with `caddy run` on a free port in front of the given upstreams (its
 * `{$CONVENE_LISTEN}` and `{$CONVENE_UPSTREAMS}`), its state in a temporary directory, stopped with
 * the test's scope. A system caddy service, if the package started one, is not used.
 *
 * Where caddy is not installed, `caddyAvailable` is false and the tests that need it are skipped
 * with a line saying so, except in CI (`CONVENE_CI=1`, set by .ci/run, which installs it).
 */
import { Deferred, Effect } from "effect"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort } from "./Ports.js"

const BINARY = ["/usr/bin/caddy", "/usr/local/bin/caddy"].find((path) => existsSync(path))

export const caddyAvailable = BINARY !== undefined
if (!caddyAvailable) {
  if (process.env["CONVENE_CI"] === "1") throw new Error("caddy is not installed: CI must run the balancer tests (apt-get install caddy)")
  console.warn("caddy is not installed: the balancer tests are skipped (apt-get install caddy)")
}

/** The project's Caddyfile, beside compose.yaml. */
export const CADDYFILE = fileURLToPath(new URL("../../Caddyfile", import.meta.url))

/** The environment the Caddyfile reads, with Caddy's own state kept in `dir`. */
const environment = (dir: string, listen: string, upstreams: ReadonlyArray<string>) => ({
  ...process.env,
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, "config"),
  XDG_DATA_HOME: join(dir, "data"),
  CONVENE_LISTEN: listen,
  CONVENE_UPSTREAMS: upstreams.join(" ")
})

const temporary = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "convene-caddy-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** The JSON configuration Caddy makes of the Caddyfile for these upstreams (`caddy adapt --validate`). */
export const adaptedCaddyfile = (upstreams: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const dir = yield* temporary
    const output = yield* Effect.async<string, Error>((resume) => {
      execFile(
        BINARY!,
        ["adapt", "--config", CADDYFILE, "--adapter", "caddyfile", "--validate"],
        { env: environment(dir, ":8080", upstreams) },
        (error, stdout, stderr) => resume(error === null ? Effect.succeed(stdout) : Effect.fail(new Error(`caddy adapt failed: ${stderr}`)))
      )
    })
    return JSON.parse(output) as Record<string, unknown>
  }).pipe(Effect.scoped, Effect.orDie)

export interface CaddyServer {
  readonly url: string
  /** What Caddy wrote (its JSON log lines on stderr). */
  readonly output: () => string
}

/** Caddy in front of `upstreams` (`host:port`), answering once a request through it reaches one. */
export const caddyServer = (upstreams: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const dir = yield* temporary
    const port = yield* Effect.promise(freePort)
    const url = `http://127.0.0.1:${port}`
    let output = ""
    const exited = yield* Deferred.make<number | null>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const started: ChildProcess = spawn(BINARY!, ["run", "--config", CADDYFILE, "--adapter", "caddyfile"], {
          env: environment(dir, `:${port}`, upstreams),
          stdio: ["ignore", "pipe", "pipe"]
        })
        const onData = (chunk: Buffer) => {
          output += chunk.toString("utf8")
        }
        started.stdout!.on("data", onData)
        started.stderr!.on("data", onData)
        started.on("exit", (code) => Deferred.unsafeDone(exited, Effect.succeed(code)))
        return started
      }),
      (started) =>
        Effect.suspend(() => {
          if (started.exitCode !== null || started.signalCode !== null) return Effect.void
          started.kill("SIGKILL")
          return Effect.asVoid(Deferred.await(exited))
        })
    )
    // ready when a request through it is answered by an instance
    const deadline = Date.now() + 20_000
    for (;;) {
      if (child.exitCode !== null) return yield* Effect.dieMessage(`caddy exited (${child.exitCode}):\n${output}`)
      const status = yield* Effect.promise(() => fetch(`${url}/healthz`).then((r) => r.status, () => 0))
      if (status === 200) break
      if (Date.now() > deadline) return yield* Effect.dieMessage(`caddy did not answer within 20 s:\n${output}`)
      yield* Effect.sleep("100 millis")
    }
    const self: CaddyServer = { url, output: () => output }
    return self
  })
