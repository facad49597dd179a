/** Dashboard sessions in the database: found by the hash of the cookie's value. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"

export const SessionRow = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  user_id: Schema.Number,
  user_public_id: Schema.String,
  email: Schema.String,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  organization_id: Schema.NullOr(rowIdColumn.organization),
  csrf: Schema.String,
  created_at: Schema.String,
  last_seen_at: Schema.String,
  expires_at: Schema.String,
  flash: Schema.NullOr(Schema.String)
})
export type SessionRow = typeof SessionRow.Type

export class SessionsRepo extends Effect.Service<SessionsRepo>()("Convene/SessionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const d = dialectOf(sql)

    const insert = (row: {
      publicId: string
      tokenHash: Uint8Array
      userId: number
      organizationId: OrganizationRowId | null
      csrf: string
      at: string
      expiresAt: string
    }) =>
      sql`INSERT INTO sessions (public_id, token_hash, user_id, organization_id, csrf, created_at, last_seen_at, expires_at)
          VALUES (${row.publicId}, ${row.tokenHash}, ${row.userId}, ${row.organizationId}, ${row.csrf}, ${row.at}, ${row.at},
                  ${row.expiresAt})`

    /** A session that is neither revoked nor past its absolute expiry (idle expiry is the caller's). */
    const byTokenHash = SqlSchema.findOne({
      Request: Schema.Struct({ tokenHash: Schema.Uint8ArrayFromSelf, now: Schema.String }),
      Result: SessionRow,
      execute: ({ now, tokenHash }) =>
        sql`SELECT s.id, s.public_id, s.user_id, u.public_id AS user_public_id, u.email, u.first_name, u.last_name,
              s.organization_id, s.csrf, s.created_at, s.last_seen_at, s.expires_at, s.flash
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = ${tokenHash} AND s.revoked_at IS NULL AND s.expires_at > ${now}`
    })

    const touch = (id: number, at: string) => sql`UPDATE sessions SET last_seen_at = ${at} WHERE id = ${id}`

    const setOrganization = (id: number, organizationId: OrganizationRowId) =>
      sql`UPDATE sessions SET organization_id = ${organizationId} WHERE id = ${id}`

    const setFlash = (id: number, flash: string | null) => sql`UPDATE sessions SET flash = ${flash} WHERE id = ${id}`

    const revoke = (id: number, at: string) =>
      sql`UPDATE sessions SET revoked_at = coalesce(revoked_at, ${at}) WHERE id = ${id}`

    /** Ends every session of a user (a password change), except the one given, if any. */
    const revokeAllOfUser = (userId: number, exceptId: number | null, at: string) =>
      sql`UPDATE sessions SET revoked_at = ${at}
          WHERE user_id = ${userId} AND revoked_at IS NULL AND (${d.param(exceptId, "integer")} IS NULL OR id != ${exceptId})`

    /** Sessions that can never be used again are deleted now and then; answers how many. */
    const deleteEnded = (now: string, idleBefore: string) =>
      Effect.map(
        sql`DELETE FROM sessions WHERE expires_at <= ${now} OR revoked_at IS NOT NULL OR last_seen_at <= ${idleBefore} RETURNING id`,
        (rows) => rows.length
      )

    /**
     * Keeps a user's `keep` newest live sessions and deletes the others: the oldest live ones past
     * `keep`, and the user's ended ones (revoked, expired, idle since `idleBefore`).
     */
    const keepNewest = (userId: number, keep: number, now: string, idleBefore: string) =>
      sql`DELETE FROM sessions WHERE user_id = ${userId} AND id NOT IN (
            SELECT id FROM sessions
            WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > ${now} AND last_seen_at > ${idleBefore}
            ORDER BY id DESC LIMIT ${keep})`

    return { insert, byTokenHash, touch, setOrganization, setFlash, revoke, revokeAllOfUser, deleteEnded, keepNewest } as const
  })
}) {}
