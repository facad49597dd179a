// The public event page and self-registration (CONTRACT §16). `npm run bench` takes from here:
//   - `publicPage`: a scenario of `GET /e/<slug>` (its event made public by `makePublic`);
//   - `measureRegistrations`: 100 registrations at once on a public event of 50 places, checked to
//     leave exactly 50 Accepted and 50 Waitlisted, with the server's CPU per registration.
// `npm run bench:public` (this file alone, about a minute): one server, an event of 100,000 guests
// (seeded directly, bench/large-seed.mjs) and one of 10, both public with 100 places; the page of
// each and `GET /person/:id` at 20 connections for a few seconds each (CPU per request), then the
// registrations. The page's statements do not grow with the list: the places are the `Accepted`
// guests counted up to the capacity on the guests' status index (migration 0028).
import autocannon from "autocannon"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { seedLarge } from "./large-seed.mjs"
import { benchEnv, client, cpuMs, freePort, startServer, TOKEN } from "./lib.mjs"

/** Makes an event public with a slug (and `fields`); answers the slug. */
export const makePublic = async (url, eventId, slug, fields = {}) => {
  await client(url)("PATCH", `/event/${eventId}`, { isPublic: true, primarySlug: slug, ...fields })
  return slug
}

export const PUBLIC_PAGE = "GET /e/:slug"

/** The public page as a scenario of bench/run.mjs. */
export const publicPage = (slug, connections = 50) => ({ name: PUBLIC_PAGE, connections, request: () => ({ method: "GET", path: `/e/${slug}` }) })

/**
 * `count` registrations at once on a new public event of `capacity` places, each from a client
 * address of its own (the server trusts 127.0.0.1 as a proxy: TRUSTED_PROXIES), as browsers post
 * the form; checks that exactly `capacity` are Accepted and the rest Waitlisted. Answers the CPU per
 * registration and the wall time.
 */
export const measureRegistrations = async (server, { count = 100, capacity = 50 } = {}) => {
  const api = client(server.url)
  const slug = `bench-registration-${Date.now()}`
  const event = await api("POST", "/event", {
    name: "Registrations",
    primaryDate: "2031-06-01T18:00:00Z",
    isPublic: true,
    primarySlug: slug,
    capacityEnabled: true,
    capacity
  })
  const page = await fetch(`${server.url}/e/${slug}`)
  const cookie = page.headers.get("set-cookie").split(";")[0]
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())[1]
  const post = (i) =>
    fetch(`${server.url}/e/${slug}/register`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie,
        origin: server.url,
        "x-forwarded-for": `10.9.${i >> 8}.${i & 255}`
      },
      body: new URLSearchParams({ csrf, firstName: "Bench", lastName: `R${i}`, email: `r${i}.${slug}@bench.example` }).toString()
    }).then(async (r) => (await r.arrayBuffer(), r.status))
  const cpuBefore = cpuMs(server.pid)
  const t0 = performance.now()
  const statuses = await Promise.all(Array.from({ length: count }, (_, i) => post(i)))
  const wallMs = performance.now() - t0
  const cpu = cpuMs(server.pid) - cpuBefore
  const refused = statuses.filter((s) => s !== 200).length
  const guests = (await api("GET", `/event/${event.eventId}/guestlist`)).guests
  const by = (status) => guests.filter((g) => g.rsvpStatus === status).length
  const accepted = by("Accepted")
  const waitlisted = by("Waitlisted")
  if (refused > 0 || accepted !== capacity || waitlisted !== count - capacity) {
    throw new Error(`registrations: ${refused} refused, ${accepted} Accepted, ${waitlisted} Waitlisted (want ${capacity} and ${count - capacity})`)
  }
  return { count, capacity, accepted, waitlisted, cpuMsPerRegistration: cpu / count, wallMs }
}

/** One scenario for `seconds` after a one-second warm-up: requests per second, p99, CPU per request. */
const run = (server, scenario, seconds) =>
  new Promise((done, reject) => {
    const go = (duration, callback) =>
      autocannon({
        url: server.url,
        connections: scenario.connections,
        duration,
        headers: { "x-api-key": TOKEN },
        requests: [{ setupRequest: (req) => ({ ...req, ...scenario.request() }) }]
      }, callback)
    go(1, (warmError) => {
      if (warmError) return reject(warmError)
      const before = cpuMs(server.pid)
      go(seconds, (error, result) => {
        if (error) return reject(error)
        const cpu = cpuMs(server.pid) - before
        done({ rps: result.requests.average, p99: result.latency.p99, cpuPerRequest: cpu / result.requests.total, non2xx: result.non2xx })
      })
    })
  })

const main = async () => {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
  const script = join(root, "dist/src/main.js")
  const guests = Number(process.env.BENCH_PUBLIC_GUESTS ?? 100_000)
  const seconds = Number(process.env.BENCH_PUBLIC_SECONDS ?? 3)
  const dir = mkdtempSync(join(tmpdir(), "convene-bench-public-"))
  const log = (...args) => console.error(...args)
  const env = { ...benchEnv, TRUSTED_PROXIES: "127.0.0.1", LOG_LEVEL: "Warn" }
  try {
    const databasePath = join(dir, "public.db")
    log(`seeding ${guests.toLocaleString("en")} guests...`)
    await seedLarge({ server: script, env: { ...env, PUBLIC_BASE_URL: "http://127.0.0.1" }, port: await freePort(), databasePath, persons: guests, guests, ticketed: false, log })
    const port = await freePort()
    const server = await startServer({ script, port, nodeArgs: ["--max-old-space-size=256"], env: { ...env, DATABASE_PATH: databasePath, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } })
    try {
      const api = client(server.url)
      const large = (await api("GET", "/event?showOrganizationEvents=true")).events.find((e) => e.name === "Large event")
      await makePublic(server.url, large.eventId, "bench-large", { capacityEnabled: true, capacity: 100 })
      const small = await api("POST", "/event", { name: "Small event", primaryDate: "2031-06-01T18:00:00Z", isPublic: true, primarySlug: "bench-small", capacityEnabled: true, capacity: 100 })
      const people = (await api("GET", "/person?limit=10")).persons
      await api("POST", `/event/${small.eventId}/guestlist`, { guests: people.map((p) => ({ personId: p.personId })) })
      await api("PUT", `/event/${small.eventId}/guestlist`, { guests: people.map((p) => ({ personId: p.personId, rsvpStatus: "Accepted" })) })
      const rows = []
      for (const [name, scenario] of [
        ["GET /person/:id", { name: "person", connections: 20, request: () => ({ method: "GET", path: `/person/${people[0].personId}` }) }],
        ["GET /e/:slug, 10 guests (capacity 100)", publicPage("bench-small", 20)],
        [`GET /e/:slug, ${guests.toLocaleString("en")} guests (capacity 100)`, publicPage("bench-large", 20)]
      ]) {
        log(name)
        rows.push([name, await run(server, scenario, seconds)])
      }
      log("100 registrations at once on 50 places")
      const registrations = await measureRegistrations(server)
      console.log(`\n| measure (${seconds} s at 20 connections) | req/s | p99 ms | CPU ms/req | non-2xx |\n|---|---|---|---|---|`)
      for (const [name, r] of rows) console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p99} | ${r.cpuPerRequest.toFixed(3)} | ${r.non2xx} |`)
      console.log(`| 100 registrations at once, capacity 50 (${registrations.accepted} Accepted, ${registrations.waitlisted} Waitlisted) | - | ${registrations.wallMs.toFixed(0)} (all) | ${registrations.cpuMsPerRegistration.toFixed(3)} | 0 |\n`)
    } finally {
      await server.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
}
