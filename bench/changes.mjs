// `npm run bench:changes`: the change feed on the built server, started as `npm start` runs it.
// 1. What recording a change costs the writes that make them: server CPU per request (user +
//    system, from /proc) of a one-guest status PUT and of a 500-new-guest POST, on this build and,
//    with --before FILE (another build's dist/src/main.js, e.g. a worktree of the commit before the
//    feed), on that one, each on a fresh database with the same data.
// 2. Feed throughput: 100,000 changes made by a contacts import and a guest-list import, then read
//    from the start by one client paging with limit=1000 as fast as it can: changes per second.
// 3. Storage: the feed's table and index in SQLite (dbstat), per million changes.
//
// Options: --server FILE (default dist/src/main.js), --before FILE, --puts N (default 2,000), --batches N (default 30).
import Database from "better-sqlite3"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { client, cpuMs, startServer, TOKEN } from "./lib.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : process.argv[i + 1]
}
const SERVER = resolve(arg("server", join(root, "dist/src/main.js")))
const BEFORE = arg("before", undefined)
const PUTS = Number(arg("puts", 2_000))
const BATCHES = Number(arg("batches", 30))
const CONNECTIONS = 4
const PORT = 3295
const log = (...args) => console.error(...args)
const dir = mkdtempSync(join(tmpdir(), "convene-changes-"))

const start = (script, name) =>
  startServer({
    script,
    nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"],
    port: PORT,
    env: {
      DATABASE_PATH: join(dir, `${name}.db`),
      BOOTSTRAP_ORG_SLUG: "bench",
      BOOTSTRAP_ORG_NAME: "Bench",
      BOOTSTRAP_API_TOKEN: TOKEN,
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
      RATE_LIMIT_BURST: "1000000",
      RATE_LIMIT_PER_SECOND: "1000000",
      BULK_RATE_LIMIT_BURST: "1000000",
      BULK_RATE_LIMIT_PER_MINUTE: "1000000",
      LOG_LEVEL: "Warn"
    }
  })

/** Runs `count` requests made by `make(i)` over `CONNECTIONS` connections; answers server CPU ms per request. */
const cpuPerRequest = async (server, count, make) => {
  const api = client(server.url)
  // warm-up, not measured
  for (let i = 0; i < Math.min(50, count); i++) await make(api, -1 - i)
  const before = cpuMs(server.pid)
  let next = 0
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < count) await make(api, next++)
  }))
  return (cpuMs(server.pid) - before) / count
}

const writeCosts = async (script, name) => {
  const server = await start(script, name)
  try {
    const api = client(server.url)
    const { eventId } = await api("POST", "/event", { name: "Costs", primaryDate: "2031-05-01T18:00:00Z" })
    const guests = []
    for (let b = 0; b < 2; b++) {
      const added = await api("POST", `/event/${eventId}/guestlist`, {
        guests: Array.from({ length: 500 }, (_, i) => ({ email: `seed.${b}.${i}@example.com`, firstName: "Seed", lastName: `${b}-${i}` }))
      })
      guests.push(...added.guests.map((g) => g.personId))
    }
    const statuses = ["Accepted", "Declined", "Maybe"]
    const put = await cpuPerRequest(server, PUTS, (api, i) =>
      api("PUT", `/event/${eventId}/guestlist`, { guests: [{ personId: guests[(i * 7919 + 1_000_000) % guests.length], rsvpStatus: statuses[(i + 3) % 3] }] }))
    let batch = 0
    const post = await cpuPerRequest(server, BATCHES, async (api) => {
      const b = batch++
      const { eventId: target } = await api("POST", "/event", { name: `Batch ${b}`, primaryDate: "2031-05-01T18:00:00Z" })
      return api("POST", `/event/${target}/guestlist`, {
        guests: Array.from({ length: 500 }, (_, i) => ({ email: `batch.${b}.${i}@example.com`, firstName: "Batch", lastName: `${b}-${i}` }))
      })
    })
    return { put, post }
  } finally {
    await server.stop()
  }
}

const csvOf = (rows, from) => ["email,firstName,lastName", ...Array.from({ length: rows }, (_, i) => `feed.${from + i}@example.com,Feed,${from + i}`)].join("\n")

const feed = async () => {
  const server = await start(SERVER, "feed")
  let counted
  try {
    const api = client(server.url)
    const post = (path, body) =>
      fetch(server.url + path, { method: "POST", headers: { "x-api-key": TOKEN, "content-type": "text/csv" }, body }).then(async (r) => {
        if (r.status !== 200) throw new Error(`${path}: ${r.status} ${(await r.text()).slice(0, 200)}`)
      })
    await post("/person/import", csvOf(50_000, 0))
    const { eventId } = await api("POST", "/event", { name: "Feed", primaryDate: "2031-05-01T18:00:00Z" })
    await post(`/event/${eventId}/guestlist/import`, csvOf(50_000, 50_000))
    // the guest import made 50,000 contacts and put them on the list: 150,000 changes in all
    const started = performance.now()
    let after = ""
    counted = 0
    for (;;) {
      const page = await api("GET", `/changes?limit=1000${after === "" ? "" : `&after=${after}`}`)
      counted += page.changes.length
      after = page.nextCursor
      if (!page.hasMore) break
    }
    const seconds = (performance.now() - started) / 1000
    return { changes: counted, perSecond: counted / seconds, seconds }
  } finally {
    await server.stop()
  }
}

const storage = () => {
  const db = new Database(join(dir, "feed.db"), { readonly: true })
  try {
    const { rows } = db.prepare("SELECT count(*) AS rows FROM changes").get()
    const bytes = db.prepare("SELECT sum(pgsize) AS bytes FROM dbstat WHERE name IN ('changes', 'changes_feed')").get().bytes
    return { rows, bytes, perMillionMb: (bytes / rows) * 1e6 / 1024 / 1024 }
  } finally {
    db.close()
  }
}

try {
  const rows = []
  log(`write costs: ${PUTS} one-guest PUTs and ${BATCHES} 500-guest POSTs over ${CONNECTIONS} connections`)
  const after = await writeCosts(SERVER, "after")
  const before = BEFORE === undefined ? undefined : await writeCosts(resolve(BEFORE), "before")
  const fmt = (n) => n.toFixed(3)
  rows.push(["PUT guestlist, one status (ms CPU/req)", before === undefined ? "-" : fmt(before.put), fmt(after.put)])
  rows.push(["POST guestlist, 500 new guests (ms CPU/req)", before === undefined ? "-" : fmt(before.post), fmt(after.post)])
  log("feed: 150,000 changes from a 50,000-row contacts import and a 50,000-row guest import, read at limit=1000")
  const read = await feed()
  const size = storage()
  console.log("\n| measure | before | this build |\n|---|---|---|")
  for (const [name, b, a] of rows) console.log(`| ${name} | ${b} | ${a} |`)
  console.log(`\n| feed | value |\n|---|---|`)
  console.log(`| changes read | ${read.changes} in ${read.seconds.toFixed(2)} s |`)
  console.log(`| throughput | ${Math.round(read.perSecond).toLocaleString("en-US")} changes/s |`)
  console.log(`| storage (table + index) | ${(size.bytes / 1024 / 1024).toFixed(1)} MiB for ${size.rows} changes: ${size.perMillionMb.toFixed(0)} MiB per million |`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
