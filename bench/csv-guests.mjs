// `npm run bench:csv-guests`: guest-list CSV import and export on the built server, started as
// `npm start` runs it (--max-old-space-size=256 --max-semi-space-size=8), over a fresh database.
// Phases, each on a fresh server process: import 50,000 new guests (new contacts too); export them;
// import 50,000 more (the list holds 100,000); export all 100,000; import the first file again
// (every row names a guest on the list and sets its RSVP status); import the first file into a
// second event with a GuestList and an EventPerson webhook registered (records variant), the phase
// lasting until the GuestList notification (every guest of the import) has been delivered.
// For each: rows per second, the server's RSS when idle and at its peak, the longest event-loop
// stall inside the server (perf_hooks.monitorEventLoopDelay, loaded with --import), and the slowest
// of other requests sent meanwhile, one after the other: GET /healthz every 10 ms, a guest search
// on the imported list and a guest added to a third event (a write, which waits for the import's
// transaction).
//
// Options: --server FILE (another build's dist/src/main.js), --rows N (rows per import file, default 50,000).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { client, peakRssMb, rssMb, sleep, startReceiver, startServer, TOKEN } from "./lib.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : process.argv[i + 1]
}
const SERVER = resolve(arg("server", join(root, "dist/src/main.js")))
const ROWS = Number(arg("rows", 50_000))
const PORT = 3293
const log = (...args) => console.error(...args)

const dir = mkdtempSync(join(tmpdir(), "convene-csv-guests-"))
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

const STATUSES = ["Invited", "Accepted", "Declined", "Maybe", "Waitlisted"]
const csvFile = (from, rows) => {
  const lines = ["email,firstName,lastName,company,phone,rsvpStatus,dietaryRestrictions,column:Table"]
  for (let i = from; i < from + rows; i++) {
    lines.push(`bench.${i}@example.com,First${i},Last${i},${i % 3 === 0 ? "Acme Inc" : ""},+1 555 ${String(i).padStart(7, "0")},` +
      `${STATUSES[i % 5]},${i % 7 === 0 ? "vegan; no nuts" : ""},${i % 10}`)
  }
  return `${lines.join("\r\n")}\r\n`
}

const importFile = async (url, eventId, body) => {
  const response = await fetch(`${url}/event/${eventId}/guestlist/import`, {
    method: "POST",
    headers: { "x-api-key": TOKEN, "content-type": "text/csv" },
    body
  })
  const report = await response.json()
  if (response.status !== 200) throw new Error(`import: ${response.status} ${JSON.stringify(report).slice(0, 300)}`)
  return report
}

/** Reads the export to its end; counts its lines (a quoted line break would count too: the bench's files have none). */
const exportAll = (url, eventId) =>
  new Promise((done, fail) => {
    let lines = 0
    let bytes = 0
    const req = request(`${url}/event/${eventId}/guestlist/export`, { headers: { "x-api-key": TOKEN }, agent: false }, (res) => {
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

const phase = async (server, ids, name, run) => {
  await stall(server.pid)
  const stopMemory = watchMemory(server.pid)
  const healthz = loop(() => fetch(`${server.url}/healthz`), 10)
  const reads = loop(() => fetch(`${server.url}/event/${ids.list}/guestlist/search?personIds=${ids.probe}`, { headers: { "x-api-key": TOKEN } }), 0)
  let n = 0
  const writes = loop(() =>
    fetch(`${server.url}/event/${ids.side}/guestlist`, {
      method: "POST",
      headers: { "x-api-key": TOKEN, "content-type": "application/json" },
      body: JSON.stringify({ guests: [{ firstName: "During", lastName: name, email: `during.${name.replace(/\W/g, "")}.${++n}@example.com` }] })
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
  WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
  LOG_LEVEL: "Warn"
})

/** A fresh server process on the database (so each phase's peak RSS is its own), warmed up on an event of its own. */
let warmups = 0
const start = async (databasePath) => {
  const server = await startServer({
    script: SERVER,
    port: PORT,
    nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8", "--import", `data:text/javascript,${encodeURIComponent(probe)}`],
    env: env(databasePath)
  })
  // the first requests run at half speed while the JIT warms up
  const api = client(server.url)
  const { eventId } = await api("POST", "/event", { name: `Warm-up ${warmups}`, primaryDate: "2031-01-01T18:00:00Z", customColumns: ["Table"] })
  await importFile(server.url, eventId, csvFile(10_000_000 + 2_000 * warmups++, 2_000))
  await exportAll(server.url, eventId)
  return server
}

let server
const receiver = await startReceiver()
try {
  const databasePath = join(dir, "csv-guests.db")
  server = await start(databasePath)
  const api = client(server.url)
  const event = (name) => api("POST", "/event", { name, primaryDate: "2031-06-01T18:00:00Z", customColumns: ["Table"] })
  const list = (await event("Bench list")).eventId
  const hooked = (await event("Bench hooked")).eventId
  const side = (await event("Bench side")).eventId
  const { guests: [probeGuest] } = await api("POST", `/event/${list}/guestlist`, { guests: [{ firstName: "Probe", lastName: "Guest", email: "probe@example.com" }] })
  const ids = { list, side, probe: probeGuest.personId }

  const first = csvFile(0, ROWS)
  const second = csvFile(ROWS, ROWS)
  log(`files: ${(Buffer.byteLength(first) / 1048576).toFixed(1)} MiB of ${ROWS} rows each`)
  const results = []
  const expect = (report, field, n) => {
    if (report[field] !== n || report.errors.length > 0) throw new Error(`unexpected report ${JSON.stringify(report).slice(0, 300)}`)
    return report.rows
  }
  const run = async (name, work, before) => {
    await server.stop()
    server = await start(databasePath)
    if (before !== undefined) await before()
    const idle = rssMb(server.pid)
    results.push({ ...(await phase(server, ids, name, work)), idle })
  }
  await run(`import ${ROWS} new`, async () => expect(await importFile(server.url, list, first), "created", ROWS))
  await run(`export ${ROWS}`, async () => (await exportAll(server.url, list)).rows)
  await run(`import ${ROWS} more`, async () => expect(await importFile(server.url, list, second), "created", ROWS))
  await run(`export ${2 * ROWS}`, async () => (await exportAll(server.url, list)).rows)
  await run(`import ${ROWS} listed`, async () => expect(await importFile(server.url, list, first), "updated", ROWS))
  await run(
    `import ${ROWS} + webhooks`,
    async () => {
      const rows = expect(await importFile(server.url, hooked, first), "added", ROWS)
      // until the one GuestList notification (every guest of the import) has arrived
      const until = performance.now() + 120_000
      while (!receiver.arrivals.some((a) => a.path === "/list") && performance.now() < until) await sleep(20)
      if (!receiver.arrivals.some((a) => a.path === "/list")) throw new Error("no GuestList notification in 120 s")
      return rows
    },
    async () => {
      await api("POST", "/webhook", { webhook: receiver.url("/list"), type: "GuestList" })
      await api("POST", "/webhook", { webhook: receiver.url("/person"), type: "EventPerson" })
    }
  )
  const lists = receiver.arrivals.filter((a) => a.path === "/list").length
  const persons = receiver.arrivals.filter((a) => a.path === "/person").length

  const pad = (s, n) => String(s).padEnd(n)
  const num = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a")
  console.log(`\nguest-list CSV (${SERVER.replace(root + "/", "")}, node ${process.version})\n`)
  console.log(
    `${pad("phase", 24)}${pad("rows", 9)}${pad("s", 7)}${pad("rows/s", 9)}${pad("RSS idle/peak MB", 18)}${pad("loop stall ms", 15)}` +
      `${pad("healthz max ms", 16)}${pad("search max ms", 17)}${pad("add guest max ms", 18)}`
  )
  for (const r of results) {
    console.log(
      `${pad(r.name, 24)}${pad(r.rows, 9)}${pad(num(r.seconds, 2), 7)}${pad(num(r.rows / r.seconds), 9)}${pad(`${num(r.idle)} / ${num(r.peak)}`, 18)}` +
        `${pad(num(r.stallMs), 15)}${pad(num(r.healthz.worst), 16)}${pad(`${num(r.reads.worst)} (${r.reads.count})`, 17)}` +
        `${pad(`${num(r.writes.worst)} (${r.writes.count})`, 18)}`
    )
    const errors = r.healthz.errors + r.reads.errors + r.writes.errors
    if (errors > 0) console.log(`  ${errors} other requests failed during ${r.name}`)
  }
  console.log("\nEach phase on a fresh server process (warmed up by a 2,000-row import and an export). rows: rows imported,")
  console.log("or lines exported. In brackets: requests of that kind sent during the phase, one after the other. Loop stall:")
  console.log(`the longest event-loop delay inside the server during the phase. Webhooks: ${lists} GuestList and ${persons} EventPerson`)
  console.log("notifications delivered by the end of the last phase.")
} finally {
  await server?.stop()
  await receiver.close()
  rmSync(dir, { recursive: true, force: true })
}
