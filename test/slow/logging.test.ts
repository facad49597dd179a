import { describe, expect, it } from "@effect/vitest"
import { databaseEnvOf, onPostgres, queryDatabase } from "../support/Engine.js"
import { Effect } from "effect"
import { hostname } from "node:os"
import { join } from "node:path"
import { expectStatus } from "../support/Fixtures.js"
import { startServer } from "../support/Process.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, API_TOKEN, send, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

const lines = (output: string) =>
  output.split("\n").filter((l) => l.startsWith("{")).map((l) =>
    JSON.parse(l) as { message: string; logLevel: string; instance: string; annotations: Record<string, unknown> }
  )

// the JSON logger alone (the instance on every line, INSTANCE_ID's default): test/unit/logging.test.ts

describe("logs", () => {
  it.scopedLive("writes one JSON line per request, with ids, route, status and duration, and never a secret", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const server = yield* startServer({ ...testEnvironment(join(dir, "convene.db")), LOG_LEVEL: "Info" })
      const api = send(server.url)
      const login = expectStatus(yield* api("POST", "/login", { token: null, body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }), 200).body
      const created = expectStatus(yield* api("POST", "/api-token", { body: { name: "logged?" } }), 200).body
      const secret = expectStatus(yield* api("POST", "/webhook", { body: { webhook: "https://hooks.example.com/x", type: "Event" } }), 200).body.secret
      yield* api("GET", "/person", { token: null, headers: { authorization: `Bearer ${login.accessToken}`, organizationSlug: "acme" } })
      yield* api("POST", "/login", { token: null, body: { email: ADMIN_EMAIL, password: 12345678 } })
      const wrongType = yield* api("POST", "/login", { token: null, body: { email: ADMIN_EMAIL, password: ["hunter2-secret"] } })
      expect(wrongType.text).not.toContain("hunter2-secret")
      yield* api("GET", "/person/search?email=someone%40example.com", { headers: { "x-request-id": "trace-me-123" } })
      yield* server.kill("SIGTERM")

      const output = server.output()
      for (const secretValue of [API_TOKEN, ADMIN_PASSWORD, login.accessToken, created.token, secret, "hunter2-secret", "12345678"]) {
        expect(output).not.toContain(secretValue)
      }
      // every line names the instance: by default the host's name and the process's id
      expect(lines(output).length).toBeGreaterThan(7)
      for (const line of lines(output)) expect(line.instance).toBe(`${hostname()}:${server.child.pid}`)
      const requests = lines(output).filter((l) => l.message === "request")
      expect(requests).toHaveLength(7)
      for (const line of requests) {
        expect(line.logLevel).toBe("INFO")
        expect(Object.keys(line.annotations).sort()).toEqual(["callerId", "clientIp", "durationMs", "method", "path", "requestId", "route", "status"])
        expect(typeof line.annotations["durationMs"]).toBe("number")
      }
      const search = requests.find((l) => l.annotations["requestId"] === "trace-me-123")!
      expect(search.annotations).toMatchObject({ route: "GET /person/search", path: "/person/search", status: 200, method: "GET" })
      expect(String(search.annotations["callerId"])).toMatch(/^apiKey:[0-9a-f-]{36}$/)
      expect(JSON.stringify(search)).not.toContain("someone")
      expect(requests.filter((l) => String(l.annotations["callerId"]).startsWith("accessToken:"))).toHaveLength(1)
      expect(requests.filter((l) => String(l.annotations["callerId"]).startsWith("ip:"))).toHaveLength(3)
    }), 60_000)

  it.scopedLive("names the instance INSTANCE_ID names on every line, requests' and the shutdown's", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const server = yield* startServer({ ...testEnvironment(join(dir, "convene.db")), LOG_LEVEL: "Info", INSTANCE_ID: "convene-b" })
      expectStatus(yield* send(server.url)("GET", "/person"), 200)
      yield* server.kill("SIGTERM")
      const logged = lines(server.output())
      expect(logged.map((l) => l.message)).toEqual(expect.arrayContaining(["request", "Shutting down: finishing requests in flight"]))
      for (const line of logged) expect(line.instance).toBe("convene-b")
    }), 60_000)

  it.scopedLive("follows LOG_LEVEL", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const server = yield* startServer({ ...testEnvironment(join(dir, "convene.db")), LOG_LEVEL: "warn" })
      yield* send(server.url)("GET", "/person")
      yield* server.kill("SIGTERM")
      expect(lines(server.output()).filter((l) => l.message === "request")).toEqual([])
      expect(server.output()).toContain("listening on")
    }), 60_000)

  it.scopedLive("answers an unexpected failure with a bare 500 and logs its cause under the request id", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const databasePath = join(dir, "convene.db")
      const env = { ...testEnvironment(databasePath), LOG_LEVEL: "Info" }
      const server = yield* startServer(env)
      const api = send(server.url)
      expectStatus(yield* api("GET", "/person"), 200)
      // the database is damaged behind the server's back
      yield* Effect.promise(() => queryDatabase(databaseEnvOf(env), "ALTER TABLE persons RENAME TO persons_elsewhere"))
      const reply = yield* api("GET", "/person", { headers: { "x-request-id": "broken-1" } })
      expect(reply.status).toBe(500)
      expect(reply.body).toEqual({ message: "Internal server error", code: "internal" })
      expect(reply.headers.get("x-request-id")).toBe("broken-1")
      expect(reply.text).not.toMatch(/persons|SQL|sqlite|at /i)
      yield* server.kill("SIGTERM")
      const logged = lines(server.output()).filter((l) => l.annotations["requestId"] === "broken-1")
      const failure = logged.find((l) => l.logLevel === "ERROR")!
      expect(failure.message).toBe("Unexpected failure")
      // the driver's own words: SQLite's, or PostgreSQL's
      expect(JSON.stringify(failure)).toContain(onPostgres ? `relation \\"persons\\" does not exist` : "no such table: persons")
      expect(logged.find((l) => l.message === "request")!.annotations["status"]).toBe(500)
    }), 60_000)
})
