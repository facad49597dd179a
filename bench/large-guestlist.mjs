// `npm run bench:large`: one guest list far larger than the heap. Seeds 1,000,000 persons and an
// event of 500,000 guests straight into SQLite (bench/large-seed.mjs), starts the built server as
// `npm start` runs it (--max-old-space-size=256 --max-semi-space-size=8) and measures, per phase:
// the time and bytes of the answer, the server's peak RSS, and the latency of other requests
// (GET /healthz and GET /person/:id, one after the other) while the list is being read.
//
// Options: --persons N --guests N (defaults 1,000,000 / 500,000), --plain (event without
// ticketing), --db FILE (reuse a database seeded before; it is created when missing and kept),
// --server FILE (another build's dist/src/main.js, e.g. the code before streaming),
// --slow-seconds N (how long the two slow clients read, default 20).
// The code before streaming, for comparison: `git archive <commit> | tar -x -C /tmp/old`, link
// node_modules there, `npx tsc -p tsconfig.build.json` in it, then pass
// `--server /tmp/old/dist/src/main.js --db <the same file>`.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { cpuMs, peakRssMb, percentile, rssMb, sleep, startServer, TOKEN } from "./lib.mjs"
import { seedLarge } from "./large-seed.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : process.argv[i + 1]
}
const PERSONS = Number(arg("persons", 1_000_000))
const GUESTS = Number(arg("guests", 500_000))
const TICKETED = !process.argv.includes("--plain")
const SLOW_SECONDS = Number(arg("slow-seconds", 20))
const SLOW_RATE = 2 * 1024 * 1024 // bytes per second per slow client
const SERVER = resolve(arg("server", join(root, "dist/src/main.js")))
const PORT = 3291
const log = (...args) => console.error(...args)

const dir = mkdtempSync(join(tmpdir(), "convene-large-"))
const databasePath = resolve(arg("db", join(dir, "large.db")))
const env = {
  BOOTSTRAP_ORG_SLUG: "bench",
  BOOTSTRAP_ORG_NAME: "Bench",
  BOOTSTRAP_API_TOKEN: TOKEN,
  PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
  RATE_LIMIT_BURST: "1000000",
  RATE_LIMIT_PER_SECOND: "1000000",
  LOG_LEVEL: "Warn"
}

/** Resets the kernel's peak-RSS mark of a process (Linux: "5" to clear_refs); false if refused. */
const resetPeak = (pid) => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5")
    return true
  } catch {
    return false
  }
}

/** Samples RSS every 20 ms until stopped; the peak is the larger of the samples and VmHWM. */
const watchMemory = (pid) => {
  const hwm = resetPeak(pid)
  let peak = 0
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid))
    } catch {}
  }, 20)
  return () => {
    clearInterval(timer)
    try {
      if (hwm) peak = Math.max(peak, peakRssMb(pid))
    } catch {}
    return peak
  }
}

/** Other requests, one after the other, until stopped: their latencies and failures. */
const probe = (url, personId) => {
  const latencies = []
  let errors = 0
  let running = true
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const path = i % 2 === 0 ? "/healthz" : `/person/${personId}`
      const t0 = performance.now()
      try {
        const r = await fetch(url + path, { headers: { "x-api-key": TOKEN } })
        await r.arrayBuffer()
        if (r.status !== 200) errors++
      } catch {
        errors++
      }
      latencies.push(performance.now() - t0)
      await sleep(10)
    }
  })()
  return async () => {
    running = false
    await loop
    return { latencies, errors }
  }
}

const MARK = Buffer.from('{"personId":"')

/**
 * Reads the guest list; `rate` (bytes/s) throttles by pausing the socket, `seconds` stops early.
 * Counts the guests by their opening marker, checks the document's first and last bytes.
 */
const readList = (url, eventId, { rate, seconds } = {}) =>
  new Promise((done) => {
    const started = performance.now()
    let bytes = 0
    let guests = 0
    let head = Buffer.alloc(0)
    let tail = Buffer.alloc(0)
    let settled = false
    const finish = (outcome) => {
      if (settled) return
      settled = true
      done(result(outcome))
    }
    const result = (outcome) => ({ outcome, bytes, guests, seconds: (performance.now() - started) / 1000, head: head.toString(), tail: tail.toString() })
    const req = request(`${url}/event/${eventId}/guestlist`, { headers: { "x-api-key": TOKEN }, agent: false }, (res) => {
      if (res.statusCode !== 200) finish(`status ${res.statusCode}`)
      let stopAt
      if (seconds !== undefined) {
        stopAt = setTimeout(() => {
          finish("stopped by the client")
          res.destroy()
        }, seconds * 1000)
      }
      res.on("data", (chunk) => {
        // the marker may straddle two chunks: search the previous chunk's last bytes with this one
        const window = Buffer.concat([tail.subarray(Math.max(0, tail.length - MARK.length + 1)), chunk])
        for (let at = window.indexOf(MARK); at !== -1; at = window.indexOf(MARK, at + 1)) guests++
        if (head.length < 16) head = Buffer.concat([head, chunk]).subarray(0, 16)
        tail = chunk.length >= 16 ? chunk.subarray(chunk.length - 16) : Buffer.concat([tail, chunk]).subarray(-16)
        bytes += chunk.length
        if (rate !== undefined) {
          const ahead = bytes / rate - (performance.now() - started) / 1000
          if (ahead > 0) {
            res.pause()
            setTimeout(() => res.resume(), ahead * 1000)
          }
        }
      })
      res.on("end", () => {
        clearTimeout(stopAt)
        finish("complete")
      })
      res.on("error", (e) => {
        clearTimeout(stopAt)
        finish(`failed: ${e.message}`)
      })
      res.on("aborted", () => finish("aborted by the server"))
    })
    req.on("error", (e) => finish(`failed: ${e.message}`))
    req.end()
  })

const alive = async (url) => {
  try {
    return (await fetch(url + "/healthz")).status === 200
  } catch {
    return false
  }
}

const phase = async (server, name, personId, run) => {
  const stopMemory = watchMemory(server.pid)
  const stopProbe = probe(server.url, personId)
  const started = performance.now()
  const cpuBefore = cpuMs(server.pid)
  const reads = await run()
  const seconds = (performance.now() - started) / 1000
  const cpu = (cpuMs(server.pid) - cpuBefore) / 1000
  const { errors, latencies } = await stopProbe()
  const peak = stopMemory()
  const up = await alive(server.url)
  return { name, seconds, cpu, reads, peak, latencies, errors, up }
}

let server
try {
  let seeded
  if (existsSync(databasePath)) {
    const Database = (await import("better-sqlite3")).default
    const db = new Database(databasePath, { readonly: true })
    const event = db.prepare("SELECT public_id FROM events WHERE name = 'Large event'").get()
    const person = db.prepare("SELECT public_id FROM persons ORDER BY id LIMIT 1 OFFSET ?").get(Math.floor(PERSONS / 2))
    const counts = db.prepare(`SELECT (SELECT count(*) FROM persons) AS persons,
        (SELECT count(*) FROM event_guests) AS guests`).get()
    db.close()
    log(`reusing ${databasePath}: ${counts.persons} persons, ${counts.guests} guests`)
    seeded = { eventId: event.public_id, personId: person.public_id }
  } else {
    log(`seeding ${PERSONS} persons and an event of ${GUESTS} guests (${TICKETED ? "ticketed" : "no ticketing"}) into ${databasePath}...`)
    const t0 = performance.now()
    seeded = await seedLarge({
      server: SERVER,
      env,
      port: PORT,
      databasePath,
      persons: PERSONS,
      guests: GUESTS,
      ticketed: TICKETED,
      log
    })
    log(`seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  }

  server = await startServer({ script: SERVER, env: { ...env, DATABASE_PATH: databasePath }, port: PORT, nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"] })
  log(`server ${SERVER} ready in ${server.readyMs.toFixed(0)} ms`)
  for (let i = 0; i < 200; i++) await fetch(`${server.url}/person/${seeded.personId}`, { headers: { "x-api-key": TOKEN } }).then((r) => r.arrayBuffer())

  const results = []
  results.push(await phase(server, "idle (probes only, 3 s)", seeded.personId, async () => {
    await sleep(3000)
    return []
  }))
  results.push(await phase(server, "one full read", seeded.personId, async () => [await readList(server.url, seeded.eventId)]))
  if (results.at(-1).up) {
    results.push(await phase(server, `two slow clients (${SLOW_RATE / 1024 / 1024} MB/s each, ${SLOW_SECONDS} s)`, seeded.personId, () =>
      Promise.all([0, 1].map(() => readList(server.url, seeded.eventId, { rate: SLOW_RATE, seconds: SLOW_SECONDS })))))
  }
  if (results.at(-1).up) {
    results.push(await phase(server, "two full reads at once", seeded.personId, () =>
      Promise.all([0, 1].map(() => readList(server.url, seeded.eventId)))))
  }

  const mb = (b) => (b / 1024 / 1024).toFixed(1)
  console.log(`\nserver: ${SERVER}\n${PERSONS} persons, ${GUESTS} guests${TICKETED ? ", ticketed (payment fields shown)" : ""}\n`)
  console.log("| phase | wall s | server CPU s | per read: outcome, s, MB, guests, JSON ends | server peak RSS MB | probes p50 / p99 / max ms (n) | probe errors | server up after |")
  console.log("|---|---|---|---|---|---|---|---|")
  for (const r of results) {
    const reads = r.reads.map((x) =>
      `${x.outcome}, ${x.seconds.toFixed(1)} s, ${mb(x.bytes)} MB, ${x.guests}, ${JSON.stringify(x.head.slice(0, 11))}…${JSON.stringify(x.tail.slice(-4))}`
    ).join("; ") || "–"
    const l = r.latencies
    const lat = l.length === 0 ? "–" : `${percentile(l, 50).toFixed(1)} / ${percentile(l, 99).toFixed(1)} / ${Math.max(...l).toFixed(1)} (${l.length})`
    console.log(`| ${r.name} | ${r.seconds.toFixed(1)} | ${r.cpu.toFixed(1)} | ${reads} | ${r.peak.toFixed(0)} | ${lat} | ${r.errors} | ${r.up ? "yes" : "**no**"} |`)
  }
  const peak = Math.max(...results.map((r) => r.peak))
  console.log(`\nserver peak RSS over all phases: ${peak.toFixed(0)} MB (target: under 200 MB)`)
  if (!results.at(-1).up) {
    const output = server.output()
    const fatal = /FATAL ERROR[^\n]*/.exec(output)?.[0] ?? output.trim().split("\n").slice(-3).join("\n")
    console.log(`the server died: ${fatal}`)
  }
} finally {
  if (server !== undefined) await server.stop()
  if (arg("db", undefined) === undefined) rmSync(dir, { recursive: true, force: true })
}
