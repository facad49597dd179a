// One request at a time on each engine (issue 17): the latency and the CPU that one request costs
// the service and, on PostgreSQL, PostgreSQL's processes, with nothing else running. 200 persons
// created through the API, then for each request 3,000 timed GETs after 3 untimed ones (the first
// path twice: its first round warms the service up). CPU from /proc over each round.
//   npm run bench:one-at-a-time              (both engines; PostgreSQL only if installed)
//   BENCH_ENGINES=pg BENCH_ROUNDS=1000 npm run bench:one-at-a-time
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { benchEnv, client, cpuMs, freePort, hasPostgres, sequential, startPostgres, startServer, treeCpuMs } from "./lib.mjs"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3000)
const engines = (process.env.BENCH_ENGINES ?? "sqlite,pg").split(",").filter((e) => e !== "pg" || hasPostgres())
const script = join(process.cwd(), "dist/src/main.js")
const rows = []
for (const engine of engines) {
  const dir = mkdtempSync(join(tmpdir(), "convene-one-"))
  const database = engine === "pg" ? await startPostgres(dir) : undefined
  const port = await freePort()
  const server = await startServer({
    script,
    port,
    // as `npm start` runs it
    nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"],
    env: {
      ...benchEnv,
      DATABASE_PATH: join(dir, "convene.db"),
      ...(database === undefined ? {} : { DATABASE_URL: database.url }),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`
    }
  })
  try {
    const api = client(server.url)
    let personId
    for (let i = 0; i < 200; i++) {
      const created = await api("POST", "/person", { firstName: `Ann${i}`, lastName: "Lee", email: `ann${i}@example.com` })
      personId ??= created.personId
    }
    const paths = [`/person/${personId}`, `/person/${personId}`, "/person/search?query=nobody-here", "/person/search?query=ann1", "/person?limit=50"]
    for (const [i, path] of paths.entries()) {
      const service = cpuMs(server.pid)
      const db = database === undefined ? 0 : treeCpuMs(database.pid)
      const { p50, p99 } = await sequential(server.url, path, ROUNDS)
      const requests = ROUNDS + 3
      rows.push({
        engine,
        request: `GET ${path.replace(personId, ":id")}${i === 0 ? " (warm-up round)" : ""}`,
        p50: p50.toFixed(2),
        p99: p99.toFixed(2),
        service: ((cpuMs(server.pid) - service) / requests).toFixed(3),
        database: database === undefined ? "-" : ((treeCpuMs(database.pid) - db) / requests).toFixed(3)
      })
    }
  } finally {
    await server.stop()
    await database?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
console.log(`\nOne request at a time, ${ROUNDS} rounds each (ms)\n`)
console.log("| engine | request | p50 | p99 | service CPU ms/req | PostgreSQL CPU ms/req |")
console.log("|---|---|---|---|---|---|")
for (const r of rows) console.log(`| ${r.engine} | ${r.request} | ${r.p50} | ${r.p99} | ${r.service} | ${r.database} |`)
