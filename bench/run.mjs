// `npm run bench` (issue 18's settings): Convene beside the bare floor server (../shared/bench-floor)
// on the same data and the same requests, one server under load at a time, alternating:
//   1. 10,000 persons seeded through each server's API, events of 1,000 and 5,000 guests: single
//      reads, one-guest status PUTs and person searches at 50 connections, guest lists at 20;
//      server CPU per request from /proc, best of 2 runs;
//   2. the same scenarios on PostgreSQL (Convene only, when Debian's PostgreSQL is installed; its
//      own server started in a temporary folder): the service's CPU and PostgreSQL's per request;
//   3. Convene alone at 1,000,000 persons (bench/large-seed.mjs, one event of 100,000 guests;
//      the database is kept in BENCH_LARGE_DB, by default in the system's temporary folder, and
//      reused): status PUTs at 50 connections against phase 1's rate, person searches (short
//      terms included) and the directory's first page and its page at 90%, one request at a time;
//   4. webhook delivery, start-up to /readyz, peak RSS;
// then a table of issue 18's targets, each met or not. `npm run bench:quick` (CI prints it and
// never fails on it): shorter runs, one round, no PostgreSQL, 100,000 persons in phase 3.
import autocannon from "autocannon"
import Database from "better-sqlite3"
import { execFileSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { seedLarge } from "./large-seed.mjs"
import { cpuMs, freePort, hasPostgres, peakRssMb, rssMb, sequential, startPostgres, startServer, TOKEN, treeCpuMs } from "./lib.mjs"
import { makePublic, measureRegistrations, PUBLIC_PAGE, publicPage } from "./public.mjs"
import { seed, seedPayments } from "./seed.mjs"
import { measureWebhooks } from "./webhooks.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const quick = process.argv.includes("--quick")
const PERSONS = 10_000
const DURATION = quick ? 3 : 6
const WARMUP = 2
const ROUNDS = quick ? 1 : 2
const LARGE_PERSONS = Number(process.env.BENCH_LARGE_PERSONS ?? (quick ? 100_000 : 1_000_000))
const LARGE_GUESTS = Math.floor(LARGE_PERSONS / 10)
const LARGE_DB = process.env.BENCH_LARGE_DB ?? join(tmpdir(), `convene-bench-${LARGE_PERSONS}.db`)
const SEQUENTIAL = quick ? 15 : 40
const ON_POSTGRES = !quick && process.env.BENCH_POSTGRES !== "0" && hasPostgres()
const log = (...args) => console.error(...args)
// as `npm start` and the Dockerfile run it (BENCH_NODE_ARGS to compare others)
const NODE_ARGS = process.env.BENCH_NODE_ARGS?.split(" ") ?? ["--max-old-space-size=256", "--max-semi-space-size=8"]

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
const conveneEnv = {
  ...common,
  RATE_LIMIT_BURST: "1000000",
  RATE_LIMIT_PER_SECOND: "1000000",
  BULK_RATE_LIMIT_BURST: "1000000",
  BULK_RATE_LIMIT_PER_MINUTE: "1000000",
  WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
  // the registrations' client addresses (bench/public.mjs), each with its own bucket
  TRUSTED_PROXIES: "127.0.0.1",
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "Info"
}
// as `npm start` and the Dockerfile run it
const convene = {
  name: "convene",
  script: join(root, "dist/src/main.js"),
  nodeArgs: NODE_ARGS,
  port: 3281,
  env: { ...conveneEnv, DATABASE_PATH: join(dir, "convene.db"), PUBLIC_BASE_URL: "http://127.0.0.1:3281" }
}
const floor = {
  name: "floor",
  script: join(floorDir, "server.mjs"),
  port: 3282,
  env: { ...common, DATABASE_PATH: join(dir, "floor.db"), PUBLIC_BASE_URL: "http://127.0.0.1:3282", FLOOR_SYNCHRONOUS: "FULL" }
}

const pick = (list, i) => list[i % list.length]

const GET_PERSON = "GET /person/:id"
const SEARCH = "GET /person/search?query="
const LIST_1000 = "GET guestlist (1,000)"
const LIST_5000 = "GET guestlist (5,000)"
const PUT_STATUS = "PUT guestlist (one status)"
// names of bench/seed.mjs: common and rare terms, two letters included
const SEARCH_TERMS = ["an", "mar", "lovelace", "kenji tan", "smith", "elena", "zz", "ro"]

/** A one-guest status PUT on `eventId`, its guest picked from `guests`. */
const statusPut = (eventId, guests) => {
  let n = 0
  return {
    name: PUT_STATUS,
    connections: 50,
    request: () => ({
      method: "PUT",
      path: `/event/${eventId}/guestlist`,
      headers: { "x-api-key": TOKEN, "content-type": "application/json" },
      body: JSON.stringify({ guests: [{ personId: pick(guests, (n += 7919)), rsvpStatus: pick(["Accepted", "Declined", "Maybe"], n) }] })
    })
  }
}

/** The measured requests; each gets the seeded ids of its server. */
const scenarios = (data) => {
  let n = 0
  let batch = 0
  const json = (body) => ({ headers: { "x-api-key": TOKEN, "content-type": "application/json" }, body: JSON.stringify(body) })
  return [
    { name: GET_PERSON, connections: 50, request: () => ({ method: "GET", path: `/person/${pick(data.personIds, (n += 7919))}` }) },
    { name: SEARCH, connections: 50, request: () => ({ method: "GET", path: `/person/search?query=${encodeURIComponent(pick(SEARCH_TERMS, n++))}` }) },
    { name: LIST_1000, connections: 20, request: () => ({ method: "GET", path: `/event/${data.smallEvent.eventId}/guestlist` }) },
    { name: LIST_5000, connections: 20, request: () => ({ method: "GET", path: `/event/${data.largeEvent.eventId}/guestlist` }) },
    { name: "GET guestlist/search?name=", connections: 20, request: () => ({ method: "GET", path: `/event/${data.largeEvent.eventId}/guestlist/search?name=${encodeURIComponent(pick(["ada", "garcia", "mar", "sofia rossi"], n++))}` }) },
    statusPut(data.smallEvent.eventId, data.smallEvent.guests),
    // the 1,000-guest event's public page (the floor has none: n/a)
    publicPage(data.publicSlug),
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

/** One scenario's run after its warm-up; `database`, a PostgreSQL server whose CPU is counted apart. */
const measure = async (server, scenario, database) => {
  await load(server.url, scenario, WARMUP)
  const cpuBefore = cpuMs(server.pid)
  const databaseBefore = database === undefined ? 0 : treeCpuMs(database.pid)
  const result = await load(server.url, scenario, DURATION)
  const cpu = cpuMs(server.pid) - cpuBefore
  const databaseCpu = database === undefined ? NaN : treeCpuMs(database.pid) - databaseBefore
  const requests = result.requests.total
  // the statuses that were not 2xx, and connection errors, by count
  const failures = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith("2"))
    .map(([status, { count }]) => `${status}: ${count}`)
  if (result.errors > 0) failures.push(`connection errors: ${result.errors}`)
  const errors = result.errors + result.non2xx
  return {
    "req/s": result.requests.average,
    "p50 ms": result.latency.p50,
    "p99 ms": result.latency.p99,
    "CPU ms/req": requests === 0 ? NaN : cpu / requests,
    "database CPU ms/req": requests === 0 ? NaN : databaseCpu / requests,
    errors,
    failures: failures.join(", "),
    // every answer an error: the server has no such endpoint (the floor lacks some)
    unsupported: requests > 0 && result.non2xx >= requests,
    rssMb: rssMb(server.pid)
  }
}

const fmt = (v, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : "-")
const table = (header, rows) => {
  console.log(`| ${header.join(" | ")} |`)
  console.log(`|${header.map(() => "---").join("|")}|`)
  for (const row of rows) console.log(`| ${row.join(" | ")} |`)
  console.log("")
}

/** Seeds a started server through its API; the ids the scenarios use. */
const seeded = async (server, tag) => {
  const t0 = performance.now()
  const data = { ...(await seed(server.url, { persons: PERSONS, log })), tag }
  log(`  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  return data
}

/** Phase 3: Convene alone on a database of LARGE_PERSONS persons. */
const atScale = async () => {
  const script = join(root, "dist/src/main.js")
  if (existsSync(LARGE_DB)) {
    log(`reusing ${LARGE_DB} (${LARGE_PERSONS} persons; BENCH_LARGE_DB names another)`)
  } else {
    log(`seeding ${LARGE_PERSONS} persons and ${LARGE_GUESTS} guests into ${LARGE_DB} (kept for the next run)...`)
    const partial = `${LARGE_DB}.partial`
    rmSync(partial, { force: true })
    const t0 = performance.now()
    await seedLarge({
      server: script,
      env: { ...conveneEnv, PUBLIC_BASE_URL: "http://127.0.0.1" },
      port: await freePort(),
      databasePath: partial,
      persons: LARGE_PERSONS,
      guests: LARGE_GUESTS,
      ticketed: false,
      log
    })
    for (const suffix of ["-wal", "-shm"]) rmSync(`${partial}${suffix}`, { force: true })
    renameSync(partial, LARGE_DB)
    log(`  seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  }
  const db = new Database(LARGE_DB, { readonly: true })
  const eventId = db.prepare("SELECT public_id FROM events WHERE name = 'Large event' ORDER BY id LIMIT 1").pluck().get()
  const guests = db.prepare(`SELECT p.public_id FROM event_guests g JOIN events e ON e.id = g.event_id JOIN persons p ON p.id = g.person_id
      WHERE e.public_id = ? AND g.removed_at IS NULL`).pluck().all(eventId)
  const organization = db.prepare("SELECT id FROM organizations WHERE slug = ?").pluck().get(common.BOOTSTRAP_ORG_SLUG)
  const named = db.prepare("SELECT count(*) FROM persons WHERE organization_id = ? AND archived_at IS NULL AND instr(name_key, ?) > 0").pluck()
  const persons = db.prepare("SELECT count(*) FROM persons WHERE organization_id = ? AND archived_at IS NULL").pluck().get(organization)

  const port = await freePort()
  const server = await startServer({ script, nodeArgs: NODE_ARGS, port, env: { ...conveneEnv, DATABASE_PATH: LARGE_DB, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } })
  try {
    log(`${PUT_STATUS} at ${LARGE_PERSONS} persons`)
    const put = await measure(server, statusPut(eventId, guests))
    const searches = {}
    for (const term of LARGE_SEARCH_TERMS) {
      log(`search "${term}" at ${LARGE_PERSONS} persons`)
      const result = await sequential(server.url, `/person/search?query=${encodeURIComponent(term)}`, SEQUENTIAL)
      const expected = named.get(organization, term.toLowerCase())
      if (result.body.total !== expected) throw new Error(`search "${term}": total ${result.body.total}, but ${expected} names contain it`)
      searches[term] = result
    }
    const deepSkip = Math.floor(persons * 0.9)
    const first = await sequential(server.url, "/person?limit=100", SEQUENTIAL)
    const deep = await sequential(server.url, `/person?skip=${deepSkip}&limit=100`, SEQUENTIAL)
    if (deep.body.persons.length !== 100) throw new Error(`skip=${deepSkip}: ${deep.body.persons.length} persons`)
    return { put, searches, first, deep, deepSkip, startupMs: server.readyMs, peakRss: peakRssMb(server.pid) }
  } finally {
    db.close()
    await server.stop()
  }
}

// persons of bench/large-seed.mjs (bench/seed.mjs's names): letters, pairs, common and rare terms, none
const LARGE_SEARCH_TERMS = ["a", "x", "an", "zz", "mar", "son", "smith", "ander", "maria garcia", "nobody-here"]

/** Phase 2: Convene on its own PostgreSQL server, the same scenarios, one round. */
const onPostgres = async () => {
  const pgDir = mkdtempSync(join(tmpdir(), "convene-bench-pg-"))
  const database = await startPostgres(pgDir)
  const port = await freePort()
  const server = await startServer({
    script: convene.script,
    nodeArgs: NODE_ARGS,
    port,
    env: { ...conveneEnv, DATABASE_PATH: join(pgDir, "unused.db"), DATABASE_URL: database.url, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }
  })
  try {
    log(`PostgreSQL: seeding ${PERSONS} persons...`)
    const data = await seeded(server, "pg")
    data.publicSlug = await makePublic(server.url, data.smallEvent.eventId, "bench-public", { capacityEnabled: true, capacity: 2_000 })
    execFileSync("psql", [database.url, "-qAt", "-c", "VACUUM ANALYZE"], { stdio: "ignore" })
    const results = {}
    for (const scenario of scenarios(data)) {
      log(`${scenario.name}: convene on PostgreSQL`)
      results[scenario.name] = await measure(server, scenario, database)
    }
    return { results, peakRss: peakRssMb(server.pid) }
  } finally {
    await server.stop()
    await database.stop()
    rmSync(pgDir, { recursive: true, force: true })
  }
}

/** BENCH_POSTGRES_ONLY=1: phase 2 alone, its table printed. */
const postgresOnly = async () => {
  const postgres = await onPostgres()
  printPostgres(postgres, undefined)
}

const printPostgres = (postgres, c) => {
  console.log(`## Convene on PostgreSQL: the same scenarios, ${PERSONS.toLocaleString("en")} persons, one run each (CPU of the service and of PostgreSQL's processes)\n`)
  table(
    ["scenario", "req/s", "p50/p99 ms", "service CPU ms/req", "PostgreSQL CPU ms/req", "SQLite CPU ms/req", "errors"],
    Object.keys(postgres.results).map((name) => {
      const r = postgres.results[name]
      return [name, fmt(r["req/s"], 0), `${r["p50 ms"]}/${r["p99 ms"]}`, fmt(r["CPU ms/req"], 3), fmt(r["database CPU ms/req"], 3), fmt(c?.[name]["CPU ms/req"], 3), r.errors === 0 ? "0" : `${r.errors} (${r.failures})`]
    })
  )
}

const main = async () => {
  const servers = {}
  const data = {}
  for (const target of [convene, floor]) {
    log(`starting ${target.name} and seeding ${PERSONS} persons...`)
    const server = await startServer(target)
    data[target.name] = await seeded(server, target.name)
    servers[target.name] = server
  }
  await seedPayments(servers.convene.url, data.convene.personIds)
  data.convene.publicSlug = await makePublic(servers.convene.url, data.convene.smallEvent.eventId, "bench-public", { capacityEnabled: true, capacity: 2_000 })
  data.floor.publicSlug = "bench-public"

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
  log("100 registrations at once on 50 places (Convene only)...")
  const selfRegistrations = await measureRegistrations(servers.convene)

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
  // start-up to /readyz on the seeded database, best of 3
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

  const postgres = ON_POSTGRES ? await onPostgres() : undefined
  const scale = await atScale()

  // ---- tables
  const c = results.convene
  const f = results.floor
  console.log(`\n## Convene vs floor on SQLite: ${PERSONS.toLocaleString("en")} persons, events of 1,000 and 5,000 guests; ${DURATION} s per run, best of ${ROUNDS}\n`)
  table(
    ["scenario", "connections", "Convene req/s", "Convene p50/p99 ms", "Convene CPU ms/req", "floor req/s", "floor p50/p99 ms", "floor CPU ms/req", "CPU ratio", "errors"],
    plans.convene.map(({ connections, name }) => {
      const [a, b] = [c[name], f[name]]
      return [
        name,
        connections,
        fmt(a["req/s"], 0),
        `${a["p50 ms"]}/${a["p99 ms"]}`,
        fmt(a["CPU ms/req"], 3),
        ...(b.unsupported ? ["n/a", "n/a", "n/a", "n/a (floor lacks it)", `${a.errors}/-`] : [
          fmt(b["req/s"], 0),
          `${b["p50 ms"]}/${b["p99 ms"]}`,
          fmt(b["CPU ms/req"], 3),
          fmt(a["CPU ms/req"] / b["CPU ms/req"], 2),
          `${a.errors}/${b.errors}${a.failures === "" ? "" : ` (Convene ${a.failures})`}`
        ])
      ]
    })
  )
  table(
    ["5,000-guest GET alone (median ms)", "webhook p50 / p99 ms", "deliveries/s", "start-up to /readyz ms (Convene / floor)", "peak RSS MB (Convene / floor)"],
    [[fmt(single[Math.floor(single.length / 2)]), `${fmt(webhooks.p50)} / ${fmt(webhooks.p99)}`, fmt(webhooks.deliveriesPerSecond, 0), `${fmt(startup.convene, 0)} / ${fmt(startup.floor, 0)}`, `${fmt(peak.convene, 0)} / ${fmt(peak.floor, 0)}`]]
  )

  console.log("## The public page and self-registration (Convene only)\n")
  table(
    ["measure", "CPU ms per request", `beside ${GET_PERSON}`],
    [
      [`${PUBLIC_PAGE} (1,000 guests, 50 connections)`, fmt(c[PUBLIC_PAGE]["CPU ms/req"], 3), `${fmt(c[PUBLIC_PAGE]["CPU ms/req"] / c[GET_PERSON]["CPU ms/req"], 1)}x`],
      [
        `${selfRegistrations.count} registrations at once, ${selfRegistrations.capacity} places: ${selfRegistrations.accepted} Accepted, ${selfRegistrations.waitlisted} Waitlisted (checked), ${fmt(selfRegistrations.wallMs, 0)} ms in all`,
        fmt(selfRegistrations.cpuMsPerRegistration, 3),
        `${fmt(selfRegistrations.cpuMsPerRegistration / c[GET_PERSON]["CPU ms/req"], 1)}x`
      ]
    ]
  )

  if (postgres !== undefined) {
    printPostgres(postgres, c)
  } else {
    console.log(`(PostgreSQL: ${quick ? "not in the quick run" : "not installed, or BENCH_POSTGRES=0"})\n`)
  }

  console.log(`## Convene alone at ${LARGE_PERSONS.toLocaleString("en")} persons (an event of ${LARGE_GUESTS.toLocaleString("en")} guests)\n`)
  table(
    ["measure", `at ${PERSONS.toLocaleString("en")}`, `at ${LARGE_PERSONS.toLocaleString("en")}`],
    [
      [`${PUT_STATUS}, 50 connections: req/s`, fmt(c[PUT_STATUS]["req/s"], 0), fmt(scale.put["req/s"], 0)],
      [`${PUT_STATUS}: p50/p99 ms`, `${c[PUT_STATUS]["p50 ms"]}/${c[PUT_STATUS]["p99 ms"]}`, `${scale.put["p50 ms"]}/${scale.put["p99 ms"]}`],
      [`${PUT_STATUS}: CPU ms/req`, fmt(c[PUT_STATUS]["CPU ms/req"], 3), fmt(scale.put["CPU ms/req"], 3)],
      ["start-up to /readyz ms", fmt(startup.convene, 0), fmt(scale.startupMs, 0)]
    ]
  )
  table(
    ["one request at a time", "matches", "p50 ms", "p99 ms"],
    [
      ...LARGE_SEARCH_TERMS.map((term) => {
        const r = scale.searches[term]
        return [`search \`${term}\``, r.body.total, fmt(r.p50), fmt(r.p99)]
      }),
      ["`GET /person?limit=100`", "", fmt(scale.first.p50), fmt(scale.first.p99)],
      [`\`GET /person?skip=${scale.deepSkip}&limit=100\``, "", fmt(scale.deep.p50), fmt(scale.deep.p99)]
    ]
  )

  // ---- targets (issue 18)
  const ratio = (name) => c[name]["CPU ms/req"] / f[name]["CPU ms/req"]
  const p99Ratio = (name) => c[name]["p99 ms"] / f[name]["p99 ms"]
  const worstSearch = Math.max(...LARGE_SEARCH_TERMS.map((term) => scale.searches[term].p99))
  const rss = Math.max(peak.convene, scale.peakRss, postgres?.peakRss ?? 0)
  const targets = [
    [`${GET_PERSON} CPU per request`, "≤ 0.20 ms", `${fmt(c[GET_PERSON]["CPU ms/req"], 3)} ms (${fmt(ratio(GET_PERSON), 1)}x the floor)`, c[GET_PERSON]["CPU ms/req"] <= 0.2],
    [`${PUT_STATUS} CPU per request`, "≤ 0.45 ms", `${fmt(c[PUT_STATUS]["CPU ms/req"], 3)} ms (${fmt(ratio(PUT_STATUS), 1)}x the floor)`, c[PUT_STATUS]["CPU ms/req"] <= 0.45],
    [`person search CPU at ${PERSONS.toLocaleString("en")}`, "≤ the floor's", `${fmt(ratio(SEARCH), 2)}x`, ratio(SEARCH) <= 1],
    [`person search p99 at ${LARGE_PERSONS.toLocaleString("en")}`, "< 50 ms", `${fmt(worstSearch)} ms (worst term)`, worstSearch < 50],
    [`status PUTs at ${LARGE_PERSONS.toLocaleString("en")} against ${PERSONS.toLocaleString("en")}`, "≥ 0.5x the rate", `${fmt(scale.put["req/s"] / c[PUT_STATUS]["req/s"], 2)}x`, scale.put["req/s"] >= 0.5 * c[PUT_STATUS]["req/s"]],
    ...[LIST_1000, LIST_5000].flatMap((name) => [
      [`${name} CPU`, "≤ 1.5x the floor", `${fmt(ratio(name), 2)}x`, ratio(name) <= 1.5],
      [`${name} p99 at 20 connections`, "≤ 2x the floor's", `${c[name]["p99 ms"]} / ${f[name]["p99 ms"]} ms (${fmt(p99Ratio(name), 2)}x)`, p99Ratio(name) <= 2]
    ]),
    [`skip at 90% of ${LARGE_PERSONS.toLocaleString("en")} against the first page (p50)`, "≤ 5x", `${fmt(scale.deep.p50)} / ${fmt(scale.first.p50)} ms (${fmt(scale.deep.p50 / scale.first.p50, 1)}x)`, scale.deep.p50 <= 5 * scale.first.p50],
    ["peak RSS, every phase", "< 200 MB", `${fmt(rss, 0)} MB`, rss < 200],
    ["start-up to /readyz", "< 1,000 ms", `${fmt(startup.convene, 0)} ms (${fmt(scale.startupMs, 0)} at ${LARGE_PERSONS.toLocaleString("en")})`, startup.convene < 1000]
  ]
  console.log(`## Issue 18's targets${quick ? " (quick run: short runs, one round, " + LARGE_PERSONS.toLocaleString("en") + " persons at scale)" : ""}\n`)
  table(["target", "limit", "measured", "met"], targets.map(([what, limit, measured, met]) => [what, limit, measured, met ? "yes" : "**no**"]))
}

;(process.env.BENCH_POSTGRES_ONLY === "1" ? postgresOnly() : main())
  .catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
  .finally(async () => {
    rmSync(dir, { recursive: true, force: true })
  })
