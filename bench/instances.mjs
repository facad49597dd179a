// Requests per second of one Convene instance against three, all on one PostgreSQL (issue 17),
// on this one machine: the compiled service, 2,000 persons on a 500-guest list, and a mix of
// GET /person/:id (reads) and one-guest status PUTs (writes, with history, outbox and feed), by
// autocannon with 48 connections in all, spread evenly over the instances. Each instance is its
// own process; PostgreSQL and the load generator share the same cores, so this shows what the
// instances cost and whether anything serializes, not what three machines would give.
//   npm run bench:instances        (BENCH_SECONDS=10 per run by default)
import autocannon from "autocannon"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { benchEnv, client, cpuMs, freePort, startPostgres, startServer, TOKEN } from "./lib.mjs"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 48
const dir = mkdtempSync(join(tmpdir(), "convene-instances-bench-"))

const env = (url) => ({
  DATABASE_URL: url,
  DATABASE_PATH: join(dir, "unused.db"),
  ...benchEnv,
  PUBLIC_BASE_URL: "http://127.0.0.1",
  LOG_LEVEL: "Warn"
})

const load = (urls, requests) =>
  Promise.all(urls.map((url) =>
    new Promise((resolve, reject) =>
      autocannon({ url, connections: CONNECTIONS / urls.length, duration: SECONDS, requests, headers: { "x-api-key": TOKEN } }, (error, result) =>
        error ? reject(error) : resolve(result)))
  )).then((results) => ({
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((sum, r) => sum + r.errors + r.non2xx, 0)
  }))

const main = async () => {
  const script = join(process.cwd(), "dist/src/main.js")
  const postgres = await startPostgres(dir)
  const servers = []
  try {
    servers.push(await startServer({ script, env: env(postgres.url), port: await freePort() }))
    const api = client(servers[0].url)
    const { eventId } = await api("POST", "/event", { name: "Bench", primaryDate: "2031-06-01T18:00:00+02:00" })
    const persons = []
    for (let i = 0; i < 2_000; i += 100) {
      const batch = Array.from({ length: 100 }, (_, k) => ({ firstName: `P${i + k}`, lastName: "Bench", email: `p${i + k}@bench.example` }))
      if (i < 500) persons.push(...(await api("POST", `/event/${eventId}/guestlist`, { guests: batch })).guests.map((g) => g.personId))
      else for (const person of batch) persons.push((await api("POST", "/person", person)).personId)
    }
    const guests = persons.slice(0, 500)
    const statuses = ["Accepted", "Declined", "Maybe", "Invited"]
    let n = 0
    const requests = [{
      setupRequest: (request) => {
        const i = n++
        if (i % 4 === 3) {
          return {
            ...request,
            method: "PUT",
            path: `/event/${eventId}/guestlist`,
            headers: { ...request.headers, "content-type": "application/json" },
            body: JSON.stringify({ guests: [{ personId: guests[i % guests.length], rsvpStatus: statuses[i % 4] }] })
          }
        }
        return { ...request, method: "GET", path: `/person/${persons[i % persons.length]}` }
      }
    }]

    const rows = []
    for (const count of [1, 3]) {
      while (servers.length < count) servers.push(await startServer({ script, env: env(postgres.url), port: await freePort() }))
      const urls = servers.slice(0, count).map((s) => s.url)
      await load(urls, requests) // warm-up
      const cpu = servers.slice(0, count).map((s) => cpuMs(s.pid))
      const result = await load(urls, requests)
      const used = servers.slice(0, count).reduce((sum, s, i) => sum + cpuMs(s.pid) - cpu[i], 0)
      rows.push({ count, ...result, cpuPerRequest: used / (result.rps * SECONDS) })
    }
    console.log(`\nOne PostgreSQL, ${CONNECTIONS} connections, 3 reads : 1 status write, ${SECONDS} s per run, all on this machine\n`)
    console.log("| instances | requests/s | p99 ms | errors | service CPU ms/request |")
    console.log("|---|---|---|---|---|")
    for (const r of rows) console.log(`| ${r.count} | ${Math.round(r.rps)} | ${r.p99} | ${r.errors} | ${r.cpuPerRequest.toFixed(3)} |`)
  } finally {
    for (const server of servers) await server.stop()
    await postgres.stop()
  }
}

main().then(
  () => rmSync(dir, { recursive: true, force: true }),
  (error) => {
    console.error(error)
    rmSync(dir, { recursive: true, force: true })
    process.exit(1)
  }
)
