// `npm run bench:csv`: contacts CSV import and export (docs/integrators.md#csv-export-and-import) on the built server, started as
// `npm start` runs it (--max-old-space-size=256 --max-semi-space-size=8), over a fresh database.
// Phases, each on a fresh server process: import 50,000 new contacts; export them; import 50,000 more;
// export all 100,000; import the first file again (every row matches, nothing to fill). For each:
// rows per second, the server's RSS when idle and at its peak, the longest event-loop stall inside the server (perf_hooks.monitorEventLoopDelay, loaded with
// --import), and the slowest of other requests sent meanwhile, one after the other: GET /healthz
// every 10 ms, GET /person/:id and POST /person (a write, which waits for the import's transaction).
//
// Options: --server FILE (another build's dist/src/main.js), --rows N (rows per import file, default 50,000).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { client, peakRssMb, rssMb, sleep, startServer, TOKEN } from "./lib.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : process.argv[i + 1]
}
const SERVER = resolve(arg("server", join(root, "dist/src/main.js")))
const ROWS = Number(arg("rows", 50_000))
const PORT = 3292
const log = (...args) => console.error(...args)

const dir = mkdtempSync(join(tmpdir(), "convene-csv-"))
const stallFile = join(dir, "stall.json")

// Inside the server: the event loop's delay histogram; SIGUSR2 writes its maximum and starts afresh.
const probe = `
import { monitorEventLoopDelay } from "node:perf_hooks"
import { writeFileSync } from "node:fs"
const histogram = monitorEventLoopDelay({ resolution: 5 })
histogram.enable()
process.on("SIGUSR2", () => {
  writeFileSync(${JSON.stringify(stallFile)}, JSON.stringify({ maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 }))
  histogram.reset()
})
`

const stall = async (pid) => {
  rmSync(stallFile, { force: true })
  process.kill(pid, "SIGUSR2")
  for (let i = 0; i < 200; i++) {
    try {
      return JSON.parse(readFileSync(stallFile, "utf8"))
    } catch {
      await sleep(5)
    }
  }
  return { maxMs: NaN, p99Ms: NaN }
}

/** Resets the kernel's peak-RSS mark (Linux: "5" to clear_refs); samples RSS every 20 ms until stopped. */
const watchMemory = (pid) => {
  let hwm = true
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5")
  } catch {
    hwm = false
  }
  let peak = rssMb(pid)
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid))
    } catch {}
  }, 20)
  return () => {
    clearInterval(timer)
    if (hwm) peak = Math.max(peak, peakRssMb(pid))
    return peak
  }
}

/** Sequential requests until stopped: the slowest, and how many. */
const loop = (send, pause) => {
  let running = true
  let worst = 0
  let count = 0
  let errors = 0
  const done = (async () => {
    while (running) {
      const started = performance.now()
      try {
        const response = await send()
        await response.arrayBuffer()
        if (response.status >= 300) errors++
      } catch {
        errors++
      }
      worst = Math.max(worst, performance.now() - started)
      count++
      if (pause > 0) await sleep(pause)
    }
  })()
  return async () => {
    running = false
    await done
    return { worst, count, errors }
  }
}

const csvFile = (from, rows) => {
  const lines = ["email,firstName,lastName,company,city,phone,custom:Level"]
  for (let i = from; i < from + rows; i++) {
    lines.push(`bench.${i}@example.com,First${i},Last${i},${i % 3 === 0 ? "Acme Inc" : ""},City ${i % 100},+1 555 ${String(i).padStart(7, "0")},${i % 10}`)
  }
  return `${lines.join("\r\n")}\r\n`
}

const importFile = async (url, body) => {
  const response = await fetch(`${url}/person/import`, {
    method: "POST",
    headers: { "x-api-key": TOKEN, "content-type": "text/csv" },
    body
  })
  const report = await response.json()
  if (response.status !== 200) throw new Error(`import: ${response.status} ${JSON.stringify(report).slice(0, 300)}`)
  return report
}

/** Reads the export to its end; counts its lines. */
const exportAll = (url) =>
  new Promise((done, fail) => {
    let lines = 0
    let bytes = 0
    const req = request(`${url}/person/export`, { headers: { "x-api-key": TOKEN }, agent: false }, (res) => {
      if (res.statusCode !== 200) fail(new Error(`export: ${res.statusCode}`))
      res.on("data", (chunk) => {
        bytes += chunk.length
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++
      })
      res.on("end", () => done({ rows: lines - 1, bytes }))
      res.on("error", fail)
    })
    req.on("error", fail)
    req.end()
  })

const phase = async (server, personId, name, run) => {
  await stall(server.pid)
  const stopMemory = watchMemory(server.pid)
  const healthz = loop(() => fetch(`${server.url}/healthz`), 10)
  const reads = loop(() => fetch(`${server.url}/person/${personId}`, { headers: { "x-api-key": TOKEN } }), 0)
  let n = 0
  const writes = loop(() =>
    fetch(`${server.url}/person`, {
      method: "POST",
      headers: { "x-api-key": TOKEN, "content-type": "application/json" },
      body: JSON.stringify({ firstName: "During", lastName: name, email: `during.${name.replace(/\W/g, "")}.${++n}@example.com` })
    }), 0)
  const started = performance.now()
  const rows = await run()
  const seconds = (performance.now() - started) / 1000
  const [h, r, w] = await Promise.all([healthz(), reads(), writes()])
  const { maxMs } = await stall(server.pid)
  return { name, rows, seconds, peak: stopMemory(), stallMs: maxMs, healthz: h, reads: r, writes: w }
}

const env = (databasePath) => ({
  DATABASE_PATH: databasePath,
  BOOTSTRAP_ORG_SLUG: "bench",
  BOOTSTRAP_ORG_NAME: "Bench",
  BOOTSTRAP_API_TOKEN: TOKEN,
  PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
  RATE_LIMIT_BURST: "1000000",
  RATE_LIMIT_PER_SECOND: "1000000",
  LOG_LEVEL: "Warn"
})

let warmups = 0
/** A fresh server process on the database (so each phase's peak RSS is its own), warmed up. */
const start = async (databasePath) => {
  const server = await startServer({
    script: SERVER,
    port: PORT,
    nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8", "--import", `data:text/javascript,${encodeURIComponent(probe)}`],
    env: env(databasePath)
  })
  // the first requests run at half speed while the JIT warms up
  await importFile(server.url, csvFile(10_000_000 + 2_000 * warmups++, 2_000))
  await exportAll(server.url)
  return server
}

let server
try {
  const databasePath = join(dir, "csv.db")
  server = await start(databasePath)
  const api = client(server.url)
  await api("POST", "/custom-field", { fieldName: "Level", fieldType: "number" })
  const { personId } = await api("POST", "/person", { firstName: "Probe", lastName: "Person", email: "probe@example.com" })

  const first = csvFile(0, ROWS)
  const second = csvFile(ROWS, ROWS)
  log(`files: ${(Buffer.byteLength(first) / 1048576).toFixed(1)} MiB of ${ROWS} rows each`)
  const results = []
  const expect = (report, created) => {
    if (report.created !== created || report.errors.length > 0) throw new Error(`unexpected report ${JSON.stringify(report).slice(0, 300)}`)
    return report.rows
  }
  const run = async (name, work) => {
    await server.stop()
    server = await start(databasePath)
    const idle = rssMb(server.pid)
    results.push({ ...(await phase(server, personId, name, work)), idle })
  }
  await run(`import ${ROWS} new`, async () => expect(await importFile(server.url, first), ROWS))
  await run(`export ${ROWS}`, async () => (await exportAll(server.url)).rows)
  await run(`import ${ROWS} more`, async () => expect(await importFile(server.url, second), ROWS))
  await run(`export ${2 * ROWS}`, async () => (await exportAll(server.url)).rows)
  await run(`import ${ROWS} matching`, async () => expect(await importFile(server.url, first), 0))

  const pad = (s, n) => String(s).padEnd(n)
  const num = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a")
  console.log(`\ncontacts CSV (${SERVER.replace(root + "/", "")}, node ${process.version})\n`)
  console.log(
    `${pad("phase", 22)}${pad("rows", 9)}${pad("s", 7)}${pad("rows/s", 9)}${pad("RSS idle/peak MB", 18)}${pad("loop stall ms", 15)}` +
      `${pad("healthz max ms", 16)}${pad("GET person max ms", 19)}${pad("POST person max ms", 19)}`
  )
  for (const r of results) {
    console.log(
      `${pad(r.name, 22)}${pad(r.rows, 9)}${pad(num(r.seconds, 2), 7)}${pad(num(r.rows / r.seconds), 9)}${pad(`${num(r.idle)} / ${num(r.peak)}`, 18)}` +
        `${pad(num(r.stallMs), 15)}${pad(num(r.healthz.worst), 16)}${pad(`${num(r.reads.worst)} (${r.reads.count})`, 19)}` +
        `${pad(`${num(r.writes.worst)} (${r.writes.count})`, 19)}`
    )
    const errors = r.healthz.errors + r.reads.errors + r.writes.errors
    if (errors > 0) console.log(`  ${errors} other requests failed during ${r.name}`)
  }
  console.log("\nEach phase on a fresh server process (warmed up by a 2,000-row import and an export). rows: rows imported,")
  console.log("or lines exported (the phases' own requests included). In brackets: requests of that kind sent during the phase,")
  console.log("one after the other. Loop stall: the longest event-loop delay inside the server during the phase.")
} finally {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
}
