/**
 * The service as it is deployed: behind a reverse proxy (trusted forwarding headers, a path
 * prefix), under clients that send too much or go away, and on a database file that an operator
 * deletes by mistake.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { configFrom, send, temporaryDirectory, testEnvironment, TestServer, testServer } from "../support/TestServer.js"
import { createEvent, createPerson, expectError, expectStatus } from "../support/Fixtures.js"
import { startServer } from "../support/Process.js"
import { onPostgres } from "../support/Engine.js"
import { rateKeyOf } from "../../src/Http/ClientAddress.js"

const lines = (output: string) =>
  output.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { message: string; logLevel: string; annotations: Record<string, unknown> })

/** Sends `bytes` of body in chunks without Content-Length; resolves with the status and body the server answered. */
const postChunked = (url: string, path: string, bytes: number, headers: Record<string, string>) =>
  Effect.async<{ status: number; body: string }, Error>((resume) => {
    const target = new URL(path, url)
    const req = httpRequest(target, { method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => (body += c))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body })))
    })
    req.on("error", (error) => resume(Effect.fail(error)))
    const chunk = Buffer.alloc(64 * 1024, "a")
    let sent = 0
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once("drain", pump)
      }
      req.end()
    }
    req.write(`{"firstName":"`)
    pump()
  })

describe("deployment", () => {
  it.scopedLive("a chunked body over 1 MiB gets a 413 in the error shape, logged; a client that goes away is logged 499", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const server = yield* startServer({ ...testEnvironment(join(dir, "convene.db")), LOG_LEVEL: "Info" })
      const api = send(server.url)
      const reply = yield* postChunked(server.url, "/person", 2 * 1024 * 1024, { "x-api-key": testEnvironment("")["BOOTSTRAP_API_TOKEN"]!, "x-request-id": "too-big" })
      expect(reply.status).toBe(413)
      expect(JSON.parse(reply.body)).toEqual({ message: "The request body is over 1048576 bytes", code: "payload_too_large" })
      // just under the limit is read (and refused by the schema, not by size)
      const under = yield* postChunked(server.url, "/person", 900 * 1024, { "x-api-key": testEnvironment("")["BOOTSTRAP_API_TOKEN"]! })
      expect(under.status).toBe(400)
      // the server still serves after both
      expectStatus(yield* api("GET", "/person"), 200)

      // a client that sends part of a body and hangs up
      yield* Effect.async<void>((resume) => {
        const req = httpRequest(new URL("/person", server.url), {
          method: "POST",
          headers: { "content-type": "application/json", "content-length": "1000", "x-api-key": testEnvironment("")["BOOTSTRAP_API_TOKEN"]!, "x-request-id": "gone-away" }
        })
        req.on("error", () => resume(Effect.void))
        req.write(`{"firstName":"Ada",`)
        setTimeout(() => {
          req.destroy()
          resume(Effect.void)
        }, 200)
      })
      yield* Effect.sleep("300 millis")
      yield* server.kill("SIGTERM")
      const requests = lines(server.output()).filter((l) => l.message === "request")
      expect(requests.find((l) => l.annotations["requestId"] === "too-big")?.annotations["status"]).toBe(413)
      expect(requests.find((l) => l.annotations["requestId"] === "gone-away")?.annotations["status"]).toBe(499)
      expect(lines(server.output()).filter((l) => l.logLevel === "ERROR")).toEqual([])
    }), 60_000)

  // SQLite's file; a PostgreSQL database has no file in the service's hands
  it.scopedLive.skipIf(onPostgres)("notices when its database file is deleted: /readyz 503, writes refused, one Error line", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const databasePath = join(dir, "convene.db")
      const server = yield* startServer({ ...testEnvironment(databasePath), LOG_LEVEL: "Info" })
      const api = send(server.url)
      expectStatus(yield* api("GET", "/readyz", { token: null }), 200)
      expectStatus(yield* api("POST", "/person", { body: { firstName: "Before", lastName: "Delete", email: "before@example.com" } }), 201)
      rmSync(databasePath)
      rmSync(`${databasePath}-wal`, { force: true })
      rmSync(`${databasePath}-shm`, { force: true })
      // at once for /readyz (it checks the file itself); within the watch interval for writes
      expectError(yield* api("GET", "/readyz", { token: null }), 503, "unavailable")
      yield* Effect.sleep("1500 millis")
      const write = yield* api("POST", "/person", { body: { firstName: "After", lastName: "Delete", email: "after@example.com" } })
      expectError(write, 503, "unavailable")
      expect(write.body.message).toContain("was deleted")
      expectError(yield* api("PATCH", "/event/whatever", { body: { name: "x" } }), 503, "unavailable")
      yield* server.kill("SIGTERM")
      const errors = lines(server.output()).filter((l) => l.logLevel === "ERROR")
      expect(errors).toHaveLength(1)
      expect(errors[0]!.message).toContain(`The database file ${databasePath} was deleted`)
    }), 60_000)
})

describe("behind a reverse proxy", () => {
  layer(testServer({ TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8", RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_SECOND: "0.01" }), { excludeTestServices: true })("trusted", (it) => {
    it.effect("each client behind a trusted proxy has its own bucket; the right-most untrusted address counts", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const as = (forwardedFor: string) => ({ token: null, headers: { "x-forwarded-for": forwardedFor } })
        // 3 requests each for 5 guests behind the proxy: none is limited
        for (let guest = 1; guest <= 5; guest++) {
          for (let i = 0; i < 3; i++) expectStatus(yield* server.request("GET", "/person", as(`203.0.113.${guest}`)), 401)
        }
        expectError(yield* server.request("GET", "/person", as("203.0.113.1")), 429, "rate_limited")
        // a client that prepends a made-up address is still itself: the proxy appended its real one
        expectError(yield* server.request("GET", "/person", as("198.51.100.77, 203.0.113.2")), 429, "rate_limited")
        // a chain of trusted proxies is walked through to the client
        expectError(yield* server.request("GET", "/person", as("203.0.113.3, 10.1.2.3")), 429, "rate_limited")
        expectStatus(yield* server.request("GET", "/person", as("203.0.113.9, 10.1.2.3")), 401)
        // garbage where an address should be: the last good hop (here the proxy itself) counts
        const garbage = yield* server.request("GET", "/person", as("not-an-ip"))
        expect([401, 429]).toContain(garbage.status)
      }))

    it.effect("IPv6 clients share a bucket per /64: a new address of the same block is not a new bucket", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const as = (forwardedFor: string) => ({ token: null, headers: { "x-forwarded-for": forwardedFor } })
        for (let i = 1; i <= 3; i++) expectStatus(yield* server.request("GET", "/person", as(`2001:db8:1:2::${i}`)), 401)
        expectError(yield* server.request("GET", "/person", as("2001:db8:1:2:ffff:1:2:3")), 429, "rate_limited")
        expectError(yield* server.request("GET", "/person", as("[2001:0DB8:0001:0002:0000:0000:0000:0abc]")), 429, "rate_limited")
        // the next /64 is another client
        expectStatus(yield* server.request("GET", "/person", as("2001:db8:1:3::1")), 401)
      }))
  })

  layer(testServer({ RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_SECOND: "0.01" }), { excludeTestServices: true })("untrusted", (it) => {
    it.effect("without TRUSTED_PROXIES, X-Forwarded-For changes nothing: one bucket for the connection's address", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        for (let i = 0; i < 3; i++) {
          expectStatus(yield* server.request("GET", "/person", { token: null, headers: { "x-forwarded-for": `203.0.113.${i}` } }), 401)
        }
        expectError(yield* server.request("GET", "/person", { token: null, headers: { "x-forwarded-for": "203.0.113.200" } }), 429, "rate_limited")
      }))
  })

  it.effect("refuses a bad TRUSTED_PROXIES or PUBLIC_BASE_URL at start with a line naming it", () =>
    Effect.gen(function*() {
      const bad = (env: Record<string, string>) =>
        configFrom({ ...testEnvironment("/tmp/x.db"), ...env }).pipe(Effect.flip, Effect.catchAllDefect((d) => Effect.succeed(String(d))), Effect.map(String))
      expect(yield* bad({ TRUSTED_PROXIES: "10.0.0.0/33" })).toContain("TRUSTED_PROXIES")
      expect(yield* bad({ TRUSTED_PROXIES: "proxy.local" })).toContain("TRUSTED_PROXIES")
      expect(yield* bad({ PUBLIC_BASE_URL: "https://example.org/person/x" })).toContain("PUBLIC_BASE_URL")
      expect(yield* bad({ PUBLIC_BASE_URL: "https://example.org/x?y=1" })).toContain("PUBLIC_BASE_URL")
    }))

  layer(testServer({ PUBLIC_BASE_URL: "https://convene.test/events" }), { excludeTestServices: true })("under a path prefix", (it) => {
    it.effect("honours PUBLIC_BASE_URL's path in links, forms, redirects, cookies and routing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const event = yield* createEvent(server, { primarySlug: `prefixed-${process.pid}` })
        const personId = yield* createPerson(server)
        expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, { body: { guests: [{ personId }] } }), 200)
        const link = (yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${personId}&generateRsvpLinks=true`)).body.guests[0].rsvpLink as string
        expect(link).toMatch(new RegExp(`^https://convene\\.test/events/rsvp/prefixed-${process.pid}\\?invite=`))
        const { pathname, search } = new URL(link)
        // the proxy may pass the prefix on, or strip it: both reach the page
        for (const path of [pathname, pathname.replace(/^\/events/, "")]) {
          const page = yield* Effect.promise(() => fetch(server.url + path + search))
          expect(page.status).toBe(200)
          const html = yield* Effect.promise(() => page.text())
          expect(html).toContain(`action="/events/rsvp/prefixed-${process.pid}?invite=`)
          expect(page.headers.get("set-cookie")).toMatch(/Path=\/events\/rsvp/)
          expect(page.headers.get("set-cookie")).toMatch(/Secure/)
        }
        const page = yield* Effect.promise(() => fetch(server.url + pathname + search))
        const cookie = page.headers.get("set-cookie")!.split(";")[0]!
        const csrf = /name="csrf" value="([^"]+)"/.exec(yield* Effect.promise(() => page.text()))![1]!
        const post = (origin: string) =>
          Effect.promise(() =>
            fetch(server.url + pathname + search, {
              method: "POST",
              redirect: "manual",
              headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin },
              body: `rsvpStatus=Accepted&csrf=${csrf}`
            })
          )
        // a malformed Origin is a refused form, not a server error
        for (const origin of ["::::not a url", "null", "https://evil.example", "javascript:alert(1)"]) {
          const refused = yield* post(origin)
          expect(refused.status).toBe(403)
          expect(yield* Effect.promise(() => refused.text())).toContain("This form expired or came from another site")
        }
        // the public origin matches by origin alone (the prefix is a path, not part of an origin)
        const ok = yield* post("https://convene.test")
        expect(ok.status).toBe(303)
        expect(ok.headers.get("location")).toBe(`/events/rsvp/prefixed-${process.pid}${search}&saved=1`)
        // the API works with and without the prefix too; /events itself stays the events list
        expectStatus(yield* server.request("GET", `/events/event/${event.eventId}`), 200)
        expect(expectStatus(yield* server.request("GET", "/events"), 200).body.events).toBeDefined()
      }))
  })
})

describe("rate-limit keys of client addresses", () => {
  it("keeps an IPv4 address its own, and puts an IPv6 address with its /64 however it is written", () => {
    expect(rateKeyOf("203.0.113.9")).toBe("ip:203.0.113.9")
    expect(rateKeyOf("2001:db8:1:2::1")).toBe("ip:2001:db8:1:2::/64")
    expect(rateKeyOf("2001:0DB8:0001:0002:ffff:0:0:1")).toBe("ip:2001:db8:1:2::/64")
    expect(rateKeyOf("2001:db8::1")).toBe("ip:2001:db8:0:0::/64")
    expect(rateKeyOf("::1")).toBe("ip:0:0:0:0::/64")
    expect(rateKeyOf("fe80::1%eth0")).toBe("ip:fe80:0:0:0::/64")
    expect(rateKeyOf("64:ff9b::203.0.113.9")).toBe("ip:64:ff9b:0:0::/64")
    expect(rateKeyOf("unknown")).toBe("ip:unknown")
  })
})
