import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { dashboardClient } from "../support/Dashboard.js"
import { createPerson, expectError, expectStatus, login, uniqueEmail } from "../support/Fixtures.js"
import { makeJumpClock, serverWith } from "../support/JumpClock.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, API_TOKEN, TestServer, testServer } from "../support/TestServer.js"

/** A new member with `role`, added by the bootstrap Super Admin, and logged in. */
const member = (server: TestServer["Type"], role: string) =>
  Effect.gen(function*() {
    const owner = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
    const email = uniqueEmail(role.replace(" ", "").toLowerCase())
    const password = `pw-${email}`
    const reply = yield* server.request("POST", "/member", {
      token: null,
      headers: owner.headers,
      body: { email, password, firstName: "M", lastName: role, role }
    })
    expectStatus(reply, 200)
    return { email, password, userId: reply.body.userId as string, ...(yield* login(server, email, password, "acme")) }
  })

layer(testServer(), { excludeTestServices: true })("authentication", (it) => {
  describe("API tokens", () => {
    it.effect("refuses missing and unknown credentials with 401 and WWW-Authenticate", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        for (const token of [null, "cvn_unknown_token_0000000000000000000000", ""]) {
          const reply = expectError(yield* server.request("GET", "/person", { token }), 401, "unauthorized")
          expect(reply.headers.get("www-authenticate")).toMatch(/ApiKey|Bearer/)
        }
        expectError(yield* server.request("GET", "/person", { token: null, headers: { authorization: "Basic abc" } }), 401, "unauthorized")
        expectError(yield* server.request("GET", "/person", { token: null, headers: { authorization: "Bearer nope" } }), 401, "unauthorized")
      }))

    it.effect("creates tokens shown once, lists them without the secret, and revokes them at once", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const created = expectStatus(yield* server.request("POST", "/api-token", { body: { name: "integration" } }), 200).body
        expect(created.token).toMatch(/^cvn_[A-Za-z0-9_-]{32,}$/)
        expect(created.name).toBe("integration")
        expectStatus(yield* server.request("GET", "/person", { token: created.token }), 200)
        const listed = expectStatus(yield* server.request("GET", "/api-token"), 200)
        expect(listed.text).not.toContain(created.token)
        const entry = listed.body.tokens.find((t: { tokenId: string }) => t.tokenId === created.tokenId)
        expect(entry).toMatchObject({ name: "integration", revokedAt: null })
        expect(typeof entry.lastUsedAt).toBe("string")
        expect(expectStatus(yield* server.request("DELETE", `/api-token/${created.tokenId}`), 200).body).toEqual({ success: true })
        expectError(yield* server.request("GET", "/person", { token: created.token }), 401, "unauthorized")
        const after = (yield* server.request("GET", "/api-token")).body.tokens.find((t: { tokenId: string }) => t.tokenId === created.tokenId)
        expect(typeof after.revokedAt).toBe("string")
        expectError(yield* server.request("DELETE", "/api-token/unknown"), 404, "not_found")
      }))

    it.effect("GET /me with an API token answers Admin with the token's organization", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const me = expectStatus(yield* server.request("GET", "/me"), 200).body
        expect(me).toMatchObject({ firstName: null, lastName: null, email: null, role: "Admin", organizationSlugs: ["acme"] })
      }))
  })

  describe("login and access tokens", () => {
    it.effect("logs in, and the access token works with organizationSlug", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const session = yield* login(server, ADMIN_EMAIL.toUpperCase(), ADMIN_PASSWORD, "acme")
        expect(session.organizationSlugs).toEqual(["acme"])
        expectStatus(yield* server.request("GET", "/person", { token: null, headers: session.headers }), 200)
        const me = expectStatus(yield* server.request("GET", "/me", { token: null, headers: { authorization: session.headers.authorization! } }), 200)
        expect(me.body).toMatchObject({ email: ADMIN_EMAIL, role: "Super Admin", organizationSlugs: ["acme"] })
        const second = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD)
        expect(second.accessToken).not.toBe(session.accessToken)
      }))

    it.effect("refuses wrong passwords and unknown emails alike with 401", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const wrong = yield* server.request("POST", "/login", { token: null, body: { email: ADMIN_EMAIL, password: "nope" } })
        const unknown = yield* server.request("POST", "/login", { token: null, body: { email: "nobody@acme.test", password: "nope" } })
        expectError(wrong, 401, "unauthorized")
        expectError(unknown, 401, "unauthorized")
        expect(wrong.body.message).toBe(unknown.body.message)
        expectError(yield* server.request("POST", "/login", { token: null, body: { email: ADMIN_EMAIL } }), 400, "invalid_request")
      }))

    it.effect("needs organizationSlug with a Bearer token (400) and membership of it (403)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        yield* server.organization("elsewhere")
        const session = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD)
        const bearer = { authorization: session.headers.authorization! }
        expectError(yield* server.request("GET", "/person", { token: null, headers: bearer }), 400, "invalid_request")
        expectError(yield* server.request("GET", "/person", { token: null, headers: { ...bearer, organizationSlug: "elsewhere" } }), 403, "forbidden")
        expectError(yield* server.request("GET", "/person", { token: null, headers: { ...bearer, organizationSlug: "nope" } }), 403, "forbidden")
      }))

    it.effect("lets x-api-key win over Authorization when both are sent", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const session = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
        expectStatus(yield* server.request("GET", "/person", { token: API_TOKEN, headers: { authorization: "Bearer invalid" } }), 200)
        expectError(yield* server.request("GET", "/person", { token: "cvn_wrong_000000000000000000000000000000", headers: session.headers }), 401, "unauthorized")
      }))
  })

  describe("roles", () => {
    it.effect("Viewer reads only; Team Member writes persons; Admin manages fields and tokens; Super Admin members", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const viewer = yield* member(server, "Viewer")
        const teamMember = yield* member(server, "Team Member")
        const admin = yield* member(server, "Admin")
        const as = (who: { headers: Record<string, string> }) => ({ token: null, headers: who.headers })
        const personBody = () => ({ firstName: "R", lastName: "S", email: uniqueEmail("roles") })

        expectStatus(yield* server.request("GET", "/person", as(viewer)), 200)
        expectStatus(yield* server.request("GET", "/custom-field", as(viewer)), 200)
        expectError(yield* server.request("POST", "/person", { ...as(viewer), body: personBody() }), 403, "forbidden")
        const id = yield* createPerson(server)
        expectError(yield* server.request("PUT", `/person/${id}`, { ...as(viewer), body: { personId: id, city: "X" } }), 403, "forbidden")
        expectError(yield* server.request("DELETE", `/person/${id}`, as(viewer)), 403, "forbidden")

        expectStatus(yield* server.request("POST", "/person", { ...as(teamMember), body: personBody() }), 201)
        expectStatus(yield* server.request("PUT", `/person/${id}`, { ...as(teamMember), body: { personId: id, city: "Y" } }), 200)
        expectError(yield* server.request("POST", "/custom-field", { ...as(teamMember), body: { fieldName: "F", fieldType: "text" } }), 403, "forbidden")
        expectError(yield* server.request("POST", "/api-token", { ...as(teamMember), body: { name: "t" } }), 403, "forbidden")
        expectError(yield* server.request("GET", "/member", as(teamMember)), 403, "forbidden")

        expectStatus(yield* server.request("POST", "/custom-field", { ...as(admin), body: { fieldName: "Admin Field", fieldType: "text" } }), 200)
        expectStatus(yield* server.request("GET", "/member", as(admin)), 200)
        expectStatus(yield* server.request("POST", "/api-token", { ...as(admin), body: { name: "t" } }), 200)
        expectError(
          yield* server.request("POST", "/member", { ...as(admin), body: { email: uniqueEmail(), password: "long enough", role: "Viewer" } }),
          403,
          "forbidden"
        )
        // An API token acts as Admin: it cannot manage members either.
        expectError(
          yield* server.request("POST", "/member", { body: { email: uniqueEmail(), password: "long enough", role: "Viewer" } }),
          403,
          "forbidden"
        )
      }))

    it.effect("checks the role before validating the body (403 before 400)", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const viewer = yield* member(server, "Viewer")
        expectError(yield* server.request("POST", "/person", { token: null, headers: viewer.headers, body: { nonsense: true } }), 403, "forbidden")
        expectError(yield* server.request("POST", "/person", { token: null, body: { nonsense: true } }), 401, "unauthorized")
      }))
  })

  describe("members", () => {
    it.effect("adds members, refuses duplicates, and keeps an existing user's password", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const session = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
        const as = { token: null, headers: session.headers }
        const email = uniqueEmail("member")
        const added = expectStatus(
          yield* server.request("POST", "/member", { ...as, body: { email, password: "first password", firstName: "Mem", lastName: "Ber", role: "Team Member" } }),
          200
        ).body
        expect(typeof added.userId).toBe("string")
        expectError(yield* server.request("POST", "/member", { ...as, body: { email, password: "other password", role: "Viewer" } }), 409, "conflict")
        expectError(yield* server.request("POST", "/member", { ...as, body: { email: uniqueEmail(), password: "short", role: "Viewer" } }), 400, "invalid_request")
        expectError(yield* server.request("POST", "/member", { ...as, body: { email: uniqueEmail(), password: "long enough", role: "Owner" } }), 400, "invalid_request")
        const members = expectStatus(yield* server.request("GET", "/member", as), 200).body.members
        expect(members.find((m: { email: string }) => m.email === email)).toMatchObject({ userId: added.userId, firstName: "Mem", lastName: "Ber", role: "Team Member" })

      }))
  })
})

/**
 * The servers below run on a clock that stands still but for the test's jumps (support/JumpClock.ts):
 * times compare to the second, as under TestClock, and a jump of 15 minutes costs nothing (moving
 * a TestClock runs every background pass of the server in between, one by one: seconds of real time).
 * A sign-in's lock is judged at the request, from the clock: nothing in the background has to run.
 */
const stillServer = (env: Record<string, string>) => {
  const clock = makeJumpClock({ still: true })
  return { jump: clock.advance, server: testServer(env).pipe(Layer.provide(serverWith(clock))) }
}

const limits = stillServer({ ACCESS_TOKEN_TTL: "2 minutes" })
layer(limits.server, { excludeTestServices: true })("login limits (a clock the test moves)", (it) => {
  it.effect("locks an email after 10 failures within 15 minutes, even for the right password", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const attempt = (password: string) =>
        server.request("POST", "/login", { token: null, body: { email: ADMIN_EMAIL, password }, headers: { "x-forwarded-for": "ignored" } })
      for (let i = 1; i <= 10; i++) expectError(yield* attempt(`wrong-${i}`), 401, "unauthorized")
      const locked = expectError(yield* attempt(ADMIN_PASSWORD), 429, "rate_limited")
      const retryAfter = Number(locked.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(15 * 60)
      expect(locked.body.message).toBe(`Too Many Requests. Retry after ${retryAfter} seconds.`)
      // the lock is per email
      const other = yield* server.request("POST", "/login", { token: null, body: { email: "someone@acme.test", password: "x" } })
      expectError(other, 401, "unauthorized")
      yield* limits.jump("15 minutes")
      expectStatus(yield* attempt(ADMIN_PASSWORD), 200)
    }))

  it.effect("refuses an expired access token at once", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const session = yield* login(server, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
      expectStatus(yield* server.request("GET", "/person", { token: null, headers: session.headers }), 200)
      yield* limits.jump("119 seconds")
      expectStatus(yield* server.request("GET", "/person", { token: null, headers: session.headers }), 200)
      yield* limits.jump("2 seconds")
      expectError(yield* server.request("GET", "/person", { token: null, headers: session.headers }), 401, "unauthorized")
    }))
})

// client addresses from X-Forwarded-For, believed from the test's own address (TRUSTED_PROXIES)
const lockout = stillServer({ TRUSTED_PROXIES: "127.0.0.1" })
layer(lockout.server, { excludeTestServices: true })("login lockout per client address (a clock the test moves)", (it) => {
  const loginFrom = (server: TestServer["Type"], address: string | undefined, email: string, password: string) =>
    server.request("POST", "/login", {
      token: null,
      body: { email, password },
      headers: address === undefined ? {} : { "x-forwarded-for": address }
    })

  it.effect("a stranger's 10 failures lock out the stranger's address only: the owner signs in from theirs", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      for (let i = 1; i <= 10; i++) expectError(yield* loginFrom(server, "203.0.113.9", ADMIN_EMAIL, `guess-${i}`), 401, "unauthorized")
      const locked = expectError(yield* loginFrom(server, "203.0.113.9", ADMIN_EMAIL, ADMIN_PASSWORD), 429, "rate_limited")
      expect(locked.headers.get("retry-after")).toBe(String(15 * 60))
      expect(locked.body.message).toBe(`Too Many Requests. Retry after ${15 * 60} seconds.`)
      expectStatus(yield* loginFrom(server, "198.51.100.7", ADMIN_EMAIL, ADMIN_PASSWORD), 200)

      // an IPv6 client counts as its /64
      for (let i = 1; i <= 10; i++) expectError(yield* loginFrom(server, `2001:db8:1:2::${i}`, ADMIN_EMAIL, `guess-${i}`), 401, "unauthorized")
      expectError(yield* loginFrom(server, "2001:db8:1:2:ffff:ffff:ffff:ffff", ADMIN_EMAIL, ADMIN_PASSWORD), 429, "rate_limited")
      expectStatus(yield* loginFrom(server, "2001:db8:1:3::1", ADMIN_EMAIL, ADMIN_PASSWORD), 200)

      // the dashboard's sign-in shares the count of its address (here the test's own, no header)
      for (let i = 1; i <= 10; i++) expectError(yield* loginFrom(server, undefined, ADMIN_EMAIL, `guess-${i}`), 401, "unauthorized")
      const dashboard = yield* dashboardClient(server.url, { origin: "https://convene.test" }).signIn({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
      expect(dashboard.status).toBe(429)
      expect(dashboard.headers.get("retry-after")).toBe(String(15 * 60))
      expectStatus(yield* loginFrom(server, "198.51.100.7", ADMIN_EMAIL, ADMIN_PASSWORD), 200)
    }))

  it.effect("100 failures for one email from many addresses lock it everywhere, until the window has passed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      // from an address of their own (the test's is locked for them by the test before)
      const owner = expectStatus(yield* loginFrom(server, "198.51.100.7", ADMIN_EMAIL, ADMIN_PASSWORD), 200).body.accessToken as string
      const email = uniqueEmail("targeted")
      const password = "the right password"
      expectStatus(
        yield* server.request("POST", "/member", {
          token: null,
          headers: { authorization: `Bearer ${owner}`, organizationSlug: "acme" },
          body: { email, password, role: "Viewer" }
        }),
        200
      )
      // 99 failures from ten addresses, none of them locked for more than itself; the addresses at
      // once, each its failures in turn (a failure's scrypt takes tens of milliseconds: 99 in turn
      // took seconds), as an attack from many addresses would come
      yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i + 1), (a) =>
        Effect.gen(function*() {
          for (let i = 1; i <= (a === 10 ? 9 : 10); i++) {
            expectError(yield* loginFrom(server, `192.0.2.${a}`, email, `guess-${i}`), 401, "unauthorized")
          }
        }), { concurrency: "unbounded", discard: true })
      expectStatus(yield* loginFrom(server, "198.51.100.50", email, password), 200)
      // the hundredth: locked from everywhere, a new address and the right password included
      expectError(yield* loginFrom(server, "192.0.2.10", email, "guess-10"), 401, "unauthorized")
      const locked = expectError(yield* loginFrom(server, "198.51.100.51", email, password), 429, "rate_limited")
      expect(locked.headers.get("retry-after")).toBe(String(15 * 60))
      expectError(yield* loginFrom(server, "198.51.100.50", email, password), 429, "rate_limited")
      yield* lockout.jump("15 minutes")
      expectStatus(yield* loginFrom(server, "198.51.100.51", email, password), 200)
    }), 120_000)
})
