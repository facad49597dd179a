// `node bench/profile.mjs <scenario> [seconds]`: a CPU profile of Convene under one load, for
// finding where the time goes. Writes bench/profiles/*.cpuprofile and prints the top functions.
import autocannon from "autocannon"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { client, startServer, TOKEN } from "./lib.mjs"
import { seed } from "./seed.mjs"

const [scenario = "person", seconds = "5"] = process.argv.slice(2)
const dir = mkdtempSync(join(tmpdir(), "convene-profile-"))
const profiles = join(process.cwd(), "bench/profiles")
mkdirSync(profiles, { recursive: true })
const target = {
  script: "dist/src/main.js",
  port: 3283,
  env: {
    DATABASE_PATH: join(dir, "db.sqlite"),
    BOOTSTRAP_ORG_SLUG: "bench",
    BOOTSTRAP_API_TOKEN: TOKEN,
    RATE_LIMIT_BURST: "1000000",
    RATE_LIMIT_PER_SECOND: "1000000",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "Info"
  }
}
// seed without the profiler, then profile a fresh process on the seeded database
const seeding = await startServer(target)
const data = await seed(seeding.url, { persons: scenario === "person" || scenario === "guestlist" || scenario === "search" ? 10_000 : 500 })
await seeding.stop()
const server = await startServer({ ...target, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profiles}`] })
const paths = {
  person: () => `/person/${data.personIds[Math.floor(Math.random() * data.personIds.length)]}`,
  guestlist: () => `/event/${data.largeEvent.eventId}/guestlist`,
  search: () => `/person/search?query=mar`,
  fields: () => "/custom-field",
  health: () => "/healthz"
}
await new Promise((resolve) => {
  const instance = autocannon({
    url: server.url,
    connections: 8,
    duration: Number(seconds),
    headers: { "x-api-key": TOKEN },
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[scenario]() }) }]
  }, resolve)
  autocannon.track(instance, { renderProgressBar: false })
})
await server.stop()
rmSync(dir, { recursive: true, force: true })

const file = readdirSync(profiles).filter((f) => f.endsWith(".cpuprofile")).sort().at(-1)
const profile = JSON.parse(readFileSync(join(profiles, file), "utf8"))
const self = new Map()
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const dt = profile.timeDeltas
const counts = new Map()
profile.samples.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)))
for (const [id, time] of counts) {
  const n = byId.get(id)
  const key = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/main\//, "")}:${n.callFrame.lineNumber}`
  self.set(key, (self.get(key) ?? 0) + time)
}
const total = [...self.values()].reduce((a, b) => a + b, 0)
const byPackage = new Map()
for (const [key, time] of self) {
  const pkg = key.split(" ")[1]?.split("/").slice(0, key.includes("@") ? 2 : 1).join("/") ?? "?"
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + time)
}
console.log(`profile ${file}: top self time`)
for (const [key, time] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${(100 * time / total).toFixed(1).padStart(5)}%  ${key}`)
console.log("\nby package")
for (const [key, time] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${(100 * time / total).toFixed(1).padStart(5)}%  ${key}`)
