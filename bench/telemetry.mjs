// What metrics and traces cost (issue 28): the compiled service on SQLite, one server under load at
// a time, alternating, in three settings:
//   off     tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset), /metrics on and scraped every second;
//   traced  the same, with OTEL_EXPORTER_OTLP_ENDPOINT set: every request, SQL statement and
//           delivery a span, exported over OTLP/HTTP (JSON) to a local receiver that counts them;
//   base    (when BENCH_BASE=<a checkout's folder with its dist/> is given) another build as it
//           is, e.g. the commit before /metrics existed, for what `off` costs against it.
// Scenarios, at 50 connections: GET /person/:id (4 statements), and one-guest status PUTs (a write
// transaction, its history, change feed and outbox rows). Server CPU per request from /proc and
// requests per second, best of BENCH_ROUNDS (2) runs of BENCH_SECONDS (5) each after a warm-up.
// BENCH_SETTINGS=base,off (a comma-separated subset) and BENCH_SCENARIOS=get or put narrow a run.
//   npm run build && node bench/telemetry.mjs
import autocannon from "autocannon"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { benchEnv, client, cpuMs, freePort, sleep, startServer, TOKEN } from "./lib.mjs"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const CONNECTIONS = 50
const METRICS_TOKEN = "bench-metrics-0123456789"
const dir = mkdtempSync(join(tmpdir(), "convene-telemetry-bench-"))
const log = (...args) => console.error(...args)

/** An OTLP/HTTP receiver that counts the spans it is sent and answers 200. */
const otlpSink = async () => {
  let spans = 0
  let bytes = 0
  const server = createServer((req, res) => {
    const chunks = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      bytes += body.length
      try {
        for (const r of JSON.parse(body.toString("utf8")).resourceSpans) for (const s of r.scopeSpans) spans += s.spans.length
      } catch {}
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise((r) => server.listen(0, "127.0.0.1", r))
  return { url: `http://127.0.0.1:${server.address().port}`, spans: () => spans, bytes: () => bytes, close: () => new Promise((r) => server.close(r)) }
}

const settings = (sink) => {
  const own = join(process.cwd(), "dist/src/main.js")
  const list = [
    { name: "off", script: own, env: { METRICS_TOKEN } },
    { name: "traced", script: own, env: { METRICS_TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } }
  ]
  if (process.env.BENCH_BASE) list.unshift({ name: "base", script: resolve(process.env.BENCH_BASE, "dist/src/main.js"), env: {} })
  const only = process.env.BENCH_SETTINGS?.split(",")
  return only === undefined ? list : list.filter((setting) => only.includes(setting.name))
}

const run = (url, requests) =>
  new Promise((resolve, reject) =>
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests, headers: { "x-api-key": TOKEN } }, (error, result) =>
      error ? reject(error) : resolve(result)))

const main = async () => {
  const sink = await otlpSink()
  const results = new Map()
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const setting of settings(sink)) {
        const databasePath = join(dir, `${setting.name}-${round}.db`)
        const server = await startServer({
          script: setting.script,
          port: await freePort(),
          env: { DATABASE_PATH: databasePath, ...benchEnv, LOG_LEVEL: "Warn", PUBLIC_BASE_URL: "http://127.0.0.1", ...setting.env },
          nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"]
        })
        const api = client(server.url)
        const { eventId } = await api("POST", "/event", { name: "Bench", primaryDate: "2031-06-01T18:00:00+02:00" })
        const batch = Array.from({ length: 200 }, (_, k) => ({ firstName: `P${k}`, lastName: "Bench", email: `p${k}@bench.example` }))
        const guests = (await api("POST", `/event/${eventId}/guestlist`, { guests: batch })).guests.map((g) => g.personId)
        // scraped every second, as Prometheus would (more often than its usual 15 s)
        const scraper = setting.env.METRICS_TOKEN === undefined ? undefined : setInterval(() => {
          fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).then((r) => r.text(), () => {})
        }, 1_000)
        const statuses = ["Accepted", "Declined", "Maybe", "Invited"]
        let n = 0
        const scenarios = {
          "GET /person/:id": [{ setupRequest: (r) => ({ ...r, method: "GET", path: `/person/${guests[n++ % guests.length]}` }) }],
          "PUT one guest's status": [{
            setupRequest: (r) => {
              const i = n++
              return {
                ...r,
                method: "PUT",
                path: `/event/${eventId}/guestlist`,
                headers: { "x-api-key": TOKEN, "content-type": "application/json" },
                body: JSON.stringify({ guests: [{ personId: guests[i % guests.length], rsvpStatus: statuses[i % 4] }] })
              }
            }
          }]
        }
        const only = process.env.BENCH_SCENARIOS
        for (const [scenario, requests] of Object.entries(scenarios)) {
          if (only !== undefined && !scenario.toLowerCase().startsWith(only)) continue
          await new Promise((resolve) => autocannon({ url: server.url, connections: CONNECTIONS, duration: 2, requests, headers: { "x-api-key": TOKEN } }, resolve))
          const before = cpuMs(server.pid)
          const spansBefore = sink.spans()
          const result = await run(server.url, requests)
          const cpu = cpuMs(server.pid) - before
          const total = result.requests.total
          const row = { rps: result.requests.average, cpuPerRequest: cpu / total, errors: result.errors + result.non2xx, spans: (sink.spans() - spansBefore) / total }
          const key = `${scenario}|${setting.name}`
          const best = results.get(key)
          if (best === undefined || row.cpuPerRequest < best.cpuPerRequest) results.set(key, row)
          log(`round ${round + 1} ${setting.name} ${scenario}: ${row.rps.toFixed(0)} req/s, ${row.cpuPerRequest.toFixed(3)} ms CPU/request, ${row.errors} errors`)
          await sleep(500)
        }
        if (scraper !== undefined) clearInterval(scraper)
        await server.stop()
      }
    }
  } finally {
    await sink.close()
    rmSync(dir, { recursive: true, force: true })
  }
  console.log(`\n| scenario | setting | req/s | server CPU per request | spans per request | errors |\n|---|---|---|---|---|---|`)
  for (const [key, row] of results) {
    const [scenario, setting] = key.split("|")
    console.log(`| ${scenario} | ${setting} | ${row.rps.toFixed(0)} | ${row.cpuPerRequest.toFixed(3)} ms | ${row.spans.toFixed(1)} | ${row.errors} |`)
  }
  console.log(`\n(best of ${ROUNDS} runs of ${SECONDS} s at ${CONNECTIONS} connections; spans exported: ${sink.spans()}, ${(sink.bytes() / 1e6).toFixed(1)} MB)`)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
