/**
 * Member invitations in the database. A pending invitation is neither accepted nor revoked; a live one
 * is pending and not yet expired. A link is found only by its token's hash, always for one user:
 * nothing here finds an invitation by the user alone, so holding the account is not enough to
 * see or take one. Acceptance is one guarded UPDATE, so a token works once. Past its expiry an
 * invitation is of no use, whatever became of it (accepted, revoked or neither): the retention
 * deletes it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Role } from "../Domain/Role.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"

export const AcceptedRow = Schema.Struct({ organization_id: rowIdColumn.organization, slug: Schema.String, role: Role })

export const InvitedMemberRow = Schema.Struct({
  public_id: Schema.String,
  user_public_id: Schema.String,
  email: Schema.String,
  role: Role,
  expires_at: Schema.String
})

export const LinkRow = Schema.Struct({
  slug: Schema.String,
  name: Schema.String,
  role: Role,
  email: Schema.String,
  expires_at: Schema.String
})

/** The live invitation of `userId` that a link's token names. */
export interface LinkKey {
  readonly tokenHash: Uint8Array
  readonly userId: number
  readonly now: string
}

export class InvitationsRepo extends Effect.Service<InvitationsRepo>()("Convene/InvitationsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const pending = sql`accepted_at IS NULL AND revoked_at IS NULL`

    /** Ends the user's pending invitation to the organization, if any (a new one replaces it). */
    const revokePending = (row: { organizationId: OrganizationRowId; userId: number; at: string }) =>
      sql`UPDATE member_invitations SET revoked_at = ${row.at}
          WHERE organization_id = ${row.organizationId} AND user_id = ${row.userId} AND ${pending}`

    const insert = (row: {
      publicId: string
      organizationId: OrganizationRowId
      userId: number
      role: Role
      tokenHash: Uint8Array
      invitedBy: number | null
      createdAt: string
      expiresAt: string
    }) =>
      sql`INSERT INTO member_invitations
            (public_id, organization_id, user_id, role, token_hash, invited_by_user_id, created_at, expires_at)
          VALUES (${row.publicId}, ${row.organizationId}, ${row.userId}, ${row.role}, ${row.tokenHash},
            ${row.invitedBy}, ${row.createdAt}, ${row.expiresAt})`

    /** What a live link of `userId` offers; another user's link, or one expired, revoked or used, is none. */
    const byLink = SqlSchema.findOne({
      Request: Schema.Struct({ tokenHash: Schema.Uint8ArrayFromSelf, userId: Schema.Number, now: Schema.String }),
      Result: LinkRow,
      execute: ({ now, tokenHash, userId }) =>
        sql`SELECT o.slug, o.name, i.role, u.email, i.expires_at
            FROM member_invitations i
              JOIN organizations o ON o.id = i.organization_id
              JOIN users u ON u.id = i.user_id
            WHERE i.token_hash = ${tokenHash} AND i.user_id = ${userId}
              AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now}`
    })

    /** Marks the live invitation of a link accepted and answers where it leads; otherwise none. */
    const accept = ({ now, tokenHash, userId }: LinkKey) =>
      sql`UPDATE member_invitations SET accepted_at = ${now}
          WHERE token_hash = ${tokenHash} AND user_id = ${userId} AND ${pending} AND expires_at > ${now}
          RETURNING organization_id, role,
            (SELECT o.slug FROM organizations o WHERE o.id = member_invitations.organization_id) AS slug`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(AcceptedRow))),
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    /** An invitation of the organization that was never accepted: revoking it again changes nothing. */
    const revoke = (row: { organizationId: OrganizationRowId; publicId: string; at: string }) =>
      sql`UPDATE member_invitations SET revoked_at = coalesce(revoked_at, ${row.at})
          WHERE organization_id = ${row.organizationId} AND public_id = ${row.publicId} AND accepted_at IS NULL
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))

    const liveInOrganization = SqlSchema.findAll({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, now: Schema.String }),
      Result: InvitedMemberRow,
      execute: ({ now, organizationId }) =>
        sql`SELECT i.public_id, u.public_id AS user_public_id, u.email, i.role, i.expires_at
            FROM member_invitations i JOIN users u ON u.id = i.user_id
            WHERE i.organization_id = ${organizationId} AND i.accepted_at IS NULL AND i.revoked_at IS NULL
              AND i.expires_at > ${now}
            ORDER BY i.id`
    })

    /** Deletes at most `size` invitations whose expiry is past, in any state; answers how many. */
    const deleteExpired = ({ now, size }: { readonly now: string; readonly size: number }) =>
      sql`DELETE FROM member_invitations WHERE id IN
            (SELECT id FROM member_invitations WHERE expires_at <= ${now} LIMIT ${size})
          RETURNING id`.pipe(Effect.map((rows) => rows.length))

    return { revokePending, insert, byLink, accept, revoke, liveInOrganization, deleteExpired } as const
  })
}) {}
