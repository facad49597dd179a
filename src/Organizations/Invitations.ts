/**
 * Invitations of existing users (docs/integrators.md#members-and-invitations): an organization cannot set or learn the
 * credentials of a user who exists already, so instead of adding them it hands out a one-time
 * link, which the user opens signed in to their own account. Until they accept, they are not a
 * member.
 *
 * The link is the only way in. An account can be held by someone other than the person the
 * inviting organization means (another organization may have created it, choosing its password,
 * while the email was new to the instance), so the server never lists a user's invitations nor
 * accepts one by id: it takes the link, which the organization hands to the real person out of
 * band, and the signed-in account it was issued to. The link's token carries 256 random bits and
 * only its hash is stored; it is looked up by that hash, so no secret is compared byte by byte.
 *
 * Expired invitations are deleted (CONTRACT §18) by a fiber of the server's scope
 * (`InvitationsRetentionLive`), within a few minutes of their expiry.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { hashToken } from "../Domain/Secrets.js"
import type { Session } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import type { Role } from "../Domain/Role.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.js"
import { deleteInBatches, repeatedly, retentionPause } from "../Runtime/Background.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { InvitationsRepo } from "./InvitationsRepo.js"
import { OrganizationsRepo } from "./OrganizationsRepo.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

export const INVITATION_TTL = Duration.days(7)
export const INVITATION_TOKEN_PREFIX = "cvi_"
/** Expired invitations deleted by one statement of the retention. */
const PURGE_BATCH = 1000

export interface IssuedInvitation {
  readonly invitationId: string
  readonly inviteUrl: string
  readonly expiresAt: string
}

/** What a link offers its user, for the page that asks them to accept. */
export interface InvitationOffer {
  readonly organizationSlug: string
  readonly organizationName: string
  readonly role: Role
  readonly email: string
  readonly expiresAt: string
}

export interface AcceptedInvitation {
  readonly organizationSlug: string
  readonly role: Role
}

/** Whatever does not lead to a membership looks the same from outside: nothing to find. */
const unknownInvitation = new NotFound({ message: "No such invitation for this account (unknown, expired, revoked or used)" })

/**
 * The signed-in user of an API session. Only a user's own sign-in reads and accepts an invitation
 * link: an organization's API token must not join anyone anywhere (403).
 */
export const userOfSession = (session: Session): Effect.Effect<number, Forbidden> =>
  Option.match(session.userId, {
    onNone: () => Effect.fail(new Forbidden({ message: "Invitations are for users: sign in with POST /login, not an API token" })),
    onSome: Effect.succeed
  })

export class Invitations extends Effect.Service<Invitations>()("Convene/Invitations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* InvitationsRepo
    const organizations = yield* OrganizationsRepo
    const ids = yield* Ids
    const { url } = yield* PublicOrigin

    /**
     * A new link for `userId` into the organization; an earlier pending one stops working. Runs
     * in the caller's transaction, beside its check that the user is not a member yet.
     */
    const issue = (input: { organizationId: OrganizationRowId; userId: number; role: Role; invitedBy: number | null }) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const createdAt = new Date(now).toISOString()
        const expiresAt = new Date(now + Duration.toMillis(INVITATION_TTL)).toISOString()
        const token = INVITATION_TOKEN_PREFIX + (yield* ids.secret(32))
        const invitationId = yield* ids.uuid
        yield* repo.revokePending({ organizationId: input.organizationId, userId: input.userId, at: createdAt })
        yield* repo.insert({
          publicId: invitationId,
          organizationId: input.organizationId,
          userId: input.userId,
          role: input.role,
          tokenHash: hashToken(token),
          invitedBy: input.invitedBy,
          createdAt,
          expiresAt
        })
        return { invitationId, inviteUrl: url(`/app/invitations/${token}`), expiresAt } satisfies IssuedInvitation
      })

    /** `GET /member/invitations/:token`: what the link offers the signed-in user it was issued to. */
    const show = Effect.fn("Invitations.show")(function*(token: string, userId: number) {
      const found = yield* repo.byLink({ tokenHash: hashToken(token), userId, now: yield* nowIso }).pipe(Effect.orDie)
      if (Option.isNone(found)) return yield* unknownInvitation
      const { email, expires_at, name, role, slug } = found.value
      return { organizationSlug: slug, organizationName: name, role, email, expiresAt: expires_at } satisfies InvitationOffer
    })

    /** `POST /member/invitations/:token/accept`: the link's user becomes a member, once. */
    const accept = Effect.fn("Invitations.accept")(function*(token: string, userId: number) {
      const now = yield* nowIso
      return yield* Effect.gen(function*() {
        const accepted = yield* repo.accept({ tokenHash: hashToken(token), userId, now })
        if (Option.isNone(accepted)) return yield* unknownInvitation
        const { organization_id, role, slug } = accepted.value
        yield* organizations.insertMembership({ organizationId: organization_id, userId, role, createdAt: now })
        return { organizationSlug: slug, role } satisfies AcceptedInvitation
      }).pipe(
        sql.withTransaction,
        // only when the operator added them directly in the meantime; the invitation stays unused
        onUniqueViolation(() => new Conflict({ message: "This account is a member of that organization already" }))
      )
    })

    /** The organization's live invitations, as `GET /member` lists them. */
    const live = (organizationId: OrganizationRowId) =>
      Effect.flatMap(nowIso, (now) => repo.liveInOrganization({ organizationId, now })).pipe(Effect.orDie)

    const revoke = Effect.fn("Invitations.revoke")(function*(organizationId: OrganizationRowId, invitationId: string) {
      const revoked = yield* repo.revoke({ organizationId, publicId: invitationId, at: yield* nowIso }).pipe(Effect.orDie)
      if (!revoked) return yield* new NotFound({ message: `Invitation ${invitationId} not found` })
    })

    /** Deletes every invitation past its expiry, in batches; answers how many. */
    const purgeExpired = Effect.flatMap(nowIso, (now) => deleteInBatches(PURGE_BATCH, (size) => repo.deleteExpired({ now, size })))

    return { issue, show, accept, live, revoke, revokePending: repo.revokePending, purgeExpired } as const
  }),
  dependencies: [InvitationsRepo.Default, OrganizationsRepo.Default, Ids.Default, PublicOrigin.Default]
}) {}

/** The invitations' retention: a fiber of the server's scope deletes the expired ones (src/Runtime/Background.ts). */
export const InvitationsRetentionLive = Layer.scopedDiscard(Effect.gen(function*() {
  const invitations = yield* Invitations
  const pass = invitations.purgeExpired.pipe(
    Effect.tap((deleted) => deleted === 0 ? Effect.void : Effect.logDebug(`member invitations: ${deleted} expired deleted`))
  )
  yield* repeatedly("member invitations retention", pass, retentionPause(INVITATION_TTL))
}))
