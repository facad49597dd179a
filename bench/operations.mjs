// The operator's experiment of issue 28, repeated on this machine: three instances of the compiled
// service on one PostgreSQL through PgBouncer in transaction mode (DATABASE_POOL_MODE=transaction),
// sharing rate limits through Redis, under a steady load of reads and status writes (each write one
// EventPerson webhook to a local receiver). Then, one after the other: PostgreSQL restarted (a fast
// shutdown, as `pg_ctl restart -m fast`), one instance SIGKILLed, Redis hung (SIGSTOP) for 12 s.
// Every instance's /metrics is scraped each second; the table prints, per phase, what the series
// showed (minimum-maximum over the live instances and the phase's scrapes) and what the clients saw.
// At the end every webhook must arrive (the outbox empties with no instance restarted).
//   npm run bench:operations
// (Caddy in front of the instances is tested on its own: test/slow/pg/balancer.test.ts.)
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { benchEnv, client, freePort, sleep, startPostgres, startReceiver, startServer, TOKEN } from "./lib.mjs"

const METRICS_TOKEN = "ops-metrics-0123456789abcdef"
const WORKERS = 12
const dir = mkdtempSync(join(tmpdir(), "convene-operations-"))
const isRoot = process.getuid?.() === 0
const log = (...args) => console.error(new Date().toISOString().slice(11, 19), ...args)

/** A child process started now, stopped (SIGTERM) at the end. */
const children = []
const child = (command, args, options = {}) => {
  const p = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options })
  let output = ""
  p.stdout.on("data", (c) => (output += c))
  p.stderr.on("data", (c) => (output += c))
  children.push(p)
  return { process: p, output: () => output }
}

const startRedis = async () => {
  const port = await freePort()
  const redis = child("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
  while (!redis.output().includes("Ready to accept connections")) await sleep(20)
  return { url: `redis://127.0.0.1:${port}`, pid: redis.process.pid }
}

const startPgBouncer = async (serverPort) => {
  const port = await freePort()
  const file = join(dir, "pgbouncer.ini")
  writeFileSync(file, `[databases]
* = host=127.0.0.1 port=${serverPort} user=postgres
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
server_reset_query =
server_login_retry = 1
ignore_startup_parameters = extra_float_digits
`)
  const bouncer = isRoot
    ? child("runuser", ["-u", "postgres", "--", "/usr/sbin/pgbouncer", file])
    : child("/usr/sbin/pgbouncer", [file])
  while (!bouncer.output().includes("process up")) {
    if (bouncer.process.exitCode !== null) throw new Error(bouncer.output())
    await sleep(20)
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/convene` }
}

/** The series of one scrape, by name with labels (`name{a="b"}`), as numbers. */
const scrape = async (url) => {
  const reply = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` }, signal: AbortSignal.timeout(3_000) })
  const series = new Map()
  for (const line of (await reply.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue
    const cut = line.lastIndexOf(" ")
    series.set(line.slice(0, cut), Number(line.slice(cut + 1)))
  }
  return series
}

const sumOf = (series, prefix, test = () => true) =>
  [...series].filter(([k]) => k.startsWith(prefix) && test(k)).reduce((sum, [, v]) => sum + v, 0)

/** What a phase's table shows of one scrape. */
const observe = (series) => ({
  ready: series.get("convene_ready"),
  dbUp: series.get("convene_database_up"),
  pending: sumOf(series, "convene_outbox_pending"),
  oldestDue: Math.max(0, ...[...series].filter(([k]) => k.startsWith("convene_outbox_oldest_due_age_seconds")).map(([, v]) => v)),
  claiming: series.get('convene_outbox_instances{state="live"}'),
  poolWaiting: series.get('convene_db_pool_connections{state="waiting"}'),
  lockWaiting: series.get("convene_db_write_lock_waiting"),
  redis: series.get("convene_rate_limit_redis_in_use"),
  http5xx: sumOf(series, "convene_http_requests_total", (k) => /status="5\d\d"/.test(k)),
  retries: sumOf(series, "convene_outbox_deliveries_total", (k) => k.includes('outcome="retry"'))
})

const main = async () => {
  const script = join(process.cwd(), "dist/src/main.js")
  const postgres = await startPostgres(dir)
  const bouncer = await startPgBouncer(Number(new URL(postgres.url).port))
  const redis = await startRedis()
  const receiver = await startReceiver()
  const env = (id) => ({
    ...benchEnv,
    DATABASE_URL: bouncer.url,
    DATABASE_POOL_MODE: "transaction",
    DATABASE_PATH: join(dir, "unused.db"),
    REDIS_URL: redis.url,
    METRICS_TOKEN,
    INSTANCE_ID: id,
    PUBLIC_BASE_URL: "http://127.0.0.1",
    WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
    WEBHOOK_RETRY_SCHEDULE: "1s,2s,5s,10s,30s",
    LOG_LEVEL: "Warn"
  })
  const servers = []
  for (const id of ["convene-a", "convene-b", "convene-c"]) servers.push(await startServer({ script, env: env(id), port: await freePort() }))
  const api = client(servers[0].url)
  const { eventId } = await api("POST", "/event", { name: "Operations", primaryDate: "2031-06-01T18:00:00+02:00" })
  const guests = (await api("POST", `/event/${eventId}/guestlist`, {
    guests: Array.from({ length: 100 }, (_, k) => ({ firstName: `G${k}`, lastName: "Ops", email: `g${k}@ops.example` }))
  })).guests.map((g) => g.personId)
  await api("POST", "/webhook", { webhook: receiver.url("/ops"), type: "EventPerson" })

  // the load: status writes and reads, round robin over the instances still alive
  const alive = new Set(servers.map((_, i) => i))
  const seen = { ok: 0, status5xx: 0, other: 0, failed: 0, writes: 0 }
  const codes = {}
  let n = 0
  let loading = true
  const worker = async () => {
    while (loading) {
      const i = n++
      const live = [...alive]
      const server = servers[live[i % live.length]]
      const write = i % 2 === 0
      const w = i >> 1
      try {
        const reply = await fetch(server.url + (write ? `/event/${eventId}/guestlist` : `/person/${guests[i % guests.length]}`), {
          method: write ? "PUT" : "GET",
          headers: { "x-api-key": TOKEN, "content-type": "application/json" },
          signal: AbortSignal.timeout(10_000),
          ...(write
            ? { body: JSON.stringify({ guests: [{ personId: guests[w % guests.length], rsvpStatus: ["Accepted", "Declined", "Maybe", "Invited"][Math.floor(w / guests.length) % 4] }] }) }
            : {})
        })
        await reply.arrayBuffer()
        if (reply.status < 300) {
          seen.ok++
          if (write) seen.writes++
        } else {
          if (reply.status >= 500) seen.status5xx++
          else seen.other++
          codes[reply.status] = (codes[reply.status] ?? 0) + 1
        }
      } catch {
        seen.failed++
        await sleep(50)
      }
    }
  }
  const workers = Array.from({ length: WORKERS }, worker)

  const rows = []
  const phase = async (name, seconds, fault) => {
    log(name)
    const before = { ...seen }
    const samples = []
    const started = performance.now()
    const acting = fault?.()
    while (performance.now() - started < seconds * 1000) {
      for (const i of alive) {
        try {
          samples.push({ instance: i, ...observe(await scrape(servers[i].url)) })
        } catch {
          samples.push({ instance: i, scrapeFailed: true })
        }
      }
      await sleep(1_000)
    }
    await acting
    const range = (key) => {
      const values = samples.map((s) => s[key]).filter((v) => typeof v === "number")
      if (values.length === 0) return "–"
      const lo = Math.min(...values)
      const hi = Math.max(...values)
      const f = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(1))
      return lo === hi ? f(lo) : `${f(lo)}–${f(hi)}`
    }
    const delta = (key) => seen[key] - before[key]
    rows.push({
      name,
      ok: delta("ok"),
      c5xx: delta("status5xx"),
      failed: delta("failed"),
      ready: range("ready"),
      dbUp: range("dbUp"),
      pending: range("pending"),
      oldestDue: range("oldestDue"),
      claiming: range("claiming"),
      poolWaiting: range("poolWaiting"),
      lockWaiting: range("lockWaiting"),
      redis: range("redis"),
      scrapeFailed: samples.filter((s) => s.scrapeFailed).length
    })
  }

  await phase("steady", 8)
  await phase("PostgreSQL restarted", 25, () => postgres.restart())
  await phase("instance c SIGKILLed", 12, async () => {
    alive.delete(2)
    process.kill(servers[2].pid, "SIGKILL")
  })
  await phase("Redis hung (SIGSTOP 12 s)", 14, async () => {
    process.kill(redis.pid, "SIGSTOP")
    await sleep(12_000)
    process.kill(redis.pid, "SIGCONT")
  })
  await phase("after", 6)
  loading = false
  await Promise.all(workers)
  // every delivery the outbox holds arrives, no instance restarted
  const db = new pg.Client(postgres.url)
  await db.connect()
  const outboxNow = async () => (await db.query(
    "SELECT count(*)::int AS written, (count(*) FILTER (WHERE status <> 'delivered'))::int AS undelivered FROM outbox_deliveries WHERE channel = 'webhook'"
  )).rows[0]
  const deadline = performance.now() + 90_000
  let arrived = 0
  let outbox
  for (;;) {
    arrived = new Set(receiver.arrivals.map((a) => a.id)).size
    outbox = await outboxNow()
    if ((outbox.undelivered === 0 && arrived >= outbox.written) || performance.now() > deadline) break
    await sleep(500)
  }
  await db.end()
  await phase("drained", 2)

  console.log("\nThree instances, PgBouncer (transaction mode), Redis; load: 12 clients, reads and status writes\n")
  console.log("| phase | 2xx | 5xx | no answer | ready | db up | outbox pending | oldest due s | instances claiming | pool waiting | lock waiting | redis in use | failed scrapes |")
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.ok} | ${r.c5xx} | ${r.failed} | ${r.ready} | ${r.dbUp} | ${r.pending} | ${r.oldestDue} | ${r.claiming} | ${r.poolWaiting} | ${r.lockWaiting} | ${r.redis} | ${r.scrapeFailed} |`)
  }
  console.log(`\nanswers other than 2xx, by status: ${JSON.stringify(codes)}`)
  console.log(`webhook deliveries written: ${outbox.written}, not delivered: ${outbox.undelivered}`)
  console.log(`accepted status writes: ${seen.writes}; distinct webhooks received: ${arrived} (${arrived >= outbox.written ? "every delivery written arrived" : "MISSING"})`)
  for (const [i, server] of servers.entries()) if (alive.has(i)) await server.stop()
  await receiver.close()
  for (const p of children) if (p.exitCode === null) p.kill("SIGTERM")
  await postgres.stop()
  if (arrived < outbox.written || outbox.undelivered > 0) process.exitCode = 1
}

main().then(
  () => rmSync(dir, { recursive: true, force: true }),
  (error) => {
    console.error(error)
    for (const p of children) if (p.exitCode === null) p.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
    process.exit(1)
  }
)
