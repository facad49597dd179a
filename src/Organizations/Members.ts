/**
 * An organization's members (docs/integrators.md#members-and-invitations; the dashboard's Team settings): adding, listing, changing roles and
 * removing. A user is an account of the whole instance and may belong to several organizations,
 * so an organization sets a password only for an email that is new to the instance; a user who
 * exists already is invited and joins by accepting with their own credentials (`Invitations`).
 * Only the operator (admin CLI, start-up bootstrap) adds an existing user directly, or sets the
 * password of an account that exists; a user changes their own by giving the current one.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { hashPassword } from "../Domain/Secrets.js"
import { Ids } from "../Domain/Ids.js"
import type { Role } from "../Domain/Role.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest, NotFound } from "../Domain/Errors.js"
import { onUniqueViolation, orDieOnStorage } from "../Db/SqlErrors.js"
import { Invitations } from "./Invitations.js"
import { MembersRepo, type OrganizationMemberRow } from "./MembersRepo.js"
import { type OrganizationRow, OrganizationsRepo } from "./OrganizationsRepo.js"
import { emailKeyOf } from "../Domain/Fields.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

export interface NewMember {
  readonly email: string
  /** Stored only when the email is new to the instance: an existing user keeps theirs. */
  readonly password: Option.Option<Redacted.Redacted>
  readonly firstName: string | null
  readonly lastName: string | null
  readonly role: Role
}

export interface Member {
  readonly userId: string
  readonly email: string
  readonly firstName: string | null
  readonly lastName: string | null
  readonly role: Role
  readonly status: "active" | "invited"
  /** Invited entries: the invitation to revoke, and when it lapses. */
  readonly invitationId?: string
  readonly expiresAt?: string
}

/** What adding did: a user became a member (created or, by the operator, existing), or was invited. */
export type MemberAdded = Data.TaggedEnum<{
  Added: { readonly userId: string; readonly createdUser: boolean }
  Invited: { readonly invitationId: string; readonly inviteUrl: string; readonly expiresAt: string }
}>
export const MemberAdded = Data.taggedEnum<MemberAdded>()

interface MemberColumns {
  readonly public_id: string
  readonly email: string
  readonly first_name: string | null
  readonly last_name: string | null
  readonly role: Role
}

const activeMember = (row: MemberColumns): Member => ({
  userId: row.public_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  role: row.role,
  status: "active"
})

const notMember = (userId: string) => new NotFound({ message: `Member ${userId} not found` })
const lastSuperAdmin = new Conflict({
  message: "This is the organization's last Super Admin: make another member Super Admin first"
})

export class Members extends Effect.Service<Members>()("Convene/Members", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* OrganizationsRepo
    const repo = yield* MembersRepo
    const invitations = yield* Invitations
    const ids = yield* Ids

    /**
     * What a new user needs, prepared before the transaction: the password is hashed only when
     * the email is new (scrypt takes tens of milliseconds and must not hold the database).
     */
    const prepare = (input: NewMember) =>
      Effect.gen(function*() {
        const key = emailKeyOf(input.email)
        const known = yield* users.userByEmail(key).pipe(Effect.orDie)
        const passwordHash = Option.isNone(known) && Option.isSome(input.password)
          ? Option.some(yield* hashPassword(input.password.value))
          : Option.none<string>()
        return { key, passwordHash, publicId: yield* ids.uuid, createdAt: yield* nowIso }
      })

    /** In the transaction: the new user that `prepare` made ready. */
    const createUser = (input: NewMember, prepared: Effect.Effect.Success<ReturnType<typeof prepare>>) =>
      Effect.gen(function*() {
        // users are never deleted, so a hash is missing only when no password was given
        if (Option.isNone(prepared.passwordHash)) return yield* InvalidRequest.at("password", "is required for a new user")
        return yield* users.insertUser({
          publicId: prepared.publicId,
          email: input.email.trim(),
          emailKey: prepared.key,
          firstName: input.firstName,
          lastName: input.lastName,
          passwordHash: prepared.passwordHash.value,
          createdAt: prepared.createdAt
        })
      })

    const alreadyMember = (organization: OrganizationRow, input: NewMember) =>
      new Conflict({ message: `${input.email} is already a member of ${organization.slug}` })

    /**
     * `POST /member` (a Super Admin): a new email becomes a user with the given password and a
     * member at once; an existing user is only invited, and the password is never looked at.
     * Inviting again (the admin lost the link) issues a new link and voids the old one.
     */
    const add = Effect.fn("Members.add")(function*(organization: OrganizationRow, input: NewMember, invitedBy: Option.Option<number>) {
      const prepared = yield* prepare(input)
      return yield* Effect.gen(function*() {
        const user = yield* users.userByEmail(prepared.key)
        if (Option.isSome(user)) {
          if (yield* repo.isMember(organization.id, user.value.id)) return yield* alreadyMember(organization, input)
          const issued = yield* invitations.issue({
            organizationId: organization.id,
            userId: user.value.id,
            role: input.role,
            invitedBy: Option.getOrNull(invitedBy)
          })
          return MemberAdded.Invited(issued)
        }
        const userId = yield* createUser(input, prepared)
        yield* users.insertMembership({ organizationId: organization.id, userId, role: input.role, createdAt: prepared.createdAt })
        return MemberAdded.Added({ userId: prepared.publicId, createdUser: true })
      }).pipe(sql.withTransaction, onUniqueViolation(() => alreadyMember(organization, input)))
    })

    /**
     * The operator's add (admin CLI, bootstrap): an existing user becomes a member at once and
     * keeps their password (any pending invitation to the organization is void then).
     */
    const addDirectly = Effect.fn("Members.addDirectly")(function*(organization: OrganizationRow, input: NewMember) {
      const prepared = yield* prepare(input)
      return yield* Effect.gen(function*() {
        const user = yield* users.userByEmail(prepared.key)
        const userId = Option.isSome(user) ? user.value.id : yield* createUser(input, prepared)
        yield* users.insertMembership({ organizationId: organization.id, userId, role: input.role, createdAt: prepared.createdAt })
        if (Option.isSome(user)) {
          yield* invitations.revokePending({ organizationId: organization.id, userId, at: prepared.createdAt })
        }
        return MemberAdded.Added({
          userId: Option.match(user, { onNone: () => prepared.publicId, onSome: (u) => u.public_id }),
          createdUser: Option.isNone(user)
        })
      }).pipe(sql.withTransaction, onUniqueViolation(() => alreadyMember(organization, input)))
    })

    /** The members, then the live invitations (names of invitees are not shown: not the organization's data). */
    const list = Effect.fn("Members.list")(function*(organizationId: OrganizationRowId) {
      const active = yield* users.members(organizationId).pipe(Effect.orDie)
      const invited = yield* invitations.live(organizationId)
      return [
        ...active.map(activeMember),
        ...invited.map((row): Member => ({
          userId: row.user_public_id,
          email: row.email,
          firstName: null,
          lastName: null,
          role: row.role,
          status: "invited",
          invitationId: row.public_id,
          expiresAt: row.expires_at
        }))
      ]
    })

    const active = (organizationId: OrganizationRowId) => users.members(organizationId).pipe(Effect.orDie, Effect.map((rows) => rows.map(activeMember)))

    /**
     * A member's role change or removal, checked and written in one transaction: the last Super
     * Admin keeps the role, so the organization always has someone who can manage its members.
     */
    const guarded = <A>(
      organizationId: OrganizationRowId,
      userId: string,
      staysSuperAdmin: boolean,
      write: (member: OrganizationMemberRow) => Effect.Effect<A, SqlError.SqlError>
    ) =>
      Effect.gen(function*() {
        yield* repo.lockOrganization(organizationId)
        const member = yield* repo.byPublicId({ organizationId, publicId: userId })
        if (Option.isNone(member)) return yield* notMember(userId)
        if (member.value.role === "Super Admin" && !staysSuperAdmin && (yield* repo.superAdmins(organizationId)) <= 1) {
          return yield* lastSuperAdmin
        }
        return yield* write(member.value)
      }).pipe(sql.withTransaction, orDieOnStorage)

    const changeRole = Effect.fn("Members.changeRole")(function*(organizationId: OrganizationRowId, userId: string, role: Role) {
      return yield* guarded(organizationId, userId, role === "Super Admin", (member) =>
        Effect.as(repo.setRole({ organizationId, userId: member.id, role }), activeMember({ ...member, role })))
    })

    /** Their access ends at once: every request looks the membership up. */
    const remove = Effect.fn("Members.remove")(function*(organizationId: OrganizationRowId, userId: string) {
      yield* guarded(organizationId, userId, false, (member) => repo.remove(organizationId, member.id))
    })

    return {
      add,
      addDirectly,
      list,
      active,
      changeRole,
      remove,
      revokeInvitation: invitations.revoke
    } as const
  }),
  dependencies: [OrganizationsRepo.Default, MembersRepo.Default, Invitations.Default, Ids.Default]
}) {}
