/**
 * Members across organizations (docs/integrators.md#members-and-invitations; the dashboard's Team settings). A user is an account of the whole
 * instance; no organization can set or learn the credentials of another's member. An email that
 * has a user already is invited (202, a one-time link) instead of being added with a password the
 * inviting organization chose. (What the operator's CLI does and what the request log keeps:
 * test/slow/members-cli.test.ts.)
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { Ids } from "../../src/Domain/Ids.js"
import { Invitations } from "../../src/Organizations/Invitations.js"
import { Members } from "../../src/Organizations/Members.js"
import { MembersRepo } from "../../src/Organizations/MembersRepo.js"
import { OrganizationsRepo } from "../../src/Organizations/OrganizationsRepo.js"
import { expectError, expectStatus, login } from "../support/Fixtures.js"
import { API_TOKEN, TestServer, testServer } from "../support/TestServer.js"
import {
  accept,
  type Account,
  addMember,
  altered,
  as,
  existingUser,
  expireAt,
  guessedToken,
  loginStatus,
  membersOf,
  next,
  organization,
  passwordHashOf,
  tokenOf,
  view
} from "../support/Members.js"

layer(testServer(), { excludeTestServices: true })("members", (it) => {
  describe("cross-organization takeover", () => {
    it.effect("the reverse order: B adding A's existing Super Admin invites them, and A's password is unaffected", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* organization("a")
        const b = yield* organization("b")
        const hashBefore = yield* passwordHashOf(server, a.owner.email)
        const byB = expectStatus(yield* addMember(server, b, { email: a.owner.email, password: "B wants this password", role: "Super Admin" }), 202)
        expect(yield* passwordHashOf(server, a.owner.email)).toBe(hashBefore)
        expect(yield* loginStatus(server, a.owner.email, "B wants this password")).toBe(401)
        expect((yield* login(server, a.owner.email, a.owner.password)).organizationSlugs).toEqual([a.slug])
        expectStatus(yield* server.request("GET", "/member", yield* as(server, a.owner, a.slug)), 200)
        expectError(yield* server.request("GET", "/me/invitations", yield* as(server, a.owner)), 404, "not_found")

        // B hands its link to A's owner, who sees B's offer and accepts it, once
        const link = tokenOf(byB)
        expect(expectStatus(yield* view(server, a.owner, link), 200).body).toEqual({
          organizationSlug: b.slug,
          organizationName: b.slug,
          role: "Super Admin",
          email: a.owner.email,
          expiresAt: byB.body.expiresAt
        })
        expect(expectStatus(yield* accept(server, a.owner, link), 200).body).toEqual({ organizationSlug: b.slug, role: "Super Admin" })
        expectError(yield* accept(server, a.owner, link), 404, "not_found")
        expect((yield* login(server, a.owner.email, a.owner.password)).organizationSlugs.sort()).toEqual([a.slug, b.slug].sort())
      }))
  })

  describe("invitation links", () => {
    it.effect("only the invited user reads and accepts, once; other users, API tokens and unknown links get nothing", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* organization("a")
        const invitee = yield* existingUser("invitee")
        const stranger = yield* existingUser("stranger")
        const link = tokenOf(expectStatus(yield* addMember(server, a, { email: invitee.email, password: "ignored anyway", role: "Team Member" }), 202))

        // another user holding the link: the same 404 as an unknown link
        const strangerView = expectError(yield* view(server, stranger, link), 404, "not_found")
        const unknownView = expectError(yield* view(server, stranger, guessedToken()), 404, "not_found")
        expect(strangerView.body).toEqual(unknownView.body)
        expectError(yield* accept(server, stranger, link), 404, "not_found")
        expect((yield* login(server, stranger.email, stranger.password)).organizationSlugs).toEqual([stranger.home.slug])
        // an API token, the inviting organization's included, joins no one
        for (const token of [API_TOKEN, a.token]) {
          expectError(yield* server.request("GET", `/member/invitations/${link}`, { token }), 403, "forbidden")
          expectError(yield* server.request("POST", `/member/invitations/${link}/accept`, { token }), 403, "forbidden")
        }
        expectError(yield* server.request("GET", `/member/invitations/${link}`, { token: null }), 401, "unauthorized")
        expectError(yield* server.request("POST", `/member/invitations/${link}/accept`, { token: null }), 401, "unauthorized")
        for (const token of [altered(link), `${link}x`, "cvi_unknown", guessedToken()]) {
          expectError(yield* view(server, invitee, token), 404, "not_found")
          expectError(yield* accept(server, invitee, token), 404, "not_found")
        }

        // none of that used the link up, nor does reading it; accepting does, once
        expect(expectStatus(yield* view(server, invitee, link), 200).body).toMatchObject({ organizationSlug: a.slug, role: "Team Member", email: invitee.email })
        expect(expectStatus(yield* accept(server, invitee, link), 200).body).toEqual({ organizationSlug: a.slug, role: "Team Member" })
        expectError(yield* accept(server, invitee, link), 404, "not_found")
        expectError(yield* view(server, invitee, link), 404, "not_found")
        // a member is not invited again
        expectError(yield* addMember(server, a, { email: invitee.email, password: "ignored anyway", role: "Viewer" }), 409, "conflict")
      }))

    it.effect("inviting again answers a new link and voids the old one; revoking voids it; an Idempotency-Key replays", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* organization("a")
        const invitee = yield* existingUser("invitee")
        const first = expectStatus(yield* addMember(server, a, { email: invitee.email, password: "ignored anyway", role: "Viewer" }), 202)
        const second = expectStatus(yield* addMember(server, a, { email: invitee.email, password: "ignored anyway", role: "Admin" }), 202)
        expect(second.body.inviteUrl).not.toBe(first.body.inviteUrl)
        const invited = (yield* membersOf(server, a)).filter((m) => m["email"] === invitee.email)
        expect(invited).toEqual([expect.objectContaining({ status: "invited", role: "Admin" })])
        expectError(yield* view(server, invitee, tokenOf(first)), 404, "not_found")
        expectError(yield* accept(server, invitee, tokenOf(first)), 404, "not_found")
        expect(expectStatus(yield* view(server, invitee, tokenOf(second)), 200).body.role).toBe("Admin")

        // the owner revokes the pending one; the link dies
        const owner = yield* as(server, a.owner, a.slug)
        const invitationId = invited[0]!["invitationId"] as string
        const b = yield* organization("b")
        expectError(yield* server.request("DELETE", `/member/invitations/${invitationId}`, yield* as(server, b.owner, b.slug)), 404, "not_found")
        expectStatus(yield* server.request("DELETE", `/member/invitations/${invitationId}`, owner), 200)
        expectError(yield* view(server, invitee, tokenOf(second)), 404, "not_found")
        expectError(yield* accept(server, invitee, tokenOf(second)), 404, "not_found")
        expect((yield* membersOf(server, a)).filter((m) => m["email"] === invitee.email)).toEqual([])
        expectError(yield* server.request("DELETE", "/member/invitations/00000000-0000-4000-8000-000000000000", owner), 404, "not_found")

        // a replayed POST /member answers the same 202 without issuing another link
        const keyed = { ...owner, headers: { ...owner.headers, "Idempotency-Key": `invite-${next()}` }, body: { email: invitee.email, password: "ignored anyway", role: "Viewer" } }
        const once = expectStatus(yield* server.request("POST", "/member", keyed), 202)
        const replay = expectStatus(yield* server.request("POST", "/member", keyed), 202)
        expect(replay.headers.get("idempotent-replayed")).toBe("true")
        expect(replay.body).toEqual(once.body)
        // accepting with a key: a retry replays the answer instead of a 404 for the used link
        const user = yield* as(server, invitee)
        const acceptKeyed = { ...user, headers: { ...user.headers, "Idempotency-Key": `accept-${next()}` } }
        const accepted = expectStatus(yield* server.request("POST", `/member/invitations/${tokenOf(once)}/accept`, acceptKeyed), 200)
        const retried = expectStatus(yield* server.request("POST", `/member/invitations/${tokenOf(once)}/accept`, acceptKeyed), 200)
        expect(retried.headers.get("idempotent-replayed")).toBe("true")
        expect(retried.body).toEqual(accepted.body)
      }))
  })

  describe("team settings", () => {
    it.effect("roles change, members leave at once, and the last Super Admin stays", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* organization("a")
        const owner = yield* as(server, a.owner, a.slug)
        const lastOne = expectError(yield* server.request("PATCH", `/member/${a.owner.userId}`, { ...owner, body: { role: "Admin" } }), 409, "conflict")
        expect(lastOne.body.message).toMatch(/last Super Admin/)
        expectError(yield* server.request("DELETE", `/member/${a.owner.userId}`, owner), 409, "conflict")
        expectStatus(yield* server.request("PATCH", `/member/${a.owner.userId}`, { ...owner, body: { role: "Super Admin" } }), 200)

        const deputy = { email: `deputy-${next()}@a.example`, password: "deputy's own password" }
        const { userId } = expectStatus(yield* addMember(server, a, { ...deputy, firstName: "Dep", role: "Viewer" }), 200).body
        const deputyInA = yield* as(server, deputy, a.slug)
        expectError(yield* server.request("POST", "/person", { ...deputyInA, body: { firstName: "X", lastName: "Y", email: `x-${next()}@a.example` } }), 403, "forbidden")
        const promoted = expectStatus(yield* server.request("PATCH", `/member/${userId}`, { ...owner, body: { role: "Super Admin" } }), 200)
        expect(promoted.body).toEqual({ userId, email: deputy.email, firstName: "Dep", lastName: null, role: "Super Admin", status: "active" })
        // the same access token has the new role at once
        expectStatus(yield* server.request("GET", "/member", deputyInA), 200)
        expectError(yield* server.request("PATCH", `/member/${userId}`, { ...owner, body: { role: "Owner" } }), 400, "invalid_request")

        // two Super Admins: one may go; the deputy's access ends with the removal
        expectStatus(yield* server.request("DELETE", `/member/${userId}`, owner), 200)
        expectError(yield* server.request("GET", "/member", deputyInA), 403, "forbidden")
        expectError(yield* server.request("DELETE", `/member/${userId}`, owner), 404, "not_found")
        expect((yield* membersOf(server, a)).map((m) => m["userId"])).toEqual([a.owner.userId])
        // the user still exists and signs in, to no organization
        expect((yield* login(server, deputy.email, deputy.password)).organizationSlugs).toEqual([])
      }))

    it.effect("demotions at once leave one Super Admin: the check and the write are one transaction", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* organization("a")
        const others = yield* Effect.forEach([1, 2], (i) =>
          Effect.map(
            addMember(server, a, { email: `super-${i}-${next()}@a.example`, password: `super admin ${i}'s password`, role: "Super Admin" }),
            (reply) => expectStatus(reply, 200).body.userId as string
          ))
        // SQLite answers synchronously, so without a pause between the count and the write, fibers
        // would not interleave there whatever the code did; this repository pauses after counting
        const members = yield* Effect.provide(Members, Members.DefaultWithoutDependencies.pipe(
          Layer.provide(Layer.effect(MembersRepo, Effect.map(MembersRepo, (repo) =>
            MembersRepo.make({ ...repo, superAdmins: (id) => Effect.zipLeft(repo.superAdmins(id), Effect.sleep("20 millis")) })))),
          Layer.provide(MembersRepo.Default),
          Layer.provide(Layer.mergeAll(Layer.succeed(Invitations, yield* Invitations), OrganizationsRepo.Default, Ids.Default))
        ))
        const outcomes = yield* Effect.forEach(
          [a.owner.userId, ...others],
          (userId) => Effect.either(members.changeRole(a.id, userId, "Viewer")),
          { concurrency: "unbounded" }
        )
        expect(outcomes.map((o) => (o._tag === "Left" ? o.left._tag : "changed")).sort()).toEqual(["Conflict", "changed", "changed"])
        const remaining = yield* members.active(a.id)
        expect(remaining.filter((m) => m.role === "Super Admin")).toHaveLength(1)
      }))

    it.effect("ids of other organizations and unknown ids are 404; roles below Super Admin get 403", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const a = yield* organization("a")
        const b = yield* organization("b")
        const ownerB = yield* as(server, b.owner, b.slug)
        for (const id of [a.owner.userId, "unknown", "00000000-0000-4000-8000-000000000000"]) {
          expectError(yield* server.request("PATCH", `/member/${id}`, { ...ownerB, body: { role: "Viewer" } }), 404, "not_found")
          expectError(yield* server.request("DELETE", `/member/${id}`, ownerB), 404, "not_found")
        }
        expect((yield* membersOf(server, a)).find((m) => m["userId"] === a.owner.userId)).toMatchObject({ role: "Super Admin", status: "active" })

        const admin = { email: `admin-${next()}@a.example`, password: "admin's own password" }
        const { userId } = expectStatus(yield* addMember(server, a, { ...admin, role: "Admin" }), 200).body
        const adminInA = yield* as(server, admin, a.slug)
        const newcomer = { email: `new-${next()}@a.example`, password: "long enough", role: "Viewer" }
        expectError(yield* server.request("POST", "/member", { ...adminInA, body: newcomer }), 403, "forbidden")
        expectError(yield* server.request("PATCH", `/member/${userId}`, { ...adminInA, body: { role: "Super Admin" } }), 403, "forbidden")
        expectError(yield* server.request("DELETE", `/member/${a.owner.userId}`, adminInA), 403, "forbidden")
        expectStatus(yield* server.request("GET", "/member", adminInA), 200)
        // an API token acts as Admin
        expectError(yield* server.request("POST", "/member", { token: a.token, body: newcomer }), 403, "forbidden")
        expectError(yield* server.request("DELETE", `/member/${userId}`, { token: a.token }), 403, "forbidden")
        expect(yield* loginStatus(server, newcomer.email, newcomer.password)).toBe(401)
      }))
  })

  it.effect("/openapi.json documents both successes of POST /member and every status of the invitation routes", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const spec = expectStatus(yield* server.request("GET", "/openapi.json", { token: null }), 200).body
      const add = spec.paths["/member"].post.responses
      expect(Object.keys(add).sort()).toEqual(["200", "202", "400", "401", "403", "404", "409", "413", "422", "429", "500"])
      expect(add["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/MemberAdded" })
      expect(add["202"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/MemberInvited" })
      expect(spec.components.schemas["MemberInvited"].required.sort()).toEqual(["expiresAt", "inviteUrl", "status"])
      expect(Object.keys(spec.paths["/member/{userId}"].patch.responses)).toEqual(expect.arrayContaining(["200", "403", "404", "409"]))
      expect(Object.keys(spec.paths["/member/{userId}"].delete.responses)).toEqual(expect.arrayContaining(["200", "403", "404", "409"]))
      expect(Object.keys(spec.paths["/member/invitations/{invitationId}"].delete.responses)).toEqual(expect.arrayContaining(["200", "404"]))

      // the link is the only way to an invitation: nothing lists an account's invitations or takes one by id
      expect(Object.keys(spec.paths).filter((path) => path.startsWith("/me/"))).toEqual([])
      const show = spec.paths["/member/invitations/{token}"].get
      const accept = spec.paths["/member/invitations/{token}/accept"].post
      expect(Object.keys(show.responses).sort()).toEqual(["200", "400", "401", "403", "404", "429", "500"])
      expect(Object.keys(accept.responses).sort()).toEqual(["200", "400", "401", "403", "404", "409", "422", "429", "500"])
      expect(show.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Invitation" })
      expect(spec.components.schemas["Invitation"].required.sort()).toEqual(["email", "expiresAt", "organizationName", "organizationSlug", "role"])
      expect(accept.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/AcceptedInvitation" })
      for (const [path, operation] of [["show", show], ["accept", accept]] as const) {
        expect(operation.security, path).toEqual([{ bearer: [] }])
        expect((operation.parameters ?? []).map((p: { name: string }) => p.name), path).not.toContain("organizationSlug")
        expect((operation.parameters ?? []).map((p: { name: string }) => p.name), path).toContain("token")
      }
      expect(accept.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key")
    }))
})

/**
 * Time comes from `Clock`: under TestClock the server starts at the epoch. A week's jump would wake
 * the server's periodic fibers hundreds of thousands of times, so the test shortens the links'
 * lives in the database instead and moves the clock across the new limit.
 */
layer(testServer())("invitation expiry under TestClock", (it) => {
  it.effect("a link lasts 7 days by the server's clock; past its expiry it answers 404 and is no longer listed", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const a = yield* organization("a")
      const early = yield* existingUser("early")
      const late = yield* existingUser("late")
      const invite = (user: Account) =>
        Effect.map(addMember(server, a, { email: user.email, password: "ignored anyway", role: "Viewer" }), (r) => expectStatus(r, 202))
      const forEarly = yield* invite(early)
      const forLate = yield* invite(late)
      expect(forEarly.body.expiresAt).toBe(new Date(7 * 86_400_000).toISOString())
      yield* expireAt(server, new Date(60_000).toISOString())

      yield* TestClock.adjust("59 seconds")
      expectStatus(yield* accept(server, early, tokenOf(forEarly)), 200)
      yield* TestClock.adjust("2 seconds")
      expectError(yield* view(server, late, tokenOf(forLate)), 404, "not_found")
      expectError(yield* accept(server, late, tokenOf(forLate)), 404, "not_found")
      expect((yield* membersOf(server, a)).map((m) => [m["email"], m["status"]])).toEqual([[a.owner.email, "active"], [early.email, "active"]])
      // an expired invitation is replaced by a new link that works
      expectStatus(yield* accept(server, late, tokenOf(yield* invite(late))), 200)
    }))
})

