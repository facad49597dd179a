/**
 * Members and the operator's tools, across processes (moved from test/api/members.test.ts, which
 * holds the rest: these run the admin CLI or the service as processes): a squatted account taken
 * back by the operator in the middle of a cross-organization takeover; the CLI adding users
 * directly, changing roles, removing members and recovering an account on the database of a
 * running server; and the server's own log lines, which never hold an invitation link's token.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { loggedPath } from "../../src/Http/RequestLifecycle.js"
import { cli } from "../support/Cli.js"
import { signIn } from "../support/Dashboard.js"
import { createPerson, expectError, expectStatus, login } from "../support/Fixtures.js"
import { startServer } from "../support/Process.js"
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  API_TOKEN,
  send,
  temporaryDirectory,
  testEnvironment,
  TestServer,
  testServer
} from "../support/TestServer.js"
import {
  accept,
  type Account,
  addMember,
  altered,
  as,
  existingUser,
  guessedToken,
  view,
  loginStatus,
  membersOf,
  next,
  operator,
  organization,
  passwordHashOf,
  tokenOf
} from "../support/Members.js"

// the operator recovers the squatted account with the admin CLI in the middle of it
layer(testServer(), { excludeTestServices: true })("members", (it) => {
  describe("cross-organization takeover", () => {
    it.effect("B squatting A's CEO's email finds nothing to accept without the link; the link's holder, signed in as the user, joins A", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* organization("a")
        const b = yield* organization("b")
        const secret = yield* createPerson(server, { firstName: "Only", lastName: "A's" }, a.token)
        const ceo = { email: `ceo-${next()}@a.example`, password: "password chosen by B" }

        // B adds the email first, while it is new to the instance: a user with B's password
        const byB = expectStatus(yield* addMember(server, b, { ...ceo, firstName: "Set", lastName: "ByB", role: "Viewer" }), 200)
        expect(Object.keys(byB.body)).toEqual(["userId"])
        const hashBefore = yield* passwordHashOf(server, ceo.email)

        // A adds the same email (any case) with a password of its own: only an invitation, whose
        // link goes to A's admin alone
        const byA = expectStatus(
          yield* addMember(server, a, { email: ceo.email.toUpperCase(), password: "password chosen by A", role: "Admin" }),
          202
        )
        expect(Object.keys(byA.body).sort()).toEqual(["expiresAt", "inviteUrl", "status"])
        expect(byA.body.status).toBe("invited")
        expect(byA.body.inviteUrl).toMatch(/^https:\/\/convene\.test\/app\/invitations\/cvi_[A-Za-z0-9_-]{43}$/)
        const days = (Date.parse(byA.body.expiresAt) - Date.now()) / 86_400_000
        expect(days).toBeGreaterThan(6.99)
        expect(days).toBeLessThanOrEqual(7)
        const link = tokenOf(byA)

        // A's password was neither stored nor made to work; the user's password is unchanged
        expect(yield* passwordHashOf(server, ceo.email)).toBe(hashBefore)
        expect(yield* loginStatus(server, ceo.email, "password chosen by A")).toBe(401)

        // B signs in as the user it created. Without the link there is nothing to find or take:
        const asCeo = yield* as(server, ceo)
        const me = expectStatus(yield* server.request("GET", "/me", asCeo), 200).body
        expect(me.organizationSlugs).toEqual([b.slug])
        expect(JSON.stringify(me)).not.toContain(a.slug)
        // - the routes that listed an account's invitations and accepted one by id are gone (unknown routes)
        const invitationId = (yield* membersOf(server, a)).find((m) => m["email"] === ceo.email)!["invitationId"] as string
        expectError(yield* server.request("GET", "/me/invitations", asCeo), 404, "not_found")
        expectError(yield* server.request("POST", `/me/invitations/${invitationId}/accept`, asCeo), 404, "not_found")
        // - the invitation's id, a guessed token, or the link altered or cut, is no link
        const notTheLink = [invitationId, guessedToken(), altered(link), link.slice(0, -1), link.slice(4), link.toLowerCase()]
        for (const token of notTheLink.filter((t) => t !== link)) {
          expectError(yield* server.request("GET", `/member/invitations/${token}`, asCeo), 404, "not_found")
          expectError(yield* server.request("POST", `/member/invitations/${token}/accept`, asCeo), 404, "not_found")
        }
        // - A's data stays out of reach: for this account, for B's owner and for B's token
        expectError(yield* server.request("GET", "/person", yield* as(server, ceo, a.slug)), 403, "forbidden")
        expectError(yield* server.request("GET", `/person/${secret}`, yield* as(server, ceo, a.slug)), 403, "forbidden")
        const bOwnerInA = { token: null, headers: { ...(yield* as(server, b.owner)).headers, organizationSlug: a.slug } }
        expectError(yield* server.request("GET", "/person", bOwnerInA), 403, "forbidden")
        expectError(yield* server.request("GET", `/person/${secret}`, { token: b.token }), 404, "not_found")
        expect((yield* login(server, ceo.email, ceo.password)).organizationSlugs).toEqual([b.slug])

        // A sees the invitation pending (none of that used it), without the names B stored for the user
        const listed = (yield* membersOf(server, a)).find((m) => m["email"] === ceo.email)
        expect(listed).toMatchObject({ status: "invited", role: "Admin", firstName: null, lastName: null, expiresAt: byA.body.expiresAt })
        expect((yield* membersOf(server, b)).find((m) => m["email"] === ceo.email)).toMatchObject({ status: "active", role: "Viewer" })

        // The real CEO gets the link from A, and the account back from the operator (its password
        // was B's choice): every sign-in made with the old password ends
        const recovered = yield* operator(server, "user", "set-password", "--email", ceo.email, "--password", "the CEO's own password")
        expect(recovered.code, recovered.stderr).toBe(0)
        expectError(yield* server.request("GET", "/me", asCeo), 401, "unauthorized")
        expect(yield* loginStatus(server, ceo.email, ceo.password)).toBe(401)
        const realCeo = { email: ceo.email, password: "the CEO's own password" }

        // the holder of the link, signed in as the invited user, sees what it offers and accepts it
        const offer = expectStatus(yield* view(server, realCeo, link), 200)
        expect(offer.body).toEqual({ organizationSlug: a.slug, organizationName: a.slug, role: "Admin", email: ceo.email, expiresAt: byA.body.expiresAt })
        const accepted = expectStatus(yield* accept(server, realCeo, link), 200)
        expect(accepted.body).toEqual({ organizationSlug: a.slug, role: "Admin" })
        const inA = expectStatus(yield* server.request("GET", `/person/${secret}`, yield* as(server, realCeo, a.slug)), 200)
        expect(inA.body.personId).toBe(secret)
        expect((yield* login(server, realCeo.email, realCeo.password)).organizationSlugs.sort()).toEqual([a.slug, b.slug].sort())
        expect((yield* membersOf(server, a)).find((m) => m["email"] === ceo.email)).toMatchObject({ status: "active", role: "Admin" })
        // the link is used up
        expectError(yield* view(server, realCeo, link), 404, "not_found")
        expectError(yield* accept(server, realCeo, link), 404, "not_found")

        // B itself still reaches nothing of A's
        expectError(yield* server.request("GET", "/person", bOwnerInA), 403, "forbidden")
        expectError(yield* server.request("GET", `/person/${secret}`, { token: b.token }), 404, "not_found")
        expect(yield* loginStatus(server, ceo.email, "password chosen by A")).toBe(401)
      }), 60_000)

  })
})

describe("admin CLI", () => {
  layer(testServer(), { excludeTestServices: true })("member commands", (it) => {
    it.effect("adds an existing user directly (the operator's right), changes roles and removes, keeping the last Super Admin", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* organization("a")
        const user = yield* existingUser("cli")
        const env = { ...server.databaseEnv, LOG_LEVEL: "None" }
        const added = yield* cli(env, "member", "add", "--org", a.slug, "--email", user.email, "--role", "Viewer")
        expect(added.code, added.stderr).toBe(0)
        expect(added.stdout).toContain("existing user, added directly; their password is unchanged")
        expect((yield* login(server, user.email, user.password)).organizationSlugs.sort()).toEqual([a.slug, user.home.slug].sort())
        const missing = yield* cli(env, "member", "add", "--org", a.slug, "--email", `nobody-${next()}@a.example`, "--role", "Viewer")
        expect(missing.code).toBe(1)
        expect(missing.stderr).toContain("--password is required for a new user")

        expect((yield* cli(env, "member", "role", "--org", a.slug, "--role", "Admin", user.userId)).code).toBe(0)
        expect((yield* membersOf(server, a)).find((m) => m["userId"] === user.userId)).toMatchObject({ role: "Admin" })
        const demote = yield* cli(env, "member", "role", "--org", a.slug, "--role", "Viewer", a.owner.userId)
        expect(demote.code).toBe(1)
        expect(demote.stderr).toContain("last Super Admin")
        expect((yield* cli(env, "member", "remove", "--org", a.slug, user.userId)).code).toBe(0)
        expect((yield* login(server, user.email, user.password)).organizationSlugs).toEqual([user.home.slug])
      }), 60_000)

    it.effect("user set-password: the operator's recovery of an account ends its sign-ins and never prints the password", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const user = yield* existingUser("recover")
        const first = yield* as(server, user)
        const second = yield* as(server, user, user.home.slug)
        const hashBefore = yield* passwordHashOf(server, user.email)

        const short = yield* operator(server, "user", "set-password", "--email", user.email, "--password", "short")
        expect(short.code).toBe(1)
        expect(short.stderr).toContain("--password must be at least 8 characters")
        const nobody = yield* operator(server, "user", "set-password", "--email", `nobody-${next()}@a.example`, "--password", "long enough")
        expect(nobody.code).toBe(1)
        expect(nobody.stderr).toContain("No user has the email")
        expect(yield* passwordHashOf(server, user.email)).toBe(hashBefore)
        expectStatus(yield* server.request("GET", "/me", first), 200)

        const newPassword = `recovered password ${next()}`
        const done = yield* operator(server, "user", "set-password", "--email", user.email.toUpperCase(), "--password", newPassword)
        expect(done.code, done.stderr).toBe(0)
        expect(done.stdout.trim().split("\n")).toEqual([`Password of ${user.email} (user ${user.userId}) replaced; 2 access token(s) ended`])
        expect(done.stdout + done.stderr).not.toContain(newPassword)
        // every sign-in made before ends at once; the old password is refused, the new one works
        expectError(yield* server.request("GET", "/me", first), 401, "unauthorized")
        expectError(yield* server.request("GET", "/person", second), 401, "unauthorized")
        expect(yield* loginStatus(server, user.email, user.password)).toBe(401)
        expect((yield* login(server, user.email, newPassword)).organizationSlugs).toEqual([user.home.slug])
      }), 60_000)
  })
})

describe("request log", () => {
  const lines = (output: string) =>
    output.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { message: string; annotations: Record<string, unknown> })

  it("redacts path segments that may carry a secret, and keeps ids", () => {
    expect(loggedPath("/member/invitations/cvi_abc/accept")).toBe("/member/invitations/[redacted]/accept")
    expect(loggedPath("/app/invitations/cvi_abc")).toBe("/app/invitations/[redacted]")
    expect(loggedPath(`/app/invitations/${"x".repeat(32)}`)).toBe("/app/invitations/[redacted]")
    expect(loggedPath(`/events/app/INVITATIONS/${"A-_b".repeat(8)}/`)).toBe("/events/app/INVITATIONS/[redacted]/")
    expect(loggedPath("/api-token/cvn_0123")).toBe("/api-token/[redacted]")
    expect(loggedPath("/api-token/CVS_0123")).toBe("/api-token/[redacted]")
    expect(loggedPath("/member/invitations/cvi%5Fabc/accept")).toBe("/member/invitations/[redacted]/accept")
    // public ids and ordinary paths are kept
    const uuid = "0f8fad5b-d9cb-469f-a165-70867728950e"
    expect(loggedPath(`/member/invitations/${uuid}`)).toBe(`/member/invitations/${uuid}`)
    expect(loggedPath(`/member/${uuid}`)).toBe(`/member/${uuid}`)
    expect(loggedPath(`/person/${"x".repeat(40)}`)).toBe(`/person/${"x".repeat(40)}`)
    expect(loggedPath("/member/invitations/short")).toBe("/member/invitations/short")
    expect(loggedPath("/person/search")).toBe("/person/search")
  })

  it.scopedLive("never holds an invitation link's token: the server's own log lines show [redacted]", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const server = yield* startServer({ ...testEnvironment(join(dir, "convene.db")), LOG_LEVEL: "Info" })
      const api = send(server.url)
      const owner = yield* login({ request: api }, ADMIN_EMAIL, ADMIN_PASSWORD, "acme")
      const invitee = { email: `logged-${next()}@example.com`, password: "the invitee's own password" }
      // a user who exists and is not a member of acme: added while new, then removed, then invited
      const added = expectStatus(yield* api("POST", "/member", { token: null, headers: owner.headers, body: { ...invitee, role: "Viewer" } }), 200)
      expectStatus(yield* api("DELETE", `/member/${added.body.userId}`, { token: null, headers: owner.headers }), 200)
      const link = tokenOf(expectStatus(yield* api("POST", "/member", { token: null, headers: owner.headers, body: { ...invitee, role: "Viewer" } }), 202))
      const user = yield* login({ request: api }, invitee.email, invitee.password)
      const signedIn = { token: null, headers: user.headers }
      expectStatus(yield* api("GET", `/member/invitations/${link}`, signedIn), 200)
      expectStatus(yield* api("POST", `/member/invitations/${link}/accept`, signedIn), 200)
      expectError(yield* api("POST", `/member/invitations/${link}/accept`, signedIn), 404, "not_found")
      // the dashboard's page for the link (a later feature; unknown now), with and without its prefix
      yield* api("GET", `/app/invitations/${link}`, { token: null })
      yield* api("GET", `/app/invitations/${link.slice(4)}`, { token: null })
      // an API token pasted where its id goes
      expectError(yield* api("DELETE", `/api-token/${API_TOKEN}`), 404, "not_found")
      yield* server.kill("SIGTERM")

      const output = server.output()
      for (const secret of [link, link.slice(4), API_TOKEN, user.accessToken, owner.accessToken]) {
        expect(output).not.toContain(secret)
      }
      const logged = lines(output).filter((l) => l.message === "request").map((l) => `${l.annotations["method"]} ${l.annotations["path"]}`)
      expect(logged).toEqual(expect.arrayContaining([
        "GET /member/invitations/[redacted]",
        "POST /member/invitations/[redacted]/accept",
        "GET /app/invitations/[redacted]",
        "DELETE /api-token/[redacted]"
      ]))
      expect(logged.filter((l) => l === "POST /member/invitations/[redacted]/accept")).toHaveLength(2)
      expect(logged.filter((l) => l === "GET /app/invitations/[redacted]")).toHaveLength(2)
    }), 60_000)
})

// moved from test/api/dashboard-team.test.ts ("dashboard: account"): the operator's CLI is a process
layer(testServer(), { excludeTestServices: true })("dashboard: account", (it) => {
  const signedIn = (server: TestServer["Type"], account: Account) => signIn(server.url, account, { next: "/app/account" })
  it.effect("the operator's user set-password ends the user's dashboard sessions", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const org = yield* organization("cli")
      const b = yield* signedIn(server, org.owner)
      expect((yield* b.get("/app/account")).status).toBe(200)
      const done = yield* cli(
        { ...server.databaseEnv, LOG_LEVEL: "None" },
        "user",
        "set-password",
        "--email",
        org.owner.email,
        "--password",
        "recovered by the operator"
      )
      expect(done.code, done.stderr).toBe(0)
      const after = yield* b.get("/app/account")
      expect(after.status).toBe(303)
      expect(after.location).toMatch(/^\/app\/login\?/)
    }), 60_000)
})
