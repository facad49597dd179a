/**
 * `GET /metrics` (CONTRACT §19): Prometheus's text format, accepted by `promtool check metrics`
 * (Debian's `prometheus` package), behind `METRICS_TOKEN` (Bearer only, 401 otherwise, 404 without
 * it); requests by route pattern, method and status with a duration histogram; the outbox's
 * backlog per channel and delivery outcomes; rate-limit refusals; Redis; the pool and the write
 * lock on PostgreSQL; memory, event loop and build. No organization, person or token in a label.
 * The registry is the process's (the test runner's here, shared by the servers of a file): counts
 * are compared before and after.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { onPostgres } from "../support/Engine.js"
import { createEvent, createPerson, eventually, expectError, expectStatus } from "../support/Fixtures.js"
import { receiver } from "../support/Receiver.js"
import { API_TOKEN, send, TestServer, testServer } from "../support/TestServer.js"

const TOKEN = "metrics-scraper-secret-0123456789"

const PROMTOOL = ["/usr/bin/promtool", "/usr/local/bin/promtool"].find((path) => existsSync(path))
if (PROMTOOL === undefined) {
  if (process.env["CONVENE_CI"] === "1") throw new Error("promtool is not installed: CI must check /metrics with it (apt-get install prometheus)")
  console.warn("promtool is not installed: /metrics is not checked with it (apt-get install prometheus)")
}

/** `promtool check metrics` on `text`: its exit code and what it said (lint problems included). */
const promtool = (text: string) =>
  Effect.async<{ readonly code: number | null; readonly output: string }>((resume) => {
    const child = spawn(PROMTOOL!, ["check", "metrics"], { stdio: ["pipe", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.on("close", (code) => resume(Effect.succeed({ code, output })))
    child.stdin.end(text)
  })

/** The value of the sample `series` (name and labels exactly as written), or undefined. */
const valueOf = (text: string, series: string): number | undefined => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

const scrape = (url: string) =>
  Effect.map(send(url)("GET", "/metrics", { token: null, headers: { authorization: `Bearer ${TOKEN}` } }), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return reply.text
  })

layer(testServer({ METRICS_TOKEN: TOKEN, WEBHOOK_RETRY_SCHEDULE: "1h" }), { excludeTestServices: true })("GET /metrics", (it) => {
  it.scoped("answers only to Authorization: Bearer <METRICS_TOKEN>; the text passes promtool check metrics", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const get = (headers: Record<string, string>) => server.request("GET", "/metrics", { token: null, headers })
      for (
        const headers of [
          {},
          { authorization: "Bearer wrong" },
          { authorization: `Bearer ${TOKEN}x` },
          { authorization: `Basic ${Buffer.from(`metrics:${TOKEN}`).toString("base64")}` },
          { authorization: TOKEN },
          { "x-api-key": API_TOKEN }
        ]
      ) {
        const reply = expectError(yield* get(headers), 401, "unauthorized")
        expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer /)
      }
      const reply = expectStatus(yield* get({ authorization: `bearer ${TOKEN}` }), 200)
      expect(reply.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
      expect(reply.text).toMatch(/^convene_build_info\{version="\d+\.\d+\.\d+[^"]*",engine="(sqlite|postgresql)",node="[^"]+"\} 1$/m)
      if (PROMTOOL !== undefined) {
        const checked = yield* promtool(reply.text)
        expect(checked.output).toBe("")
        expect(checked.code).toBe(0)
      }
    }))

  it.scoped("counts requests by route pattern, method and status, never by raw path, and times them by route", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const personId = yield* createPerson(server)
      const before = yield* scrape(server.url)
      const series = 'convene_http_requests_total{route="/person/:id",method="GET",status="200"}'
      const duration = 'convene_http_request_duration_seconds_count{route="/person/:id",method="GET"}'
      for (let i = 0; i < 3; i++) expectStatus(yield* server.request("GET", `/person/${personId}`), 200)
      expectStatus(yield* server.request("GET", "/person/no-such-person"), 404)
      expectStatus(yield* server.request("GET", "/healthz", { token: null }), 200)
      expectStatus(yield* server.request("GET", "/no/such/route", { token: null }), 404)
      expectStatus(yield* server.request("GET", "/app/login", { token: null }), 200)
      const after = yield* scrape(server.url)
      expect((valueOf(after, series) ?? 0) - (valueOf(before, series) ?? 0)).toBe(3)
      expect((valueOf(after, duration) ?? 0) - (valueOf(before, duration) ?? 0)).toBe(4)
      expect(valueOf(after, 'convene_http_requests_total{route="/person/:id",method="GET",status="404"}')).toBeGreaterThanOrEqual(1)
      expect(valueOf(after, 'convene_http_requests_total{route="/healthz",method="GET",status="200"}')).toBeGreaterThanOrEqual(1)
      expect(valueOf(after, 'convene_http_requests_total{route="unmatched",method="GET",status="404"}')).toBeGreaterThanOrEqual(1)
      // a page of the dashboard, matched by the router rather than the API's gate
      expect(valueOf(after, 'convene_http_requests_total{route="/app/login",method="GET",status="200"}')).toBeGreaterThanOrEqual(1)
      // no identifier, organization or token anywhere in the labels
      const labels = after.split("\n").filter((line) => !line.startsWith("#")).map((line) => line.replace(/ [^ ]+$/, ""))
      for (const secret of [personId, "no-such-person", "/no/such/route", "acme", API_TOKEN, TOKEN]) {
        expect(labels.filter((line) => line.includes(secret))).toEqual([])
      }
    }))

  it.scoped("shows the outbox's backlog per channel and counts delivery outcomes", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const hook = yield* receiver
      hook.answer = (_, n) => (n === 1 ? 200 : 503)
      const { token } = yield* server.organization("metrics-outbox")
      expectStatus(yield* server.request("POST", "/webhook", { token, body: { webhook: hook.url(), type: "Event" } }), 200)
      const before = yield* scrape(server.url)
      const delivered = 'convene_outbox_deliveries_total{channel="webhook",outcome="delivered"}'
      const retried = 'convene_outbox_deliveries_total{channel="webhook",outcome="retry"}'
      const event = yield* createEvent(server, {}, token)
      expectStatus(yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Renamed" } }), 200)
      yield* hook.next()
      // the second notification is refused (503): retried in an hour, pending meanwhile
      expectStatus(yield* server.request("PATCH", `/event/${event.eventId}`, { token, body: { name: "Renamed again" } }), 200)
      yield* hook.next()
      // the counter moves as the attempt's outcome is recorded; the backlog is read from the
      // database at the scrape (on PostgreSQL, over another connection): wait for both
      const after = yield* eventually(
        scrape(server.url),
        (text) => (valueOf(text, retried) ?? 0) > (valueOf(before, retried) ?? 0) && valueOf(text, 'convene_outbox_due{channel="webhook"}') === 0
      )
      expect((valueOf(after, delivered) ?? 0) - (valueOf(before, delivered) ?? 0)).toBe(1)
      expect((valueOf(after, retried) ?? 0) - (valueOf(before, retried) ?? 0)).toBe(1)
      expect(valueOf(after, 'convene_outbox_pending{channel="webhook"}')).toBe(1)
      expect(valueOf(after, 'convene_outbox_due{channel="webhook"}')).toBe(0)
      expect(valueOf(after, 'convene_outbox_oldest_pending_age_seconds{channel="webhook"}')).toBeLessThan(60)
      expect(valueOf(after, 'convene_outbox_oldest_due_age_seconds{channel="webhook"}')).toBe(0)
      expect(valueOf(after, 'convene_outbox_pending{channel="email"}')).toBe(0)
      expect(valueOf(after, 'convene_outbox_attempt_duration_seconds_count{channel="webhook"}')).toBeGreaterThanOrEqual(2)
      expect(valueOf(after, "convene_emails_sent_total")).toBeGreaterThanOrEqual(0)
      expect(valueOf(after, "convene_database_up")).toBe(1)
      expect(valueOf(after, "convene_ready")).toBe(1)
      if (onPostgres) expect(valueOf(after, 'convene_outbox_instances{state="live"}')).toBeGreaterThanOrEqual(1)
    }))

  it.scoped("says whether Redis is in use, and gives the process's memory and event-loop delay", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const text = yield* scrape(server.url)
      expect(valueOf(text, "convene_rate_limit_redis_configured")).toBe(0)
      expect(valueOf(text, "convene_rate_limit_redis_in_use")).toBe(0)
      expect(valueOf(text, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000)
      expect(valueOf(text, "nodejs_heap_size_used_bytes")).toBeGreaterThan(1_000_000)
      expect(valueOf(text, "nodejs_eventloop_lag_p99_seconds")).toBeGreaterThan(0)
      expect(valueOf(text, "nodejs_eventloop_lag_max_seconds")).toBeLessThan(10)
    }))

  it.scoped.runIf(onPostgres)("on PostgreSQL, gives the pool's connections by state and times the waits for the write lock", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const before = yield* scrape(server.url)
      yield* Effect.forEach(Array.from({ length: 6 }, (_, i) => i), () => createPerson(server), { concurrency: 6 })
      const after = yield* scrape(server.url)
      for (const state of ["in_use", "idle", "waiting"]) {
        expect(valueOf(after, `convene_db_pool_connections{state="${state}"}`), state).toBeGreaterThanOrEqual(0)
      }
      expect(valueOf(after, 'convene_db_pool_connections{state="idle"}')).toBeGreaterThan(0)
      expect(valueOf(after, "convene_db_pool_max_connections")).toBe(10)
      const locks = "convene_db_write_lock_wait_seconds_count"
      expect((valueOf(after, locks) ?? 0) - (valueOf(before, locks) ?? 0)).toBeGreaterThanOrEqual(6)
      expect(valueOf(after, 'convene_db_write_lock_wait_seconds_bucket{le="+Inf"}')).toBe(valueOf(after, locks))
      expect(valueOf(after, "convene_db_write_lock_waiting")).toBe(0)
      expect(valueOf(after, "convene_db_write_queue_wait_seconds_count")).toBeGreaterThan(0)
    }))

  it.scoped("has every series the example Grafana dashboard (docs/grafana-dashboard.json) queries", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const dashboard = readFileSync(new URL("../../docs/grafana-dashboard.json", import.meta.url), "utf8")
      const queried = new Set(
        [...dashboard.matchAll(/\b((?:convene|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_bucket$/, ""))
      )
      expect(queried.size).toBeGreaterThan(20)
      // a request counted, whatever ran before
      expectStatus(yield* server.request("GET", "/healthz", { token: null }), 200)
      const text = yield* scrape(server.url)
      const exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!))
      // PostgreSQL's own: the pool, the write lock, the instances claiming deliveries
      const postgresOnly = (name: string) => name.startsWith("convene_db_") || name === "convene_outbox_instances"
      expect([...queried].filter((name) => !exported.has(name) && (onPostgres || !postgresOnly(name)))).toEqual([])
    }))
})

describe("GET /metrics without METRICS_TOKEN", () => {
  it.scoped("is not found, like any unknown route", () =>
    Effect.gen(function*() {
      const server = Context.get(yield* Layer.build(testServer()), TestServer)
      expectError(yield* server.request("GET", "/metrics", { token: null, headers: { authorization: `Bearer ${TOKEN}` } }), 404, "not_found")
    }))
})

describe("rate-limit refusals", () => {
  it.scoped("are counted by policy", () =>
    Effect.gen(function*() {
      const server = Context.get(yield* Layer.build(testServer({ METRICS_TOKEN: TOKEN, RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_SECOND: "0.01" })), TestServer)
      const series = 'convene_rate_limit_rejections_total{policy="general"}'
      const before = valueOf(yield* scrape(server.url), series) ?? 0
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) statuses.push((yield* server.request("GET", "/person?limit=1")).status)
      expect(statuses).toEqual([200, 200, 429, 429])
      expect((valueOf(yield* scrape(server.url), series) ?? 0) - before).toBe(2)
    }))
})
