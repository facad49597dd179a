/**
 * A real PostgreSQL for the tests (Debian's `postgresql` package, `/usr/lib/postgresql/<version>/bin`),
 * started on a free port in a temporary directory (its data and its unix socket both there), with
 * trust authentication and durability off (fsync, synchronous commit: a test database need not
 * survive a crash), stopped and removed with the test's scope. PostgreSQL refuses to run as root:
 * when the tests run as root, the directory is handed to the `postgres` user and `initdb` and
 * `postgres` run as that user through `runuser`. Each test takes a database of its own
 * (`createDatabase`) and a client layer on it (`layer`); a test that owns its server may restart it
 * (`restart`).
 *
 * Where PostgreSQL is not installed, `postgresAvailable` is false and the tests that need it are
 * skipped with a line saying so, except in CI (`CONVENE_CI=1`, set by .ci/run): there a missing
 * PostgreSQL fails.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import { Context, type Duration, Effect, Layer, Redacted } from "effect"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { freePort } from "./Ports.js"
import { tmpdir } from "node:os"
import { join } from "node:path"

const ROOT = "/usr/lib/postgresql"

/** The newest installed version's binaries directory holding both `initdb` and `postgres`. */
const BIN = (existsSync(ROOT) ? readdirSync(ROOT) : [])
  .filter((version) => /^\d+$/.test(version))
  .sort((a, b) => Number(b) - Number(a))
  .map((version) => join(ROOT, version, "bin"))
  .find((bin) => existsSync(join(bin, "initdb")) && existsSync(join(bin, "postgres")))

export const postgresAvailable = BIN !== undefined
if (!postgresAvailable) {
  if (process.env["CONVENE_CI"] === "1") throw new Error("PostgreSQL is not installed: CI must run the PostgreSQL tests (apt-get install postgresql)")
  console.warn("PostgreSQL is not installed: the PostgreSQL tests are skipped (apt-get install postgresql)")
}

const isRoot = process.getuid?.() === 0

/** uid and gid of the `postgres` user, from /etc/passwd (needed only as root). */
const postgresUser = () => {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((entry) => entry.startsWith("postgres:"))
  const [, , uid, gid] = line?.split(":") ?? []
  if (uid === undefined || gid === undefined) throw new Error("running as root, but there is no postgres user to run PostgreSQL as")
  return { uid: Number(uid), gid: Number(gid) }
}

/** The command line that runs `program` as the postgres user when this process is root. */
const asPostgres = (program: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  isRoot ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, [...args]]

const initdb = (dataDirectory: string) =>
  Effect.async<void, Error>((resume) => {
    const [command, args] = asPostgres(join(BIN!, "initdb"), [
      "-D", dataDirectory, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"
    ])
    execFile(command, args, { env: { ...process.env, LC_ALL: "C" } }, (error, stdout, stderr) =>
      resume(error === null ? Effect.void : Effect.fail(new Error(`initdb failed: ${error.message}\n${stdout}${stderr}`))))
  }).pipe(Effect.timeout("60 seconds"), Effect.orDie)

const launch = (dataDirectory: string, socketDirectory: string, port: number) =>
  Effect.async<ChildProcess, Error>((resume) => {
    const [command, args] = asPostgres(join(BIN!, "postgres"), [
      "-D", dataDirectory,
      "-p", String(port),
      "-k", socketDirectory,
      "-c", "listen_addresses=127.0.0.1",
      "-c", "fsync=off",
      "-c", "synchronous_commit=off",
      "-c", "full_page_writes=off",
      "-c", "max_connections=300",
      "-c", "shared_buffers=32MB"
    ])
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } })
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (output.includes("database system is ready to accept connections")) resume(Effect.succeed(child))
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.once("error", (error) => resume(Effect.fail(error)))
    child.once("exit", (code) => resume(Effect.fail(new Error(`postgres exited (${code}):\n${output}`))))
  }).pipe(Effect.timeout("30 seconds"), Effect.orDie)

/**
 * Stops the server: a fast shutdown (SIGINT) of the postmaster named in postmaster.pid (as root,
 * the spawned process is `runuser`, which waits for it), SIGKILL if it is not gone in 10 seconds.
 */
const stop = (child: ChildProcess, dataDirectory: string) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const postmaster = (() => {
      try {
        return Number(readFileSync(join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0])
      } catch {
        return undefined
      }
    })()
    const signal = (pid: number | undefined, name: NodeJS.Signals) => {
      try {
        if (pid !== undefined && pid > 0) process.kill(pid, name)
      } catch {
        // already gone
      }
    }
    const timer = setTimeout(() => {
      signal(postmaster, "SIGKILL")
      signal(child.pid, "SIGKILL")
    }, 10_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resume(Effect.void)
    })
    signal(postmaster ?? child.pid, "SIGINT")
  })

export interface PostgresServer {
  readonly port: number
  /** The directory holding the server's unix socket (`.s.PGSQL.<port>`). */
  readonly socketDirectory: string
  /** `postgres://postgres@127.0.0.1:<port>/<database>` (trust authentication: no password). */
  readonly url: (database: string) => string
  /** Creates an empty database (a fresh name unless one is given) and answers its name. */
  readonly createDatabase: (name?: string) => Effect.Effect<string>
  /**
   * A client on `database` (`@effect/sql-pg`, as `PgClient` and `SqlClient`). `pg` answers
   * `bigint` and `count(*)` as strings: cast in SQL (`::int`) where a number is needed.
   */
  readonly layer: (database: string) => Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError.SqlError>
  /**
   * What `pg_ctl restart -m fast` does: a fast shutdown (SIGINT to the postmaster: every session is
   * ended, its transaction rolled back, its connection closed), then the server started again on
   * the same data, port and socket, after `down` (none by default: a failover or a longer outage
   * with it). Resolves once the server accepts connections again. (The server stays this process's
   * child, so the scope still stops it; `pg_ctl` would start it detached.) The administrative
   * client of `createDatabase` reconnects by itself.
   */
  readonly restart: (down?: Duration.DurationInput) => Effect.Effect<void>
}

let databases = 0

/** A PostgreSQL server for the scope. */
export const postgresServer = Effect.gen(function*() {
  const directory = mkdtempSync(join(tmpdir(), "convene-pg-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(directory, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })))
  if (isRoot) {
    const { gid, uid } = postgresUser()
    chownSync(directory, uid, gid)
  }
  const dataDirectory = join(directory, "data")
  yield* initdb(dataDirectory)
  const port = yield* Effect.promise(freePort)
  let child = yield* launch(dataDirectory, directory, port)
  yield* Effect.addFinalizer(() => Effect.suspend(() => stop(child, dataDirectory)))

  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
  const layer = (database: string) => PgClient.layer({ url: Redacted.make(url(database)), maxConnections: 4 })
  // one administrative connection, on the `postgres` database, for CREATE DATABASE
  const admin = Context.get(yield* Layer.build(layer("postgres")).pipe(Effect.orDie), PgClient.PgClient)

  const self: PostgresServer = {
    port,
    socketDirectory: directory,
    url,
    createDatabase: (name) =>
      Effect.suspend(() => {
        const database = name ?? `test_${process.pid}_${++databases}`
        return Effect.as(admin`CREATE DATABASE ${admin(database)}`, database)
      }).pipe(Effect.orDie),
    layer,
    restart: (down = 0) =>
      Effect.gen(function*() {
        yield* stop(child, dataDirectory)
        yield* Effect.sleep(down)
        child = yield* launch(dataDirectory, directory, port)
      })
  }
  return self
})
