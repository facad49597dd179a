import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { expectError, expectStatus, login } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

const defaults = {
  RATE_LIMIT_BURST: "20",
  RATE_LIMIT_PER_SECOND: "1.5",
  BULK_RATE_LIMIT_BURST: "5",
  BULK_RATE_LIMIT_PER_MINUTE: "20"
}

// Time stands still under TestClock unless a test moves it, so bucket levels are exact.
layer(testServer(defaults))("rate limits over HTTP", (it) => {
  it.effect("lets 20 requests through, then answers 429 with the exact message and Retry-After", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization("burst")
      for (let i = 0; i < 20; i++) {
        const reply = expectStatus(yield* server.request("GET", "/person", { token }), 200)
        expect(reply.headers.get("x-ratelimit-limit")).toBe("20")
        expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(19 - i))
        expect(reply.headers.get("retry-after")).toBeNull()
      }
      const limited = expectError(yield* server.request("GET", "/person", { token }), 429, "rate_limited")
      expect(limited.body).toEqual({ message: "Too Many Requests. Retry after 1 seconds.", code: "rate_limited" })
      expect(limited.headers.get("retry-after")).toBe("1")
      expect(limited.headers.get("x-ratelimit-limit")).toBe("20")
      expect(limited.headers.get("x-ratelimit-remaining")).toBe("0")
      expect(limited.headers.get("ratelimit-policy")).toBe('"general";q=20;w=14')
      expect(limited.headers.get("ratelimit")).toMatch(/^"general";r=0;t=\d+$/)
      // a token returns after 2/3 of a second; the 429 consumed none
      yield* TestClock.adjust("667 millis")
      const after = expectStatus(yield* server.request("GET", "/person", { token }), 200)
      expect(after.headers.get("x-ratelimit-remaining")).toBe("0")
      expectError(yield* server.request("GET", "/person", { token }), 429, "rate_limited")
    }))

  it.effect("counts every request, errors included, and puts the headers on error responses", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization("errors-count")
      const notFound = expectError(yield* server.request("GET", "/person/unknown", { token }), 404, "not_found")
      expect(notFound.headers.get("x-ratelimit-remaining")).toBe("19")
      const invalid = expectError(yield* server.request("GET", "/person?limit=0", { token }), 400, "invalid_request")
      expect(invalid.headers.get("x-ratelimit-remaining")).toBe("18")
    }))

  it.effect("limits PUT /persons by the bulk bucket too, without blocking other requests", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization("bulk-http")
      const bulk = () => server.request("PUT", "/persons", { token, body: { persons: [{ personId: "nobody", city: "X" }] } })
      for (let i = 0; i < 5; i++) {
        const reply = expectStatus(yield* bulk(), 200)
        expect(reply.headers.get("x-ratelimit-limit")).toBe("5")
        expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(4 - i))
        expect(reply.headers.get("ratelimit-policy")).toBe('"general";q=20;w=14, "bulk";q=5;w=15')
      }
      const limited = expectError(yield* bulk(), 429, "rate_limited")
      expect(limited.headers.get("retry-after")).toBe("3")
      expect(limited.body.message).toBe("Too Many Requests. Retry after 3 seconds.")
      expect(limited.headers.get("x-ratelimit-limit")).toBe("5")
      // the general bucket spent 5 tokens, not 6
      const other = expectStatus(yield* server.request("GET", "/person", { token }), 200)
      expect(other.headers.get("x-ratelimit-remaining")).toBe("14")
    }))

  it.effect("keeps one bucket per access token, whatever organizationSlug says, and a new one per login", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const first = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
      for (let i = 0; i < 20; i++) {
        const headers = i % 2 === 0 ? first.headers : { ...first.headers, organizationSlug: "someone-elses" }
        yield* server.request("GET", "/person", { token: null, headers })
      }
      expectError(yield* server.request("GET", "/person", { token: null, headers: first.headers }), 429, "rate_limited")
      const second = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
      expectStatus(yield* server.request("GET", "/person", { token: null, headers: second.headers }), 200)
    }))

  it.effect("limits requests without valid credentials per client IP, and answers 429 before 401", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      // Logins above drew from this IP's bucket; wait until it is full again.
      yield* TestClock.adjust("1 minute")
      for (let i = 0; i < 20; i++) {
        const reply = i % 2 === 0
          ? yield* server.request("GET", "/person", { token: "cvn_nobody_000000000000000000000000000000" })
          : yield* server.request("POST", "/login", { token: null, body: { email: "x@y.zz", password: "wrong" } })
        expect(reply.status).toBe(401)
      }
      const limited = expectError(yield* server.request("GET", "/person", { token: null }), 429, "rate_limited")
      expect(limited.headers.get("retry-after")).toBe("1")
      expectError(yield* server.request("POST", "/login", { token: null, body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }), 429, "rate_limited")
      // a valid token has its own bucket
      const { token } = yield* server.organization("own-bucket")
      expectStatus(yield* server.request("GET", "/person", { token }), 200)
      // unknown routes are not limited
      expectError(yield* server.request("GET", "/nowhere", { token: null }), 404, "not_found")
    }))

  it.effect("does not limit the operational endpoints", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (let i = 0; i < 30; i++) expectStatus(yield* server.request("GET", "/healthz", { token: null }), 200)
    }))
})
