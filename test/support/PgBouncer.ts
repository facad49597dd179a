/**
 * PgBouncer for the tests (Debian's `pgbouncer` package, 1.18), in transaction mode in front of a
 * test PostgreSQL server (Postgres.ts): every database of the server, as the `postgres` user, on a
 * free port, its configuration and pid file in a temporary directory, stopped with the scope.
 * PgBouncer refuses to run as root: as root, it runs as the `postgres` user through `runuser`, as
 * PostgreSQL does. In transaction mode a client's transactions (and single statements) each run
 * on whichever server connection is free, so nothing of a session (a named prepared statement, a
 * session advisory lock, a `SET`) lasts from one to the next: what CONTRACT §15 asks Convene to
 * live with under `DATABASE_POOL_MODE=transaction`.
 *
 * The suite's PostgreSQL pass runs some of its files through one (the `pgbouncer` projects of
 * vitest.config.ts, pgbouncer-setup.ts); test/slow/pg/pgbouncer.test.ts starts its own.
 *
 * Where pgbouncer is not installed, `pgbouncerAvailable` is false and the tests that need it are
 * skipped with a line saying so, except in CI (`CONVENE_CI=1`, set by .ci/run, which installs it).
 */
import { Deferred, Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./Ports.js"

const BINARY = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"].find((path) => existsSync(path))

export const pgbouncerAvailable = BINARY !== undefined
if (!pgbouncerAvailable) {
  if (process.env["CONVENE_CI"] === "1") throw new Error("pgbouncer is not installed: CI must run the PgBouncer tests (apt-get install pgbouncer)")
  console.warn("pgbouncer is not installed: the PgBouncer tests are skipped (apt-get install pgbouncer)")
}

const isRoot = process.getuid?.() === 0

const postgresUser = () => {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((entry) => entry.startsWith("postgres:"))
  const [, , uid, gid] = line?.split(":") ?? []
  if (uid === undefined || gid === undefined) throw new Error("running as root, but there is no postgres user to run pgbouncer as")
  return { uid: Number(uid), gid: Number(gid) }
}

export interface PgBouncer {
  readonly port: number
  /** `postgres://postgres@127.0.0.1:<port>/<database>`: the database through PgBouncer. */
  readonly url: (database: string) => string
  /** `postgres://postgres@127.0.0.1:<port>`, without a database. */
  readonly base: string
  /** What PgBouncer wrote. */
  readonly output: () => string
}

const configuration = (options: { readonly port: number; readonly serverPort: number; readonly pidFile: string }) => `
[databases]
* = host=127.0.0.1 port=${options.serverPort} user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${options.port}
unix_socket_dir =
pidfile = ${options.pidFile}
auth_type = any
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
reserve_pool_size = 0
server_reset_query =
server_login_retry = 1
server_connect_timeout = 5
ignore_startup_parameters = extra_float_digits
log_connections = 0
log_disconnections = 0
`

/** PgBouncer in transaction mode in front of the PostgreSQL server listening on `serverPort` (127.0.0.1). */
export const pgbouncer = (serverPort: number) =>
  Effect.gen(function*() {
    const directory = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "convene-pgbouncer-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const port = yield* Effect.promise(freePort)
    const pidFile = join(directory, "pgbouncer.pid")
    const file = join(directory, "pgbouncer.ini")
    writeFileSync(file, configuration({ port, serverPort, pidFile }))
    if (isRoot) {
      const { gid, uid } = postgresUser()
      chownSync(directory, uid, gid)
      chownSync(file, uid, gid)
    }
    let output = ""
    const ready = yield* Deferred.make<void, Error>()
    const exited = yield* Deferred.make<void>()
    const [command, args] = isRoot ? ["runuser", ["-u", "postgres", "--", BINARY!, file]] : [BINARY!, [file]]
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child: ChildProcess = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
        const onData = (chunk: Buffer) => {
          output += chunk.toString("utf8")
          if (output.includes("process up")) Deferred.unsafeDone(ready, Effect.void)
        }
        child.stdout!.on("data", onData)
        child.stderr!.on("data", onData)
        child.once("exit", (code) => {
          Deferred.unsafeDone(exited, Effect.void)
          Deferred.unsafeDone(ready, Effect.fail(new Error(`pgbouncer exited (${code}):\n${output}`)))
        })
        return child
      }),
      (child) =>
        Effect.suspend(() => {
          if (child.exitCode !== null || child.signalCode !== null) return Effect.void
          const pid = (() => {
            try {
              return Number(readFileSync(pidFile, "utf8").trim())
            } catch {
              return child.pid
            }
          })()
          const signal = (name: NodeJS.Signals) => {
            try {
              if (pid !== undefined && pid > 0) process.kill(pid, name)
            } catch {
              // gone already
            }
          }
          signal("SIGTERM")
          return Deferred.await(exited).pipe(
            Effect.timeout("5 seconds"),
            Effect.catchAll(() => Effect.sync(() => signal("SIGKILL"))),
            Effect.ignore
          )
        })
    )
    yield* Deferred.await(ready).pipe(Effect.timeout("15 seconds"), Effect.orDie)
    const base = `postgres://postgres@127.0.0.1:${port}`
    const self: PgBouncer = { port, base, url: (database) => `${base}/${database}`, output: () => output }
    return self
  })
