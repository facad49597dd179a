// `node bench/profile-sql.mjs <seeded.db> [requests]`: the SQL statements one request of each hot
// path runs, how often and how long each takes inside better-sqlite3 (fsync of a commit
// included), and their query plans. The seeded database and its .json come from
// bench/profile.mjs (bench/profiles/seeded.db).
//
// It runs a throwaway copy of PROFILE_ROOT's dist/ (default: this checkout) whose Db/Sqlite.js
// wraps `db.prepare` to time every statement; nothing of the tree itself changes.
import autocannon from "autocannon"
import Database from "better-sqlite3"
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { startServer, TOKEN } from "./lib.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const [seededArg, countArg = "3000"] = process.argv.slice(2)
const seeded = resolve(seededArg ?? join(here, "profiles/seeded.db"))
const count = Number(countArg)
const root = resolve(process.env.PROFILE_ROOT ?? join(here, ".."))
const data = JSON.parse(readFileSync(`${seeded}.json`, "utf8"))

const dir = mkdtempSync(join(tmpdir(), "convene-sql-"))
cpSync(join(root, "dist"), join(dir, "dist"), { recursive: true })
copyFileSync(join(root, "package.json"), join(dir, "package.json"))
symlinkSync(join(root, "node_modules"), join(dir, "node_modules"))
const sqlite = join(dir, "dist/src/Db/Sqlite.js")
const opened = "            const db = new Database(options.filename);\n"
const source = readFileSync(sqlite, "utf8")
if (!source.includes(opened)) throw new Error("Db/Sqlite.js changed: update the patch")
writeFileSync(sqlite, `import { writeFileSync as __write } from "node:fs";\n` + source.replace(opened, `${opened}
            {
                const stats = new Map();
                const prepare = db.prepare.bind(db);
                db.prepare = (text) => {
                    const statement = prepare(text);
                    for (const method of ["all", "run", "get", "iterate"]) {
                        const f = statement[method].bind(statement);
                        statement[method] = (...args) => {
                            const t0 = process.hrtime.bigint();
                            try { return f(...args); } finally {
                                const e = stats.get(text) ?? { count: 0, ns: 0n };
                                e.count++; e.ns += process.hrtime.bigint() - t0; stats.set(text, e);
                            }
                        };
                    }
                    return statement;
                };
                process.on("SIGUSR2", () => __write(process.env.TRACE_SQL, JSON.stringify([...stats].map(([sql, e]) => ({ sql, count: e.count, ms: Number(e.ns) / 1e6 })))));
            }
`))

const trace = join(dir, "trace.json")
const STATUSES = ["Accepted", "Declined", "Maybe"]
let n = 0
const scenarios = {
  person: () => ({ method: "GET", path: `/person/${data.personIds[(n += 7919) % data.personIds.length]}` }),
  status: () => {
    n += 13
    return {
      method: "PUT",
      path: `/event/${data.smallEvent.eventId}/guestlist`,
      headers: { "x-api-key": TOKEN, "content-type": "application/json" },
      body: JSON.stringify({ guests: [{ personId: data.smallEvent.guests[n % data.smallEvent.guests.length], rsvpStatus: STATUSES[n % 3] }] })
    }
  }
}
const fire = (url, request, amount) =>
  new Promise((ok, fail) =>
    autocannon({ url, connections: 8, amount, headers: { "x-api-key": TOKEN }, requests: [{ setupRequest: (r) => ({ ...r, ...request() }) }] }, (e, r) => (e ? fail(e) : ok(r))))
const dump = async (pid) => {
  process.kill(pid, "SIGUSR2")
  await new Promise((r) => setTimeout(r, 300))
  return new Map(JSON.parse(readFileSync(trace, "utf8")).map((e) => [e.sql, e]))
}

const report = {}
for (const [name, request] of Object.entries(scenarios)) {
  const database = join(dir, `${name}.db`)
  copyFileSync(seeded, database)
  const server = await startServer({
    script: join(dir, "dist/src/main.js"),
    cwd: dir,
    port: 3284,
    nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"],
    env: {
      DATABASE_PATH: database,
      BOOTSTRAP_ORG_SLUG: "bench",
      BOOTSTRAP_API_TOKEN: TOKEN,
      RATE_LIMIT_BURST: "1000000",
      RATE_LIMIT_PER_SECOND: "1000000",
      LOG_LEVEL: "Warn",
      TRACE_SQL: trace
    }
  })
  await fire(server.url, request, 500) // warm-up
  const before = await dump(server.pid)
  const result = await fire(server.url, request, count)
  const after = await dump(server.pid)
  await server.stop()
  const requests = result.requests.total
  const rows = [...after.values()].map((e) => {
    const b = before.get(e.sql) ?? { count: 0, ms: 0 }
    return { sql: e.sql.replace(/\s+/g, " ").trim(), perRequest: (e.count - b.count) / requests, usPerRequest: (1000 * (e.ms - b.ms)) / requests, usEach: (1000 * (e.ms - b.ms)) / Math.max(1, e.count - b.count) }
  }).filter((r) => r.perRequest > 0).sort((a, b) => b.usPerRequest - a.usPerRequest)
  report[name] = { requests, errors: result.non2xx + result.errors, statementsPerRequest: rows.reduce((s, r) => s + r.perRequest, 0), sqlUsPerRequest: rows.reduce((s, r) => s + r.usPerRequest, 0), statements: rows }
}

// query plans on the seeded database (statements with parameters get NULL for each)
const db = new Database(seeded, { readonly: true })
for (const scenario of Object.values(report)) {
  for (const row of scenario.statements) {
    if (/^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/i.test(row.sql)) continue
    try {
      const statement = db.prepare(`EXPLAIN QUERY PLAN ${row.sql}`)
      const params = Array.from({ length: (row.sql.match(/\?/g) ?? []).length }, () => null)
      row.plan = statement.all(...params).map((p) => `${"  ".repeat(Math.max(0, p.parent === 0 ? 0 : 1))}${p.detail}`)
    } catch (error) {
      row.plan = [`(${error.message})`]
    }
  }
}
db.close()
console.log(JSON.stringify(report, null, 2))
rmSync(dir, { recursive: true, force: true })
