// `npm run bench:soak`: a bounded soak. Convene (as `npm start` runs it) takes SOAK_SECONDS (60)
// of mixed reads and writes from SOAK_CALLERS (8) API tokens, 4 requests in flight each, on
// loopback, with a webhook registration receiving every change. Rate limits are raised to 40/s
// (burst 80) per caller so the run is heavy and still meets 429s. Counts answers by status;
// anything but 2xx and 429 is an error. Samples RSS every 5 s, then checks that every accepted
// write is there and that every notification the server logged was delivered and arrived.
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { client, cpuMs, rssMb, sleep, startReceiver, startServer, TOKEN } from "./lib.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const SECONDS = Number(process.env.SOAK_SECONDS ?? 60)
const CALLERS = Number(process.env.SOAK_CALLERS ?? 8)
const IN_FLIGHT = 4
const log = (...args) => console.error(...args)

const dir = mkdtempSync(join(tmpdir(), "convene-soak-"))
const databasePath = join(dir, "convene.db")

const main = async () => {
  const receiver = await startReceiver()
  const server = await startServer({
    script: join(root, "dist/src/main.js"),
    nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"],
    port: 3291,
    env: {
      DATABASE_PATH: databasePath,
      BOOTSTRAP_ORG_SLUG: "soak",
      BOOTSTRAP_ORG_NAME: "Soak",
      BOOTSTRAP_API_TOKEN: TOKEN,
      PUBLIC_BASE_URL: "http://127.0.0.1:3291",
      RATE_LIMIT_BURST: "80",
      RATE_LIMIT_PER_SECOND: "40",
      BULK_RATE_LIMIT_BURST: "10",
      BULK_RATE_LIMIT_PER_MINUTE: "120",
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
      LOG_LEVEL: "Warn"
    }
  })
  const admin = client(server.url)
  await admin("POST", "/webhook", { webhook: receiver.url("/soak"), type: "GuestList" })
  const tokens = []
  for (let i = 0; i < CALLERS; i++) tokens.push((await admin("POST", "/api-token", { name: `soak-${i}` })).token)
  const events = []
  for (let i = 0; i < 4; i++) events.push((await admin("POST", "/event", { name: `Soak ${i}`, primaryDate: "2031-05-01T18:00:00Z" })).eventId)

  const statuses = {}
  const errors = []
  const accepted = { persons: new Set(), guests: new Map(events.map((e) => [e, new Set()])) }
  let requests = 0
  let seq = 0
  const deadline = performance.now() + SECONDS * 1000

  const call = async (token, method, path, body) => {
    const response = await fetch(server.url + path, {
      method,
      headers: { "x-api-key": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    requests++
    statuses[response.status] = (statuses[response.status] ?? 0) + 1
    if (response.status === 429) {
      await sleep(Number(response.headers.get("retry-after") ?? 1) * 1000)
      return undefined
    }
    if (response.status >= 300) {
      errors.push(`${method} ${path} → ${response.status} ${text.slice(0, 200)}`)
      return undefined
    }
    return text === "" ? null : JSON.parse(text)
  }

  const worker = async (token, w) => {
    const mine = []
    while (performance.now() < deadline) {
      const n = seq++
      const event = events[n % events.length]
      switch (n % 10) {
        case 0:
        case 1: {
          const email = `soak-${w}-${n}@soak.example`
          const created = await call(token, "POST", "/person", { firstName: "Soak", lastName: `W${w}`, email })
          if (created) {
            mine.push(created.personId)
            accepted.persons.add(created.personId)
          }
          break
        }
        case 2: {
          const guests = Array.from({ length: 20 }, (_, i) => ({ firstName: "Guest", lastName: `${n}-${i}`, email: `g-${n}-${i}@soak.example` }))
          const added = await call(token, "POST", `/event/${event}/guestlist`, { guests })
          if (added) for (const g of guests) accepted.guests.get(event).add(g.email)
          break
        }
        case 3:
          if (mine.length > 0) {
            const personId = mine[n % mine.length]
            // (a join refused with 429 leaves the person off the list: no RSVP then)
            const joined = await call(token, "POST", `/event/${event}/guestlist`, { guests: [{ personId }] })
            if (joined) await call(token, "PUT", `/event/${event}/guestlist`, { guests: [{ personId, rsvpStatus: ["Accepted", "Declined", "Maybe"][n % 3] }] })
          }
          break
        case 4:
          if (mine.length > 0) await call(token, "PUT", `/person/${mine[n % mine.length]}`, { personId: mine[n % mine.length], city: `City ${n}` })
          break
        case 5:
          await call(token, "GET", `/person/search?query=${encodeURIComponent(["soak", "guest", "w3", "99"][n % 4])}&limit=20`)
          break
        case 6:
          await call(token, "GET", `/event/${event}/guestlist/search?name=guest&limit=25`)
          break
        case 7:
          if (mine.length > 0) await call(token, "GET", `/person/${mine[n % mine.length]}`)
          break
        case 8:
          await call(token, "GET", "/person?limit=50")
          break
        case 9:
          await call(token, "GET", `/event/${event}`)
          break
      }
    }
  }

  const samples = []
  const cpu0 = cpuMs(server.pid)
  const started = performance.now()
  const sampler = setInterval(() => samples.push({ t: Math.round((performance.now() - started) / 1000), rss: rssMb(server.pid) }), 5000)
  await Promise.all(tokens.flatMap((token, c) => Array.from({ length: IN_FLIGHT }, (_, i) => worker(token, c * IN_FLIGHT + i))))
  clearInterval(sampler)
  const elapsed = (performance.now() - started) / 1000
  const cpu = cpuMs(server.pid) - cpu0

  // every accepted write is there, and every notification the server logged arrived
  const persons = await admin("GET", "/person/search?query=soak&limit=1")
  const missingGuests = []
  for (const [event, emails] of accepted.guests) {
    const list = await admin("GET", `/event/${event}/guestlist`)
    const present = new Set(list.guests.map((g) => g.email))
    for (const email of emails) if (!present.has(email)) missingGuests.push(email)
  }
  const waitUntil = performance.now() + 30_000
  const outstanding = async () =>
    (await admin("GET", "/webhook/deliveries?status=pending&limit=1")).total + (await admin("GET", "/webhook/deliveries?status=failed&limit=1")).total
  while ((await outstanding()) > 0 && performance.now() < waitUntil) await sleep(200)
  const deliveries = (await admin("GET", "/webhook/deliveries?limit=1")).total
  const delivered = (await admin("GET", "/webhook/deliveries?status=delivered&limit=1")).total
  const arrived = new Set(receiver.arrivals.map((a) => a.id)).size

  await server.stop()
  await receiver.close()
  const steady = samples.filter((s) => s.t >= 15)
  const fmt = (v, d = 0) => v.toFixed(d)
  console.log(`\nSoak: ${fmt(elapsed)} s, ${CALLERS} callers × ${IN_FLIGHT} in flight, mixed reads and writes on loopback\n`)
  console.table([{
    requests,
    "req/s": fmt(requests / elapsed),
    "2xx": Object.entries(statuses).filter(([s]) => s.startsWith("2")).reduce((n, [, c]) => n + c, 0),
    "429 (limited)": statuses[429] ?? 0,
    "errors (not 2xx/429)": errors.length,
    "server CPU ms/req": fmt(cpu / requests, 3),
    "persons created/found": `${accepted.persons.size}/${persons.total}`,
    "accepted guests missing": missingGuests.length,
    "notifications logged/delivered/arrived": `${deliveries}/${delivered}/${arrived}`
  }])
  console.table([{
    "RSS at 5 s MB": fmt(samples[0]?.rss ?? NaN),
    "RSS from 15 s, min–max MB": steady.length ? `${fmt(Math.min(...steady.map((s) => s.rss)))}–${fmt(Math.max(...steady.map((s) => s.rss)))}` : "-",
    "RSS at end MB": fmt(samples[samples.length - 1]?.rss ?? NaN),
    "database MB": fmt(statSync(databasePath).size / 1048576, 1)
  }])
  console.log(`RSS every 5 s (MB): ${samples.map((s) => fmt(s.rss)).join(" ")}`)
  if (errors.length > 0) console.log(`first errors:\n${errors.slice(0, 10).join("\n")}`)
  if (errors.length > 0 || missingGuests.length > 0 || persons.total !== accepted.persons.size || arrived !== deliveries || delivered !== deliveries) {
    process.exitCode = 1
  }
}

main()
  .catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }))
