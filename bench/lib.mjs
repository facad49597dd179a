// Shared pieces of the benchmarks: servers as child processes, their CPU and memory from /proc,
// a JSON client, and a local webhook receiver.
import { execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, readdirSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import { createServer as createNetServer } from "node:net"
import { join } from "node:path"
import pg from "pg"

export const TOKEN = "cvn_bench_0123456789abcdefghijklmnopqrstuvwxyz"

/** The bootstrap organization and token of every bench server, with limits that never refuse. */
export const benchEnv = {
  BOOTSTRAP_ORG_SLUG: "bench",
  BOOTSTRAP_ORG_NAME: "Bench",
  BOOTSTRAP_API_TOKEN: TOKEN,
  RATE_LIMIT_BURST: "1000000",
  RATE_LIMIT_PER_SECOND: "1000000"
}

const CLOCK_TICKS = 100 // USER_HZ on Linux

/** User + system CPU time of a process, in milliseconds. */
export const cpuMs = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
}

/**
 * CPU time of a process and its children, in milliseconds: its own user + system time, what its
 * exited children used (cutime, cstime) and what its live children use now (PostgreSQL's
 * backends under the postmaster).
 */
export const treeCpuMs = (pid) => {
  const fieldsOf = (p) => {
    const stat = readFileSync(`/proc/${p}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  }
  const own = fieldsOf(pid)
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const fields = fieldsOf(entry)
      if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // gone meanwhile
    }
  }
  return (ticks * 1000) / CLOCK_TICKS
}

/** Peak resident set size of a process, in MiB. */
export const peakRssMb = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024
}

export const rssMb = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024
}

/**
 * Starts a server (`node <script>`) on a free port and waits until `readyPath` answers 200.
 * Returns its url, pid, the time from spawn to ready, and a stop function.
 */
export const startServer = async ({ script, env, port, readyPath = "/readyz", cwd, nodeArgs = [] }) => {
  const started = performance.now()
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (c) => (output += c))
  child.stderr.on("data", (c) => (output += c))
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited: ${output}`)
    try {
      const r = await fetch(url + readyPath)
      if (r.status === 200) break
    } catch {}
    await new Promise((r) => setTimeout(r, 5))
  }
  const readyMs = performance.now() - started
  return {
    url,
    pid: child.pid,
    readyMs,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
  }
}

/** A JSON API client with the bench token. */
export const client = (url, token = TOKEN) => async (method, path, body) => {
  const response = await fetch(url + path, {
    method,
    headers: { "x-api-key": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
  return text === "" ? undefined : JSON.parse(text)
}

/** A webhook receiver that answers 200 and reports each arrival time by webhook-id. */
export const startReceiver = async () => {
  const arrivals = []
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      arrivals.push({ at: performance.now(), id: req.headers["webhook-id"], path: req.url })
      res.writeHead(200)
      res.end()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: (path = "/") => `http://127.0.0.1:${server.address().port}${path}`,
    arrivals,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r) })
  }
}

export const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** Whether Debian's PostgreSQL server is installed (`startPostgres` can run). */
export const hasPostgres = () => {
  const root = "/usr/lib/postgresql"
  return existsSync(root) && readdirSync(root).some((v) => existsSync(join(root, v, "bin", "initdb")))
}

/**
 * One request at a time: `rounds` timed GETs of `path` after 3 untimed ones; p50 and p99 (ms),
 * and the last body.
 */
export const sequential = async (url, path, rounds) => {
  let body
  const get = async () => {
    const response = await fetch(url + path, { headers: { "x-api-key": TOKEN } })
    body = await response.json()
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`)
  }
  for (let i = 0; i < 3; i++) await get()
  const times = []
  for (let i = 0; i < rounds; i++) {
    const started = performance.now()
    await get()
    times.push(performance.now() - started)
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), body }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

export const freePort = () =>
  new Promise((resolve) => {
    const server = createNetServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const isRoot = process.getuid?.() === 0

/** A PostgreSQL server of Debian's newest installed version in `dir`, with an empty database `convene`. */
export const startPostgres = async (dir) => {
  const root = "/usr/lib/postgresql"
  const bin = readdirSync(root).sort((a, b) => Number(b) - Number(a)).map((v) => join(root, v, "bin")).find((b) => existsSync(join(b, "initdb")))
  const data = join(dir, "pg")
  if (isRoot) {
    const [, , uid, gid] = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:")).split(":")
    chownSync(dir, Number(uid), Number(gid))
  }
  const as = (program, args) => (isRoot ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args])
  execFileSync(...as(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"]), { stdio: "ignore" })
  const port = await freePort()
  const [command, args] = as(join(bin, "postgres"), ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "shared_buffers=128MB"])
  const run = () => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
    const ready = new Promise((resolve, reject) => {
      let out = ""
      const on = (c) => {
        out += c
        if (out.includes("ready to accept connections")) resolve()
      }
      child.stdout.on("data", on)
      child.stderr.on("data", on)
      child.on("exit", () => reject(new Error(out)))
    })
    return { child, ready }
  }
  let server = run()
  await server.ready
  const admin = new pg.Client(`postgres://postgres@127.0.0.1:${port}/postgres`)
  await admin.connect()
  await admin.query("CREATE DATABASE convene")
  await admin.end()
  /** The postmaster's pid (as root, the spawned child is runuser). */
  const postmasterPid = () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
  /** A fast shutdown (SIGINT: sessions ended, transactions rolled back), waited for. */
  const stop = () => {
    const { child } = server
    if (child.exitCode !== null) return Promise.resolve()
    const exited = new Promise((resolve) => child.once("exit", resolve))
    process.kill(postmasterPid(), "SIGINT")
    return exited
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/convene`,
    get pid() {
      return postmasterPid()
    },
    stop,
    /** What `pg_ctl restart -m fast` does: a fast shutdown, then the same server started again. */
    restart: async () => {
      await stop()
      server = run()
      await server.ready
    }
  }
}

