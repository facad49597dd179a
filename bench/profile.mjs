// `node bench/profile.mjs <scenario> [seconds]`: CPU per request and a CPU profile of Convene
// under one load, for finding where the time goes (bench/RESULTS.md, "Issue 18").
//
//   scenario   person (GET /person/:id), status (PUT /event/:id/guestlist, one guest's status),
//              guestlist, search, fields, health
//   seconds    measured load per run (default 15), after a 3 s warm-up
//
// Environment:
//   PROFILE_ROOT         the tree whose dist/src/main.js runs (default: this checkout). Profile a
//                        built copy so that others' builds do not change the code under test.
//   PROFILE_LOG_LEVEL    LOG_LEVEL of the server (default Info, as in production)
//   PROFILE_OUT          where the .cpuprofile and .json go (default bench/profiles)
//   PROFILE_INTERVAL_US  sampling interval of the profiler (default 200)
//   PROFILE_ROUNDS       unprofiled measurement runs (default 2; the best is kept, as bench/run.mjs does)
//   PROFILE_DB           a seeded database to copy instead of seeding (its .json beside it: PROFILE_DB.json)
//   PROFILE_RATE         requests per second for the whole load (autocannon overallRate) instead
//                        of as fast as it goes: CPU per request depends on the rate (what runs
//                        per second whatever the load is shared by fewer requests, and a PUT's
//                        rate follows the disk's fsync time), so A/B runs compare at one rate
//   PROFILE_NO_PROFILE=1 only the unprofiled runs (for A/B runs of built variants)
//   PROFILE_NODE_ARGS    node's flags instead of `npm start`'s (space-separated)
//   PROFILE_CONNECTIONS  the load's connections (default 8; issue 18's targets are at 50)
//   PROFILE_POSTGRES=1   on PostgreSQL (Debian's package, started in a temporary folder): seeded
//                        through the API once, each run on a copy of that database (CREATE
//                        DATABASE … TEMPLATE); PostgreSQL's processes' CPU is reported apart
//   PROFILE_PERF=1       one more run under Linux `perf record` (on-CPU samples, kernel included):
//                        <scenario>-<level>.perf.txt gets the CPU by shared object and the top
//                        symbols, a check on the wall-clock samples of --cpu-prof (blocking
//                        syscalls such as a commit's fsync, preemption by the load generator)
//
// Each run starts the server on a fresh copy of one seeded database (10,000 persons, an event with
// 1,000 guests whose histories have 2-3 entries), with the flags of `npm start` and limits high
// enough never to refuse. First the unprofiled runs measure CPU ms/request from /proc (the main
// thread and the others apart: V8's GC helpers and libuv's pool); then one run under
// `--cpu-prof`, whose profile keeps only the samples of the measured window (start-up, seeding
// and warm-up cut off by timestamp: the profiler and process.hrtime share CLOCK_MONOTONIC).
// Analyse the profile with bench/profile-buckets.mjs.
import autocannon from "autocannon"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { spawn, execFileSync } from "node:child_process"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { cpuMs, startPostgres, startServer, TOKEN, treeCpuMs } from "./lib.mjs"
import { seed } from "./seed.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const [scenario = "person", secondsArg = "15"] = process.argv.slice(2)
const seconds = Number(secondsArg)
const root = resolve(process.env.PROFILE_ROOT ?? join(here, ".."))
const logLevel = process.env.PROFILE_LOG_LEVEL ?? "Info"
const out = resolve(process.env.PROFILE_OUT ?? join(here, "profiles"))
const intervalUs = Number(process.env.PROFILE_INTERVAL_US ?? 200)
const rounds = Number(process.env.PROFILE_ROUNDS ?? 2)
const WARMUP = 3
const log = (...args) => console.error(...args)
mkdirSync(out, { recursive: true })

const dir = mkdtempSync(join(tmpdir(), "convene-profile-"))
const seeded = join(dir, "seeded.db")
const postgres = process.env.PROFILE_POSTGRES === "1" ? await startPostgres(dir) : undefined
/** `DATABASE_URL` of database `name` on `postgres`. */
const pgUrl = (name) => postgres.url.replace(/\/convene$/, `/${name}`)
const psql = (command, database = "postgres") => execFileSync("psql", [pgUrl(database), "-qAt", "-c", command], { stdio: "ignore" })
const port = 3283
const env = (database) => ({
  DATABASE_PATH: database,
  ...(postgres === undefined ? {} : { DATABASE_URL: pgUrl(database.replace(/^.*\/|\.db$/g, "").replace(/-/g, "_")) }),
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  BOOTSTRAP_ORG_SLUG: "bench",
  BOOTSTRAP_ORG_NAME: "Bench",
  BOOTSTRAP_API_TOKEN: TOKEN,
  RATE_LIMIT_BURST: "1000000",
  RATE_LIMIT_PER_SECOND: "1000000",
  BULK_RATE_LIMIT_BURST: "1000000",
  BULK_RATE_LIMIT_PER_MINUTE: "1000000",
  WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
  LOG_LEVEL: logLevel
})
// as `npm start` and the Dockerfile run it (PROFILE_NODE_ARGS: others, space-separated, for A/B runs of V8's flags)
const NODE_ARGS = process.env.PROFILE_NODE_ARGS?.split(" ").filter((a) => a !== "") ?? ["--max-old-space-size=256", "--max-semi-space-size=8"]
const target = (database, extra = []) => ({
  script: join(root, "dist/src/main.js"),
  cwd: dir,
  port,
  nodeArgs: [...NODE_ARGS, ...extra],
  env: env(database)
})

let data
if (postgres !== undefined) {
  log("PostgreSQL: seeding 10,000 persons and an event of 1,000 guests...")
  psql("CREATE DATABASE seeded")
  const seeding = await startServer(target(seeded))
  data = await seed(seeding.url, { persons: 10_000, small: 1_000, large: 0 })
  await seeding.stop()
  psql("VACUUM ANALYZE", "seeded")
} else if (process.env.PROFILE_DB) {
  copyFileSync(process.env.PROFILE_DB, seeded)
  data = JSON.parse(readFileSync(`${process.env.PROFILE_DB}.json`, "utf8"))
} else {
  log("seeding 10,000 persons and an event of 1,000 guests...")
  const seeding = await startServer(target(seeded))
  data = await seed(seeding.url, { persons: 10_000, small: 1_000, large: 0 })
  await seeding.stop() // SIGTERM: the WAL is checkpointed into the file
  copyFileSync(seeded, join(out, "seeded.db"))
  writeFileSync(join(out, "seeded.db.json"), JSON.stringify({ personIds: data.personIds, smallEvent: data.smallEvent }))
}

const pick = (list, i) => list[i % list.length]
let n = 0
const STATUSES = ["Accepted", "Declined", "Maybe"]
const requests = {
  person: () => ({ method: "GET", path: `/person/${pick(data.personIds, (n += 7919))}` }),
  status: () => {
    n += 13
    return {
      method: "PUT",
      path: `/event/${data.smallEvent.eventId}/guestlist`,
      headers: { "x-api-key": TOKEN, "content-type": "application/json" },
      body: JSON.stringify({ guests: [{ personId: pick(data.smallEvent.guests, n), rsvpStatus: pick(STATUSES, n) }] })
    }
  },
  guestlist: () => ({ method: "GET", path: `/event/${data.smallEvent.eventId}/guestlist` }),
  search: () => ({ method: "GET", path: `/person/search?query=mar` }),
  fields: () => ({ method: "GET", path: "/custom-field" }),
  health: () => ({ method: "GET", path: "/healthz" })
}
if (requests[scenario] === undefined) throw new Error(`unknown scenario ${scenario}: ${Object.keys(requests).join(", ")}`)

const load = (url, duration) =>
  new Promise((resolvePromise, reject) => {
    const instance = autocannon({
      url,
      connections: Number(process.env.PROFILE_CONNECTIONS ?? 8),
      duration,
      ...(process.env.PROFILE_RATE ? { overallRate: Number(process.env.PROFILE_RATE) } : {}),
      headers: { "x-api-key": TOKEN },
      requests: [{ setupRequest: (req) => ({ ...req, ...requests[scenario]() }) }]
    }, (error, result) => (error ? reject(error) : resolvePromise(result)))
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false })
  })

/** CPU ms of each thread of a process, by thread name (`node` is the main thread). */
const threadCpu = (pid) => {
  const threads = {}
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = Number(tid) === pid ? "main" : readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim().replace(/\d+$/, "")
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      const user = (Number(fields[11]) * 1000) / 100
      const system = (Number(fields[12]) * 1000) / 100
      const entry = (threads[name] ??= { user: 0, system: 0 })
      entry.user += user
      entry.system += system
    } catch {} // a thread that ended meanwhile
  }
  return threads
}
const minus = (after, before) =>
  Object.fromEntries(Object.entries(after).map(([name, t]) => [name, {
    user: t.user - (before[name]?.user ?? 0),
    system: t.system - (before[name]?.system ?? 0)
  }]))

/** One run on a fresh copy of the seeded database: warm-up, then the measured window. */
const run = async (label, profiled, perf = false) => {
  const database = join(dir, `${label}.db`)
  if (postgres === undefined) copyFileSync(seeded, database)
  else psql(`CREATE DATABASE ${label.replace(/-/g, "_")} TEMPLATE seeded`)
  const profileDir = join(dir, `${label}-profile`)
  const server = await startServer(target(database, profiled
    ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-interval=${intervalUs}`]
    : perf
    ? ["--perf-basic-prof-only-functions", "--interpreted-frames-native-stack"]
    : []))
  await load(server.url, WARMUP)
  const perfData = join(dir, "perf.data")
  const recorder = perf
    ? spawn("perf", ["record", "-e", "cpu-clock", "-F", "1999", "-g", "-p", String(server.pid), "-o", perfData, "--", "sleep", String(seconds)], { stdio: "ignore" })
    : undefined
  const threadsBefore = threadCpu(server.pid)
  const cpuBefore = cpuMs(server.pid)
  const pgBefore = postgres === undefined ? 0 : treeCpuMs(postgres.pid)
  const startUs = Number(process.hrtime.bigint() / 1000n)
  const result = await load(server.url, seconds)
  const endUs = Number(process.hrtime.bigint() / 1000n)
  const cpu = cpuMs(server.pid) - cpuBefore
  const pgCpu = postgres === undefined ? undefined : treeCpuMs(postgres.pid) - pgBefore
  const threads = minus(threadCpu(server.pid), threadsBefore)
  if (recorder !== undefined) {
    await new Promise((r) => (recorder.exitCode !== null ? r() : recorder.once("exit", r)))
    const report = (...args) => execFileSync("perf", ["report", "-i", perfData, "--stdio", "--no-children", ...args], { maxBuffer: 1 << 28 }).toString()
    const text = [
      report("--sort", "dso", "-g", "none"),
      report("--sort", "dso,sym", "-g", "none", "--percent-limit", "0.3")
    ].map((t) => t.split("\n").filter((l) => l !== "" && !l.startsWith("#")).join("\n")).join("\n\n")
    writeFileSync(join(out, `${scenario}-${logLevel.toLowerCase()}.perf.txt`), text + "\n")
  }
  await server.stop()
  const total = result.requests.total
  const summary = {
    scenario,
    logLevel,
    profiled,
    seconds,
    requests: total,
    errors: result.errors + result.non2xx,
    "req/s": result.requests.average,
    "p50 ms": result.latency.p50,
    "p99 ms": result.latency.p99,
    "CPU ms/req": cpu / total,
    ...(pgCpu === undefined ? {} : { "PostgreSQL CPU ms/req": pgCpu / total }),
    threadsMsPerReq: Object.fromEntries(Object.entries(threads).map(([name, t]) => [name, {
      user: t.user / total,
      system: t.system / total
    }])),
    windowUs: [startUs, endUs]
  }
  if (profiled) {
    const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"))
    const destination = join(out, `${scenario}-${logLevel.toLowerCase()}.cpuprofile`)
    renameSync(join(profileDir, file), destination)
    summary.profile = destination
  }
  log(`${label}: ${total} requests, ${summary.errors} errors, ${summary["CPU ms/req"].toFixed(3)} CPU ms/req${
    pgCpu === undefined ? "" : `, PostgreSQL ${(pgCpu / total).toFixed(3)}`
  }`)
  return summary
}

const runs = []
for (let r = 0; r < rounds; r++) runs.push(await run(`plain-${r}`, false))
const profiledRun = process.env.PROFILE_NO_PROFILE === "1" ? undefined : await run("profiled", true)
const perfRun = process.env.PROFILE_PERF === "1" ? await run("perf", false, true) : undefined
const best = runs.reduce((a, b) => (b["CPU ms/req"] < a["CPU ms/req"] ? b : a))
const report = { scenario, logLevel, root, runs, best, profiled: profiledRun, perf: perfRun }
writeFileSync(join(out, `${scenario}-${logLevel.toLowerCase()}.json`), JSON.stringify(report, null, 2))
console.log(JSON.stringify({
  scenario,
  logLevel,
  "CPU ms/req (unprofiled, each run)": runs.map((r) => Number(r["CPU ms/req"].toFixed(4))),
  "CPU ms/req (profiled)": profiledRun && Number(profiledRun["CPU ms/req"].toFixed(4)),
  "req/s (best)": best["req/s"],
  threadsMsPerReq: best.threadsMsPerReq,
  profile: profiledRun?.profile
}, null, 2))
if (profiledRun !== undefined && !existsSync(profiledRun.profile)) process.exitCode = 1
if (postgres !== undefined) await postgres.stop()
rmSync(dir, { recursive: true, force: true })
