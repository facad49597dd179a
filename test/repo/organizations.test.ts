/**
 * Organizations, their API tokens and members over the database, on the suite's engine (the API's
 * proof: test/api/auth.test.ts, test/api/members.test.ts, test/api/dashboard-team.test.ts): tokens
 * found by their hash until revoked; users one per email whatever its case; an existing user only
 * invited, the link's token found by its hash, accepted once, past its expiry unknown; and
 * demotions at once that leave exactly one Super Admin (the count and the write in one transaction).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { ApiTokens } from "../../src/Auth/ApiTokens.js"
import { Ids } from "../../src/Domain/Ids.js"
import type { Role } from "../../src/Domain/Role.js"
import { Invitations } from "../../src/Organizations/Invitations.js"
import { Members } from "../../src/Organizations/Members.js"
import { MembersRepo } from "../../src/Organizations/MembersRepo.js"
import { Organizations } from "../../src/Organizations/Organizations.js"
import { OrganizationsRepo } from "../../src/Organizations/OrganizationsRepo.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

const organization = (slug: string) =>
  Effect.gen(function*() {
    yield* (yield* TestDatabase).organization(slug)
    return Option.getOrThrow(yield* Effect.flatMap(OrganizationsRepo, (repo) => repo.organizationBySlug(slug)))
  })

const member = (email: string, role: Role, password = `password of ${email}`) => ({
  email,
  password: Option.some(Redacted.make(password)),
  firstName: "First",
  lastName: "Last",
  role
})

const userIdOf = (email: string) =>
  Effect.map(Effect.flatMap(TestDatabase, (db) => db.query<{ id: number }>("SELECT id FROM users WHERE email_key = ?", [email.toLowerCase()])), (rows) =>
    Number(rows[0]!.id))

layer(OrganizationsRepo.Default.pipe(Layer.provideMerge(testDatabase())), { excludeTestServices: true })("organizations and members over the database", (it) => {
  it.effect("API tokens are found by their hash until revoked, and listed without their secret", () =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const tokens = yield* ApiTokens
      const org = yield* organization("tokens-a")
      const created = yield* tokens.createApiToken(org.id, "CRM «sync»")
      expect(Redacted.value(created.token)).toMatch(/^cvn_/)
      expect(yield* tokens.apiTokenExists(created.token)).toBe(true)
      expect(yield* tokens.apiTokenExists(Redacted.make(`${Redacted.value(created.token)}x`))).toBe(false)
      const listed = yield* tokens.apiTokens(org.id)
      expect(listed).toEqual([expect.objectContaining({ tokenId: created.tokenId, name: "CRM «sync»", lastUsedAt: null, revokedAt: null })])
      expect(JSON.stringify(listed)).not.toContain(Redacted.value(created.token))
      yield* tokens.revokeApiToken(org.id, created.tokenId)
      expect((yield* tokens.apiTokens(org.id))[0]!.revokedAt).not.toBeNull()
      // another organization's token id is unknown to this one
      const other = yield* organization("tokens-b")
      expect((yield* Effect.either(tokens.revokeApiToken(other.id, created.tokenId)))._tag).toBe("Left")
      // slugs are unique
      expect((yield* Effect.either(organizations.create({ slug: "tokens-a", name: "Again" })))._tag).toBe("Left")
    }))

  it.effect("one user per email whatever its case; an existing user is invited, and the link is accepted once", () =>
    Effect.gen(function*() {
      const members = yield* Members
      const invitations = yield* Invitations
      const a = yield* organization("members-a")
      const b = yield* organization("members-b")
      const added = yield* members.add(b, member("CEO@Example.org", "Viewer"), Option.none())
      expect(added._tag).toBe("Added")
      // the same email in another case is the same user: only invited, the password not stored
      const invited = yield* members.add(a, member("ceo@example.ORG", "Admin", "another password"), Option.none())
      expect(invited._tag).toBe("Invited")
      if (invited._tag !== "Invited") return
      const token = invited.inviteUrl.split("/").pop()!
      const ceo = yield* userIdOf("ceo@example.org")
      const stranger = (yield* members.add(b, member("stranger@example.org", "Viewer"), Option.none()))._tag === "Added"
        ? yield* userIdOf("stranger@example.org")
        : -1
      expect((yield* invitations.show(token, ceo)).role).toBe("Admin")
      expect((yield* Effect.either(invitations.show(token, stranger)))._tag).toBe("Left")
      expect((yield* Effect.either(invitations.show(`${token.slice(0, -1)}x`, ceo)))._tag).toBe("Left")
      expect(yield* invitations.accept(token, ceo)).toEqual({ organizationSlug: "members-a", role: "Admin" })
      expect((yield* Effect.either(invitations.accept(token, ceo)))._tag).toBe("Left")
      const listed = yield* members.active(a.id)
      expect(listed.map((m) => [m.email, m.role])).toEqual([["CEO@Example.org", "Admin"]])
      // an invitation past its expiry is unknown
      const late = yield* members.add(a, member("stranger@example.org", "Viewer"), Option.none())
      if (late._tag !== "Invited") return expect.fail("expected an invitation")
      yield* (yield* TestDatabase).query("UPDATE member_invitations SET expires_at = ? WHERE accepted_at IS NULL", [new Date(Date.now() - 1_000).toISOString()])
      expect((yield* Effect.either(invitations.accept(late.inviteUrl.split("/").pop()!, stranger)))._tag).toBe("Left")
    }))

  it.effect("demotions at once leave one Super Admin: the check and the write are one transaction", () =>
    Effect.gen(function*() {
      const org = yield* organization("members-supers")
      const members = yield* Members
      for (const i of [1, 2, 3]) yield* members.addDirectly(org, member(`super-${i}@supers.test`, "Super Admin"))
      const ids = (yield* members.active(org.id)).map((m) => m.userId)
      expect(ids).toHaveLength(3)
      // SQLite answers synchronously, so without a pause between the count and the write, fibers
      // would not interleave there whatever the code did; this repository pauses after counting
      const pausing = yield* Effect.provide(Members, Members.DefaultWithoutDependencies.pipe(
        Layer.provide(Layer.effect(MembersRepo, Effect.map(MembersRepo, (repo) =>
          MembersRepo.make({ ...repo, superAdmins: (id) => Effect.zipLeft(repo.superAdmins(id), Effect.sleep("20 millis")) })))),
        Layer.provide(MembersRepo.Default),
        Layer.provide(Layer.mergeAll(Layer.succeed(Invitations, yield* Invitations), OrganizationsRepo.Default, Ids.Default))
      ))
      const outcomes = yield* Effect.forEach(ids, (userId) => Effect.either(pausing.changeRole(org.id, userId, "Viewer")), { concurrency: "unbounded" })
      expect(outcomes.map((o) => (o._tag === "Left" ? o.left._tag : "changed")).sort()).toEqual(["Conflict", "changed", "changed"])
      expect((yield* members.active(org.id)).filter((m) => m.role === "Super Admin")).toHaveLength(1)
    }))
})
