// Person search on both engines at 100,000 persons (issue 17): the compiled service on SQLite (FTS5
// trigram table) and on PostgreSQL (pg_trgm GIN index on name_key), same persons, same queries,
// one request at a time and under 8 connections. Starts its own PostgreSQL (Debian's package) in a
// temporary folder. PostgreSQL is measured twice: right after the import (analyzed, not yet
// vacuumed: no visibility map, hint bits unset) and after `VACUUM ANALYZE`, the state autovacuum
// brings a table to. Each query's total and first page must be the same on both engines. Prints a
// table of p50/p99 latency (ms) per query.
//   npm run bench:search-engines            (BENCH_PERSONS=100000 by default)
//
// BENCH_LARGE=1: SQLite alone at 1,000,000 persons (BENCH_PERSONS to change), the service started
// as `npm start` runs it, one request at a time: 3 warm-up requests per query, then BENCH_ROUNDS
// (40) timed ones, at the API's default limit (50). The persons are bench/large-seed.mjs's (one
// organization; names of bench/seed.mjs), seeded into BENCH_DB (kept, and reused when the file
// exists: seeding takes a few minutes) or else into a temporary file. Each query's total is
// checked against a plain count of the file's names containing it. Also times the directory's
// first page and its page at 90% (`GET /person?skip=900000&limit=100`).
//   BENCH_LARGE=1 BENCH_DB=/tmp/search-1m.db npm run bench:search-engines
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import pg from "pg"
import { seedLarge } from "./large-seed.mjs"
import { benchEnv, freePort, percentile, sequential as sequentialTimes, startPostgres, startServer, TOKEN } from "./lib.mjs"

const LARGE = process.env.BENCH_LARGE === "1"
const PERSONS = Number(process.env.BENCH_PERSONS ?? (LARGE ? 1_000_000 : 100_000))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40)
const QUERIES = ["an", "zz", "mar", "son", "ander", "maria garcia", "nobody-here"]
const FIRST = ["Maria", "Anna", "John", "Zoe", "Liam", "Noah", "Emma", "Olivia", "Lucas", "Mia", "Jan", "Sofia", "Mateo", "Ava", "Leo", "Ivy"]
const LAST = ["Garcia", "Anderson", "Smith", "Nguyen", "Johnson", "Martin", "Lee", "Brown", "Rossi", "Müller", "Kowalski", "Sato", "Dubois", "Silva"]

const dir = mkdtempSync(join(tmpdir(), "convene-search-bench-"))

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
  ...benchEnv,
  PUBLIC_BASE_URL: "http://127.0.0.1",
  LOG_LEVEL: "Warn",
  ...extra
})

const measure = async (url) => {
  const results = {}
  for (const query of QUERIES) {
    const path = `/person/search?query=${encodeURIComponent(query)}&limit=25`
    const times = []
    let total = 0
    let page = ""
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now()
      const response = await fetch(url + path, { headers: { "x-api-key": TOKEN } })
      const body = await response.json()
      times.push(performance.now() - started)
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`)
      total = body.total
      page = body.persons.map((person) => person.personId).join()
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
    results[query] = { total, page, p50: percentile(times, 50), p99: percentile(times, 99), c8p99: percentile(concurrent, 99) }
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
  const postgres = await startPostgres(dir)
  try {
    server = await startServer({ script, env: env({ DATABASE_URL: postgres.url, DATABASE_PATH: join(dir, "unused.db") }), port: await freePort() })
    await server.stop()
    await seedPostgres(postgres.url)
    server = await startServer({ script, env: env({ DATABASE_URL: postgres.url, DATABASE_PATH: join(dir, "unused.db") }), port: await freePort() })
    engines.PostgreSQL = await measure(server.url)
    const client = new pg.Client(postgres.url)
    await client.connect()
    await client.query("VACUUM ANALYZE persons")
    await client.end()
    engines.vacuumed = await measure(server.url)
    await server.stop()
  } finally {
    await postgres.stop()
  }

  console.log(`\nPerson search at ${PERSONS.toLocaleString("en")} persons, limit 25 (ms; ${ROUNDS} sequential requests, then 8 connections)\n`)
  console.log("| query | matches | SQLite p50 | SQLite p99 | SQLite p99 @8 | PostgreSQL p50 | PostgreSQL p99 | PostgreSQL p99 @8 | vacuumed p50 | vacuumed p99 | vacuumed p99 @8 |")
  console.log("|---|---|---|---|---|---|---|---|---|---|---|")
  const cells = ({ c8p99, p50, p99 }) => `${p50.toFixed(1)} | ${p99.toFixed(1)} | ${c8p99.toFixed(1)}`
  for (const query of QUERIES) {
    const s = engines.SQLite[query]
    for (const p of [engines.PostgreSQL[query], engines.vacuumed[query]]) {
      if (s.total !== p.total) throw new Error(`"${query}": ${s.total} matches on SQLite, ${p.total} on PostgreSQL`)
      if (s.page !== p.page) throw new Error(`"${query}": another first page on PostgreSQL`)
    }
    console.log(`| \`${query}\` | ${s.total} | ${cells(s)} | ${cells(engines.PostgreSQL[query])} | ${cells(engines.vacuumed[query])} |`)
  }
}

const sequential = (url, path) => sequentialTimes(url, path, ROUNDS)

const LARGE_QUERIES = ["a", "e", "x", "an", "zz", "mar", "son", "smith", "ander", "maria garcia", "nobody-here"]

const large = async () => {
  const script = join(process.cwd(), "dist/src/main.js")
  const path = process.env.BENCH_DB ?? join(dir, "convene.db")
  const environment = env({})
  if (existsSync(path)) {
    console.error(`reusing ${path}`)
  } else {
    console.error(`seeding ${PERSONS.toLocaleString("en")} persons into ${path}...`)
    const started = performance.now()
    await seedLarge({ server: script, env: environment, port: await freePort(), databasePath: path, persons: PERSONS, guests: 0, ticketed: false, log: console.error })
    console.error(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  }
  const server = await startServer({
    script,
    env: { ...environment, DATABASE_PATH: path },
    port: await freePort(),
    nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"]
  })
  const results = {}
  try {
    for (const query of LARGE_QUERIES) results[query] = await sequential(server.url, `/person/search?query=${encodeURIComponent(query)}`)
    results.first = await sequential(server.url, "/person?limit=100")
    results.deep = await sequential(server.url, `/person?skip=${Math.floor(PERSONS * 0.9)}&limit=100`)
  } finally {
    await server.stop()
  }
  const db = new Database(path, { readonly: true })
  const organization = db.prepare("SELECT id FROM organizations WHERE slug = ?").pluck().get(benchEnv.BOOTSTRAP_ORG_SLUG)
  const plain = db.prepare("SELECT count(*) FROM persons WHERE organization_id = ? AND archived_at IS NULL AND instr(name_key, ?) > 0").pluck()
  console.log(`\nPerson search on SQLite at ${PERSONS.toLocaleString("en")} persons, API default limit (ms; ${ROUNDS} requests one at a time after 3 untimed)\n`)
  console.log("| query | matches | p50 | p99 |")
  console.log("|---|---|---|---|")
  for (const query of LARGE_QUERIES) {
    const { body, p50, p99 } = results[query]
    const expected = plain.get(organization, query.toLowerCase())
    if (body.total !== expected) throw new Error(`"${query}": total ${body.total}, but ${expected} names contain it`)
    console.log(`| \`${query}\` | ${body.total} | ${p50.toFixed(1)} | ${p99.toFixed(1)} |`)
  }
  db.close()
  const { first, deep } = results
  console.log(`| \`GET /person?limit=100\` | | ${first.p50.toFixed(1)} | ${first.p99.toFixed(1)} |`)
  console.log(`| \`GET /person?skip=${Math.floor(PERSONS * 0.9)}&limit=100\` | | ${deep.p50.toFixed(1)} | ${deep.p99.toFixed(1)} |`)
  console.log(`\nskip at 90% against the first page (p50): ${(deep.p50 / first.p50).toFixed(1)}x`)
}

;(LARGE ? large() : main()).then(
  () => rmSync(dir, { recursive: true, force: true }),
  (error) => {
    console.error(error)
    rmSync(dir, { recursive: true, force: true })
    process.exit(1)
  }
)
