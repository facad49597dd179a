// `npm run bench` (`npm run bench:quick`: 20,000 persons, shorter runs, one round; CI prints it):
// Convene beside the bare floor server (../shared/bench-floor), on the same data
// and the same requests, one server under load at a time, alternating. Prints a table per server,
// the Convene/floor ratios of server CPU per request, and the webhook, start-up and memory figures.
import autocannon from "autocannon"
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { cpuMs, peakRssMb, rssMb, startServer, TOKEN } from "./lib.mjs"
import { seed, seedPayments } from "./seed.mjs"
import { measureWebhooks } from "./webhooks.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const quick = process.argv.includes("--quick")
const PERSONS = quick ? 20_000 : 100_000
const DURATION = quick ? 3 : 6
const WARMUP = quick ? 1 : 2
const ROUNDS = quick ? 1 : 2
const log = (...args) => console.error(...args)

// The floor lives beside this checkout (../shared/bench-floor, read-only), beside the repository
// this one was cloned from (CI's clean clone), or where BENCH_FLOOR says. It runs from a copy whose
// better-sqlite3 is Convene's own (the same pinned 12.11.1), so nothing is installed or compiled.
const origin = (() => {
  try {
    return execFileSync("git", ["-C", root, "config", "--get", "remote.origin.url"], { encoding: "utf8" }).trim()
  } catch {
    return ""
  }
})()
const floorCandidates = [
  process.env.BENCH_FLOOR,
  resolve(root, "../shared/bench-floor"),
  origin.startsWith("/") ? resolve(origin, "../shared/bench-floor") : undefined
].filter((candidate) => candidate !== undefined)
const floorSource = floorCandidates.find((candidate) => existsSync(join(candidate, "server.mjs")))
if (floorSource === undefined) {
  log(`The floor server is in none of ${floorCandidates.join(", ")} (set BENCH_FLOOR to its folder): nothing to compare with.`)
  process.exit(quick ? 0 : 1)
}

const dir = mkdtempSync(join(tmpdir(), "convene-bench-"))
const floorDir = join(dir, "floor")
mkdirSync(floorDir)
copyFileSync(join(floorSource, "server.mjs"), join(floorDir, "server.mjs"))
copyFileSync(join(floorSource, "package.json"), join(floorDir, "package.json"))
symlinkSync(join(root, "node_modules"), join(floorDir, "node_modules"))
const common = { BOOTSTRAP_ORG_SLUG: "bench", BOOTSTRAP_ORG_NAME: "Bench", BOOTSTRAP_API_TOKEN: TOKEN }
// as `npm start` and the Dockerfile run it
const convene = {
  name: "convene",
  script: join(root, "dist/src/main.js"),
  nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"],
  port: 3281,
  env: {
    ...common,
    DATABASE_PATH: join(dir, "convene.db"),
    PUBLIC_BASE_URL: "http://127.0.0.1:3281",
    RATE_LIMIT_BURST: "1000000",
    RATE_LIMIT_PER_SECOND: "1000000",
    BULK_RATE_LIMIT_BURST: "1000000",
    BULK_RATE_LIMIT_PER_MINUTE: "1000000",
    WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "Info"
  }
}
const floor = {
  name: "floor",
  script: join(floorDir, "server.mjs"),
  port: 3282,
  env: { ...common, DATABASE_PATH: join(dir, "floor.db"), PUBLIC_BASE_URL: "http://127.0.0.1:3282", FLOOR_SYNCHRONOUS: "FULL" }
}

const pick = (list, i) => list[i % list.length]

/** The measured requests; each gets the seeded ids of its server. */
const scenarios = (data) => {
  let n = 0
  let batch = 0
  const json = (body) => ({ headers: { "x-api-key": TOKEN, "content-type": "application/json" }, body: JSON.stringify(body) })
  return [
    { name: "GET /person/:id", connections: 8, request: () => ({ method: "GET", path: `/person/${pick(data.personIds, (n += 7919))}` }) },
    { name: "GET /person/search?query=", connections: 8, request: () => ({ method: "GET", path: `/person/search?query=${encodeURIComponent(pick(["mar", "lovelace", "kenji tan", "smith", "elena"], n++))}` }) },
    { name: "GET guestlist (1,000)", connections: 4, request: () => ({ method: "GET", path: `/event/${data.smallEvent.eventId}/guestlist` }) },
    { name: "GET guestlist (5,000)", connections: 2, request: () => ({ method: "GET", path: `/event/${data.largeEvent.eventId}/guestlist` }) },
    { name: "GET guestlist/search?name=", connections: 8, request: () => ({ method: "GET", path: `/event/${data.largeEvent.eventId}/guestlist/search?name=${encodeURIComponent(pick(["ada", "garcia", "mar", "sofia rossi"], n++))}` }) },
    {
      name: "PUT guestlist (one status)",
      connections: 8,
      request: () => ({
        method: "PUT",
        path: `/event/${data.smallEvent.eventId}/guestlist`,
        ...json({ guests: [{ personId: pick(data.smallEvent.guests, (n += 13)), rsvpStatus: pick(["Accepted", "Declined", "Maybe"], n) }] })
      })
    },
    {
      name: "POST guestlist (500 new)",
      connections: 2,
      request: () => {
        const b = batch++
        return {
          method: "POST",
          path: `/event/${data.smallEvent.eventId}/guestlist`,
          ...json({ guests: Array.from({ length: 500 }, (_, i) => ({ firstName: "New", lastName: `Guest${b}`, email: `new-${data.tag}-${b}-${i}@bench.example` })) })
        }
      }
    }
  ]
}

const load = (url, scenario, seconds) =>
  new Promise((resolvePromise, reject) => {
    const instance = autocannon({
      url,
      connections: scenario.connections,
      duration: seconds,
      headers: { "x-api-key": TOKEN },
      requests: [{ setupRequest: (req) => ({ ...req, ...scenario.request() }) }]
    }, (error, result) => (error ? reject(error) : resolvePromise(result)))
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false })
  })

const measure = async (server, scenario) => {
  await load(server.url, scenario, WARMUP)
  const cpuBefore = cpuMs(server.pid)
  const result = await load(server.url, scenario, DURATION)
  const cpu = cpuMs(server.pid) - cpuBefore
  const requests = result.requests.total
  const errors = result.errors + result.non2xx
  return {
    "req/s": result.requests.average,
    "p50 ms": result.latency.p50,
    "p99 ms": result.latency.p99,
    "CPU ms/req": requests === 0 ? NaN : cpu / requests,
    errors,
    // every answer an error: the server has no such endpoint (the floor lacks some)
    unsupported: requests > 0 && result.non2xx >= requests,
    rssMb: rssMb(server.pid)
  }
}

const main = async () => {
  const servers = {}
  const data = {}
  for (const target of [convene, floor]) {
    log(`starting ${target.name} and seeding ${PERSONS} persons...`)
    const server = await startServer(target)
    const t0 = performance.now()
    data[target.name] = { ...(await seed(server.url, { persons: PERSONS, log })), tag: target.name }
    log(`  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    servers[target.name] = server
  }
  await seedPayments(servers.convene.url, data.convene.personIds)

  const results = { convene: {}, floor: {} }
  const plans = { convene: scenarios(data.convene), floor: scenarios(data.floor) }
  for (let s = 0; s < plans.convene.length; s++) {
    for (let round = 0; round < ROUNDS; round++) {
      const order = (s + round) % 2 === 0 ? ["convene", "floor"] : ["floor", "convene"]
      for (const name of order) {
        const scenario = plans[name][s]
        log(`${scenario.name}: ${name} (round ${round + 1})`)
        const r = await measure(servers[name], scenario)
        const best = results[name][scenario.name]
        if (best === undefined || r["CPU ms/req"] < best["CPU ms/req"]) results[name][scenario.name] = r
      }
    }
  }

  log("webhook delivery (Convene only)...")
  const webhooks = await measureWebhooks(servers.convene, { changes: quick ? 50 : 200, registrations: 20, writes: quick ? 25 : 100 })

  // one GET of the 5,000-guest list, nothing else running
  const single = []
  for (let i = 0; i < 20; i++) {
    const t = performance.now()
    const r = await fetch(`${servers.convene.url}/event/${data.convene.largeEvent.eventId}/guestlist`, { headers: { "x-api-key": TOKEN } })
    await r.arrayBuffer()
    single.push(performance.now() - t)
  }
  single.sort((a, b) => a - b)

  const peak = { convene: peakRssMb(servers.convene.pid), floor: peakRssMb(servers.floor.pid) }
  const startup = {}
  for (const target of [convene, floor]) {
    await servers[target.name].stop()
    const times = []
    for (let i = 0; i < 3; i++) {
      const again = await startServer(target)
      times.push(again.readyMs)
      await again.stop()
    }
    startup[target.name] = Math.min(...times)
  }

  const fmt = (v, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : "-")
  const rows = plans.convene.map(({ name }) => {
    const c = results.convene[name]
    const f = results.floor[name]
    if (f.unsupported) {
      return {
        scenario: name,
        "convene req/s": fmt(c["req/s"], 0),
        "convene p50/p99 ms": `${c["p50 ms"]}/${c["p99 ms"]}`,
        "convene CPU ms/req": fmt(c["CPU ms/req"], 3),
        "floor req/s": "n/a",
        "floor p50/p99 ms": "n/a",
        "floor CPU ms/req": "n/a",
        "CPU ratio": "n/a (floor lacks it)",
        errors: `${c.errors}/-`
      }
    }
    return {
      scenario: name,
      "convene req/s": fmt(c["req/s"], 0),
      "convene p50/p99 ms": `${c["p50 ms"]}/${c["p99 ms"]}`,
      "convene CPU ms/req": fmt(c["CPU ms/req"], 3),
      "floor req/s": fmt(f["req/s"], 0),
      "floor p50/p99 ms": `${f["p50 ms"]}/${f["p99 ms"]}`,
      "floor CPU ms/req": fmt(f["CPU ms/req"], 3),
      "CPU ratio": fmt(c["CPU ms/req"] / f["CPU ms/req"], 2),
      errors: `${c.errors}/${f.errors}`
    }
  })
  console.log(`\nConvene vs floor: ${PERSONS} persons, events of 1,000 and 5,000 guests; ${DURATION} s per run, best of ${ROUNDS}\n`)
  console.table(rows)
  console.table([{
    "5,000-guest GET alone (median ms)": fmt(single[Math.floor(single.length / 2)]),
    "webhook p50 ms": fmt(webhooks.p50),
    "webhook p99 ms": fmt(webhooks.p99),
    "deliveries/s": fmt(webhooks.deliveriesPerSecond, 0),
    "start-up to /readyz ms (convene/floor)": `${fmt(startup.convene, 0)}/${fmt(startup.floor, 0)}`,
    "peak RSS MB (convene/floor)": `${fmt(peak.convene, 0)}/${fmt(peak.floor, 0)}`
  }])
}

main()
  .catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
  .finally(async () => {
    rmSync(dir, { recursive: true, force: true })
  })
