// Person search on both engines at 100,000 persons (issue 17): the compiled service on SQLite (FTS5
// trigram table) and on PostgreSQL (pg_trgm GIN index on name_key), same persons, same queries,
// one request at a time and under 8 connections. Starts its own PostgreSQL (Debian's package) in a
// temporary folder. Prints a table of p50/p99 latency (ms) per query.
//   npm run bench:search-engines            (BENCH_PERSONS=100000 by default)
import { execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import pg from "pg"
import { percentile, startServer, TOKEN } from "./lib.mjs"

const PERSONS = Number(process.env.BENCH_PERSONS ?? 100_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40)
const QUERIES = ["an", "zz", "mar", "son", "ander", "maria garcia", "nobody-here"]
const FIRST = ["Maria", "Anna", "John", "Zoe", "Liam", "Noah", "Emma", "Olivia", "Lucas", "Mia", "Jan", "Sofia", "Mateo", "Ava", "Leo", "Ivy"]
const LAST = ["Garcia", "Anderson", "Smith", "Nguyen", "Johnson", "Martin", "Lee", "Brown", "Rossi", "Müller", "Kowalski", "Sato", "Dubois", "Silva"]

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const dir = mkdtempSync(join(tmpdir(), "convene-search-bench-"))
const isRoot = process.getuid?.() === 0

/** A PostgreSQL server of Debian's newest installed version, in `dir`. */
const startPostgres = async () => {
  const root = "/usr/lib/postgresql"
  const bin = readdirSync(root).sort((a, b) => Number(b) - Number(a)).map((v) => join(root, v, "bin")).find((b) => existsSync(join(b, "initdb")))
  const data = join(dir, "pg")
  if (isRoot) {
    const [, , uid, gid] = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:")).split(":")
    chownSync(dir, Number(uid), Number(gid))
  }
  const as = (program, args) => (isRoot ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args])
  execFileSync(...as(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"]), { stdio: "ignore" })
  const port = await freePort()
  const [command, args] = as(join(bin, "postgres"), ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "shared_buffers=128MB"])
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
  await new Promise((resolve, reject) => {
    let out = ""
    const on = (c) => {
      out += c
      if (out.includes("ready to accept connections")) resolve()
    }
    child.stdout.on("data", on)
    child.stderr.on("data", on)
    child.on("exit", () => reject(new Error(out)))
  })
  const admin = new pg.Client(`postgres://postgres@127.0.0.1:${port}/postgres`)
  await admin.connect()
  await admin.query("CREATE DATABASE convene")
  await admin.end()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/convene`,
    stop: () => {
      const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0])
      process.kill(pid, "SIGINT")
      return new Promise((resolve) => child.on("exit", resolve))
    }
  }
}

/** Rows for `persons` of organization 1 (the bootstrap organization). */
const personRows = function*() {
  const at = "2026-01-01T00:00:00.000Z"
  for (let i = 0; i < PERSONS; i++) {
    const first = FIRST[i % FIRST.length]
    const last = LAST[Math.floor(i / FIRST.length) % LAST.length] + (i % 7 === 0 ? "son" : "")
    const email = `p${i}@bench.example`
    yield [`00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, 1, first, last, email, email, `${first} ${last}`.toLowerCase(), at, at]
  }
}
const COLUMNS = "public_id, organization_id, first_name, last_name, email, email_key, name_key, created_at, updated_at"

const seedSqlite = (path) => {
  const db = new Database(path)
  const insert = db.prepare(`INSERT INTO persons (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  db.transaction(() => {
    for (const row of personRows()) insert.run(...row)
  })()
  db.close()
}

const seedPostgres = async (url) => {
  const client = new pg.Client(url)
  await client.connect()
  const rows = [...personRows()]
  for (let i = 0; i < rows.length; i += 5_000) {
    const slice = rows.slice(i, i + 5_000)
    await client.query(
      `INSERT INTO persons (${COLUMNS}) SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(public_id text, organization_id bigint, first_name text, last_name text, email text, email_key text, name_key text, created_at text, updated_at text)`,
      [JSON.stringify(slice.map((r) => Object.fromEntries(COLUMNS.split(", ").map((c, k) => [c, r[k]]))))]
    )
  }
  await client.query("ANALYZE persons")
  await client.end()
}

const env = (extra) => ({
  BOOTSTRAP_ORG_SLUG: "bench",
  BOOTSTRAP_ORG_NAME: "Bench",
  BOOTSTRAP_API_TOKEN: TOKEN,
  PUBLIC_BASE_URL: "http://127.0.0.1",
  RATE_LIMIT_BURST: "1000000",
  RATE_LIMIT_PER_SECOND: "1000000",
  LOG_LEVEL: "Warning",
  ...extra
})

const measure = async (url) => {
  const results = {}
  for (const query of QUERIES) {
    const path = `/person/search?query=${encodeURIComponent(query)}&limit=25`
    const times = []
    let total = 0
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now()
      const response = await fetch(url + path, { headers: { "x-api-key": TOKEN } })
      const body = await response.json()
      times.push(performance.now() - started)
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`)
      total = body.total
    }
    // and 8 at once
    const concurrent = []
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = 0; i < ROUNDS / 4; i++) {
        const started = performance.now()
        const response = await fetch(url + path, { headers: { "x-api-key": TOKEN } })
        await response.arrayBuffer()
        concurrent.push(performance.now() - started)
      }
    }))
    results[query] = { total, p50: percentile(times, 50), p99: percentile(times, 99), c8p99: percentile(concurrent, 99) }
  }
  return results
}

const main = async () => {
  const script = join(process.cwd(), "dist/src/main.js")
  const engines = {}

  // SQLite
  const sqlitePath = join(dir, "convene.db")
  let server = await startServer({ script, env: env({ DATABASE_PATH: sqlitePath }), port: await freePort() })
  await server.stop()
  seedSqlite(sqlitePath)
  server = await startServer({ script, env: env({ DATABASE_PATH: sqlitePath }), port: await freePort() })
  engines.SQLite = await measure(server.url)
  await server.stop()

  // PostgreSQL
  const postgres = await startPostgres()
  try {
    server = await startServer({ script, env: env({ DATABASE_URL: postgres.url, DATABASE_PATH: join(dir, "unused.db") }), port: await freePort() })
    await server.stop()
    await seedPostgres(postgres.url)
    server = await startServer({ script, env: env({ DATABASE_URL: postgres.url, DATABASE_PATH: join(dir, "unused.db") }), port: await freePort() })
    engines.PostgreSQL = await measure(server.url)
    await server.stop()
  } finally {
    await postgres.stop()
  }

  console.log(`\nPerson search at ${PERSONS.toLocaleString("en")} persons, limit 25 (ms; ${ROUNDS} sequential requests, then 8 connections)\n`)
  console.log("| query | matches | SQLite p50 | SQLite p99 | SQLite p99 @8 | PostgreSQL p50 | PostgreSQL p99 | PostgreSQL p99 @8 |")
  console.log("|---|---|---|---|---|---|---|---|")
  for (const query of QUERIES) {
    const s = engines.SQLite[query]
    const p = engines.PostgreSQL[query]
    if (s.total !== p.total) throw new Error(`"${query}": ${s.total} matches on SQLite, ${p.total} on PostgreSQL`)
    console.log(`| \`${query}\` | ${s.total} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.c8p99.toFixed(1)} | ${p.p50.toFixed(1)} | ${p.p99.toFixed(1)} | ${p.c8p99.toFixed(1)} |`)
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
