// `node bench/profile-floor.mjs [seconds]`: the same measurement and profile as
// `bench/profile.mjs person`, of the framework's floor (../shared/bench-floor/effect-floor,
// VARIANT=api LOG=1: HttpApi with a path schema, a header, a response schema and one JSON log line
// over @effect/sql-sqlite-node, nothing of Convene's), so that its buckets can be set beside
// Convene's with bench/profile-buckets.mjs. Writes bench/profiles/floor-api.{cpuprofile,json}.
import autocannon from "autocannon"
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { cpuMs } from "./lib.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const seconds = Number(process.argv[2] ?? 15)
const root = resolve(here, "..")
const out = resolve(process.env.PROFILE_OUT ?? join(here, "profiles"))
const floor = resolve(root, "../shared/bench-floor/effect-floor/server.mjs")
const KEY = "cvn_benchbenchbenchbenchbenchbenchbench"
mkdirSync(out, { recursive: true })

const dir = mkdtempSync(join(tmpdir(), "convene-floor-"))
copyFileSync(floor, join(dir, "server.mjs"))
symlinkSync(join(root, "node_modules"), join(dir, "node_modules"))

const threadCpu = (pid) => {
  const threads = {}
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = Number(tid) === pid ? "main" : "other"
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1].split(" ")
      const entry = (threads[name] ??= { user: 0, system: 0 })
      entry.user += Number(fields[11]) * 10
      entry.system += Number(fields[12]) * 10
    } catch {}
  }
  return threads
}

const { spawn } = await import("node:child_process")
const run = async (profiled) => {
  const profileDir = join(dir, "profile")
  const child = spawn(process.execPath, [
    "--max-old-space-size=256",
    "--max-semi-space-size=8",
    ...(profiled ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--cpu-prof-interval=200"] : []),
    "server.mjs"
  ], { cwd: dir, env: { ...process.env, VARIANT: "api", LOG: "1", PORT: "3218", DATABASE_PATH: join(dir, "floor.db") }, stdio: ["ignore", "ignore", "inherit"] })
  for (;;) {
    try {
      if ((await fetch("http://127.0.0.1:3218/person/x", { headers: { "x-api-key": KEY } })).status) break
    } catch {}
    await new Promise((r) => setTimeout(r, 50))
  }
  const load = (duration) =>
    new Promise((ok, fail) =>
      autocannon({
        url: "http://127.0.0.1:3218",
        connections: 8,
        duration,
        headers: { "x-api-key": KEY },
        requests: [{ setupRequest: (r) => ({ ...r, path: `/person/00000000-0000-4000-8000-${String(Math.floor(Math.random() * 10_000)).padStart(12, "0")}` }) }]
      }, (e, r) => (e ? fail(e) : ok(r))))
  await load(3)
  const before = threadCpu(child.pid)
  const cpuBefore = cpuMs(child.pid)
  const startUs = Number(process.hrtime.bigint() / 1000n)
  const result = await load(seconds)
  const endUs = Number(process.hrtime.bigint() / 1000n)
  const cpu = cpuMs(child.pid) - cpuBefore
  const after = threadCpu(child.pid)
  child.kill("SIGINT")
  await new Promise((r) => child.once("exit", r))
  const total = result.requests.total
  const summary = {
    scenario: "floor-api",
    logLevel: "log",
    profiled,
    requests: total,
    errors: result.errors + result.non2xx,
    "req/s": result.requests.average,
    "CPU ms/req": cpu / total,
    threadsMsPerReq: Object.fromEntries(Object.entries(after).map(([k, t]) => [k, {
      user: (t.user - (before[k]?.user ?? 0)) / total,
      system: (t.system - (before[k]?.system ?? 0)) / total
    }])),
    windowUs: [startUs, endUs]
  }
  if (profiled) {
    const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"))
    summary.profile = join(out, "floor-api.cpuprofile")
    renameSync(join(profileDir, file), summary.profile)
  }
  console.error(`floor api (${profiled ? "profiled" : "plain"}): ${total} requests, ${summary.errors} errors, ${summary["CPU ms/req"].toFixed(3)} CPU ms/req`)
  return summary
}

const runs = [await run(false), await run(false)]
const profiled = await run(true)
const best = runs.reduce((a, b) => (b["CPU ms/req"] < a["CPU ms/req"] ? b : a))
writeFileSync(join(out, "floor-api.json"), JSON.stringify({ scenario: "floor-api", logLevel: "log", runs, best, profiled }, null, 2))
rmSync(dir, { recursive: true, force: true })
