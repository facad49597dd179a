import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { cli, service } from "../support/Cli.js"
import { expectError, expectStatus, login } from "../support/Fixtures.js"
import { TestServer, liveServer } from "../support/TestServer.js"

layer(liveServer(), { excludeTestServices: true })("admin CLI", (it) => {
  it.effect("creates organizations, members and tokens that the running server accepts, and revokes them", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const env = { ...server.databaseEnv, LOG_LEVEL: "None" }

      const org = yield* cli(env, "org", "create", "--slug", "globex", "--name", "Globex")
      expect(org.code, org.stderr).toBe(0)
      expect((yield* cli(env, "org", "create", "--slug", "globex", "--name", "Again")).code).toBe(1)

      const added = yield* cli(env, "member", "add", "--org", "globex", "--email", "hank@globex.test", "--password", "first-password", "--role", "Admin", "--first-name", "Hank")
      expect(added.code, added.stderr).toBe(0)
      // an existing user added to a second organization keeps their password
      const again = yield* cli(env, "member", "add", "--org", "acme", "--email", "HANK@globex.test", "--password", "other-password", "--role", "Viewer")
      expect(again.code, again.stderr).toBe(0)
      const session = yield* login(server, "hank@globex.test", "first-password", "globex")
      expect(session.organizationSlugs).toEqual(["acme", "globex"])
      expectError(yield* server.request("POST", "/login", { token: null, body: { email: "hank@globex.test", password: "other-password" } }), 401, "unauthorized")
      const members = yield* cli(env, "member", "list", "--org", "globex")
      expect(members.stdout).toContain("hank@globex.test")

      const created = yield* cli(env, "token", "create", "--org", "globex", "--name", "ci")
      expect(created.code, created.stderr).toBe(0)
      const token = created.stdout.match(/cvn_[A-Za-z0-9_-]{32,}/)?.[0]
      expect(token).toBeDefined()
      const tokenId = created.stdout.match(/Token ([0-9a-f-]{36})/)?.[1]
      expectStatus(yield* server.request("POST", "/person", { token: token!, body: { firstName: "G", lastName: "X", email: "g@globex.test" } }), 201)
      const listed = yield* cli(env, "token", "list", "--org", "globex")
      expect(listed.stdout).toContain(tokenId)
      expect(listed.stdout).not.toContain(token)

      const revoked = yield* cli(env, "token", "revoke", "--org", "globex", tokenId!)
      expect(revoked.code, revoked.stderr).toBe(0)
      expectError(yield* server.request("GET", "/person", { token: token! }), 401, "unauthorized")
      const unknown = yield* cli(env, "token", "revoke", "--org", "globex", "nope")
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toContain("not found")
    }), 60_000)

  it.effect("stops with one clear line on a bad configuration value", () =>
    Effect.gen(function*() {
      const result = yield* cli({ DATABASE_PATH: "/tmp/unused.db", RATE_LIMIT_BURST: "lots" }, "token", "list", "--org", "acme")
      expect(result.code).toBe(1)
      expect(result.stderr.trim()).toBe('convene: invalid configuration: RATE_LIMIT_BURST must be an integer from 1 to 1000000 (got "lots")')
    }), 30_000)

  it.effect("the service stops with one clear line when it cannot open its database or its port", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const base = { LOG_LEVEL: "Error", HOST: "127.0.0.1", PORT: "0" }
      const folder = yield* service({ ...base, DATABASE_PATH: "/dev/null/convene/convene.db" })
      expect(folder.code).toBe(1)
      expect(folder.stderr.trim()).toMatch(/^convene: cannot open the database at \/dev\/null\/convene\/convene\.db: .+$/)
      const port = new URL(server.url).port
      const busy = yield* service({ ...base, ...server.databaseEnv, PORT: port })
      expect(busy.code).toBe(1)
      expect(busy.stderr.trim()).toBe(`convene: cannot listen on 127.0.0.1:${port}: EADDRINUSE: address already in use 127.0.0.1:${port}`)
    }), 60_000)
})
