// `npm run bench:email`: invitations by email against a local SMTP server (smtp-server, in this
// process). Prints the send rate (emails/s from the POST to the last email received), the time to
// queue one request's emails, the size of one email, and what an unreachable, silent or refusing
// SMTP server does to the rest of the service: GET /event/:id latency before and while invitations
// are queued, sequential and 8 at a time.
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SMTPServer } from "smtp-server"
import { client, startServer, TOKEN } from "./lib.mjs"

const MAIN = process.env.CONVENE_MAIN ?? "dist/src/main.js"
const nodeArgs = MAIN.endsWith(".ts") ? ["--import", "tsx"] : []
const GUESTS = Number(process.env.BENCH_GUESTS ?? 2000)

/** A local SMTP server: accepts (or refuses) every message, counting them and their bytes. */
const smtpServer = (answer = "accept") =>
  new Promise((resolve) => {
    const state = { received: 0, bytes: [], lastAt: 0 }
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      closeTimeout: 100,
      onData(stream, _session, callback) {
        let size = 0
        stream.on("data", (chunk) => (size += chunk.length))
        stream.on("end", () => {
          if (answer === "refuse") return callback(Object.assign(new Error("4.3.2 Not accepting messages"), { responseCode: 451 }))
          state.received++
          state.lastAt = performance.now()
          if (state.bytes.length < 10) state.bytes.push(size)
          callback(null, "queued")
        })
      }
    })
    server.listen(0, "127.0.0.1", () => resolve({ url: `smtp://127.0.0.1:${server.server.address().port}`, state, close: () => server.close() }))
  })

/** A port that accepts TCP connections and never says a word. */
const blackHole = () =>
  new Promise((resolve) => {
    const sockets = new Set()
    const server = createServer((socket) => {
      sockets.add(socket)
      socket.on("error", () => {})
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `smtp://127.0.0.1:${server.address().port}`,
        close: () => {
          for (const s of sockets) s.destroy()
          server.close()
        }
      }))
  })

/** A port with nothing listening. */
const closedPort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const port = probe.address().port
      probe.close(() => resolve({ url: `smtp://127.0.0.1:${port}`, close: () => {} }))
    })
  })

let port = 3390
const start = async (smtpUrl, extra = {}) => {
  const dir = mkdtempSync(join(tmpdir(), "convene-bench-email-"))
  const server = await startServer({
    script: MAIN,
    nodeArgs,
    port: port++,
    env: {
      DATABASE_PATH: join(dir, "convene.db"),
      BOOTSTRAP_ORG_SLUG: "bench",
      BOOTSTRAP_API_TOKEN: TOKEN,
      RATE_LIMIT_BURST: "1000000",
      RATE_LIMIT_PER_SECOND: "1000000",
      PUBLIC_BASE_URL: "https://events.example.org",
      SMTP_URL: smtpUrl,
      MAIL_FROM: "Acme Events <events@acme.example>",
      LOG_LEVEL: "Error",
      ...extra
    }
  })
  return { ...server, api: client(server.url), stop: async () => { await server.stop(); rmSync(dir, { recursive: true, force: true }) } }
}

const seed = async (api, guests) => {
  const event = await api("POST", "/event", {
    name: "Bench Gala",
    primaryDate: "2031-06-01T20:00:00+02:00",
    timezone: "Europe/Paris",
    locationName: "Grand Hall",
    locationAddress: "1 Example Street",
    locationCity: "Paris",
    virtualLocations: [{ url: "https://meet.example.com/gala", password: null, phoneNumber: null, sourceType: null }],
    rsvpDescription: "An evening of music and food.\nDress code: black tie."
  })
  const personIds = []
  for (let i = 0; i < guests; i += 500) {
    const batch = Array.from({ length: Math.min(500, guests - i) }, (_, j) => ({
      email: `guest${i + j}@example.com`,
      firstName: `Guest${i + j}`,
      lastName: "Bench"
    }))
    const added = await api("POST", `/event/${event.eventId}/guestlist`, { guests: batch })
    personIds.push(...added.guests.map((g) => g.personId))
  }
  return { event, personIds }
}

const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]

/** GET /event/:id latency: `count` requests, `parallel` at a time. */
const latency = async (url, eventId, count, parallel) => {
  const samples = []
  let next = 0
  const worker = async () => {
    while (next < count) {
      next++
      const started = performance.now()
      const response = await fetch(`${url}/event/${eventId}`, { headers: { "x-api-key": TOKEN } })
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`GET /event: ${response.status}`)
      samples.push(performance.now() - started)
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker))
  samples.sort((a, b) => a - b)
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) }
}

const waitFor = async (condition, timeoutMs) => {
  const started = performance.now()
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error("timed out")
    await new Promise((r) => setTimeout(r, 5))
  }
}

// ---- send rate and size -------------------------------------------------------------------------
const sink = await smtpServer()
const rate = []
let size
{
  const server = await start(sink.url)
  try {
    const { event, personIds } = await seed(server.api, GUESTS)
    // warm-up: one small request
    await server.api("POST", `/event/${event.eventId}/invitations`, { personIds: personIds.slice(0, 20) })
    await waitFor(() => sink.state.received >= 20, 30_000)
    for (const [label, body, expected] of [
      ["500 named guests (personIds)", { personIds: personIds.slice(0, 500) }, 500],
      [`${GUESTS} guests by status`, { statuses: ["Invited"] }, GUESTS]
    ]) {
      const before = sink.state.received
      const started = performance.now()
      const answer = await server.api("POST", `/event/${event.eventId}/invitations`, body)
      const queuedMs = performance.now() - started
      if (answer.queued !== expected) throw new Error(`queued ${answer.queued}, expected ${expected}`)
      await waitFor(() => sink.state.received >= before + expected, 300_000)
      const allMs = sink.state.lastAt - started
      rate.push({
        request: label,
        emails: expected,
        "queue (POST) ms": queuedMs.toFixed(0),
        "all received ms": allMs.toFixed(0),
        "emails/s": ((expected * 1000) / allMs).toFixed(0)
      })
    }
    const list = await server.api("GET", `/event/${event.eventId}/invitations?limit=1`)
    size = { "one email (bytes, as received)": sink.state.bytes[0], "last invitation": list.invitations[0].status }
  } finally {
    await server.stop()
  }
}
console.log("\nSend rate to a local SMTP server (WEBHOOK_CONCURRENCY 16: 4 SMTP connections)")
console.table(rate)
console.log("\nSize")
console.table([size])

// ---- a failing SMTP server and the rest of the service -----------------------------------------
const states = [
  ["working (local SMTP server)", () => smtpServer()],
  ["unreachable (connection refused)", closedPort],
  ["silent (accepts TCP, never greets)", blackHole],
  ["refusing every message (451)", () => smtpServer("refuse")]
]
const rows = []
for (const [label, make] of states) {
  const smtp = await make()
  const server = await start(smtp.url, { WEBHOOK_TIMEOUT: "10 seconds", WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s,1s,1s" })
  try {
    const { event, personIds } = await seed(server.api, 500)
    await latency(server.url, event.eventId, 1000, 8) // warm-up
    const before1 = await latency(server.url, event.eventId, 1000, 1)
    const before8 = await latency(server.url, event.eventId, 2000, 8)
    await server.api("POST", `/event/${event.eventId}/invitations`, { personIds })
    const during1 = await latency(server.url, event.eventId, 1000, 1)
    const during8 = await latency(server.url, event.eventId, 2000, 8)
    const log = await server.api("GET", `/event/${event.eventId}/invitations?limit=100`)
    const states = {}
    for (const i of log.invitations) states[i.status] = (states[i.status] ?? 0) + 1
    rows.push({
      "SMTP server": label,
      "p50 ms before → during (1 at a time)": `${before1.p50.toFixed(2)} → ${during1.p50.toFixed(2)}`,
      "p99 ms before → during (1 at a time)": `${before1.p99.toFixed(2)} → ${during1.p99.toFixed(2)}`,
      "p50 ms before → during (8 at a time)": `${before8.p50.toFixed(2)} → ${during8.p50.toFixed(2)}`,
      "p99 ms before → during (8 at a time)": `${before8.p99.toFixed(2)} → ${during8.p99.toFixed(2)}`,
      "newest 100 emails after": Object.entries(states).map(([k, v]) => `${v} ${k}`).join(", ")
    })
  } finally {
    await server.stop()
    smtp.close()
  }
}
console.log("\nGET /event/:id while 500 invitations meet the SMTP server")
console.table(rows)
sink.close()
