/**
 * Credentials in the database: API tokens (an organization's) and login access tokens (a user's),
 * found by hash. Auth writes both tables, and only Auth; the writes that can end a credential make
 * the remembered ones be looked up again (CredentialCache.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/DirectSql.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"
import { CredentialCache } from "./CredentialCache.js"

const ApiTokenCredential = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  organization_id: rowIdColumn.organization,
  slug: Schema.String,
  last_used_at: Schema.NullOr(Schema.String)
})

const AccessTokenCredential = Schema.Struct({
  public_id: Schema.String,
  user_id: Schema.Number,
  user_public_id: Schema.String,
  expires_at: Schema.String
})

export const ApiTokenRow = Schema.Struct({
  public_id: Schema.String,
  name: Schema.String,
  created_at: Schema.String,
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
})

export class AuthRepo extends Effect.Service<AuthRepo>()("Convene/AuthRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const credentials = yield* CredentialCache

    // every authenticated request runs one of these two lookups: they take the direct path
    const apiToken = (hash: Uint8Array) =>
      Effect.map(
        direct.first(
          ApiTokenCredential,
          sql`SELECT t.id, t.public_id, t.organization_id, o.slug, t.last_used_at
              FROM api_tokens t JOIN organizations o ON o.id = t.organization_id
              WHERE t.token_hash = ${hash} AND t.revoked_at IS NULL`
        ),
        Option.fromNullable
      )

    const touchApiToken = (id: number, at: string) =>
      direct.run(sql`UPDATE api_tokens SET last_used_at = ${at} WHERE id = ${id}`)

    const accessToken = ({ hash, now }: { readonly hash: Uint8Array; readonly now: string }) =>
      Effect.map(
        direct.first(
          AccessTokenCredential,
          sql`SELECT a.public_id, a.user_id, u.public_id AS user_public_id, a.expires_at
              FROM access_tokens a JOIN users u ON u.id = a.user_id
              WHERE a.token_hash = ${hash} AND a.expires_at > ${now}`
        ),
        Option.fromNullable
      )

    const insertAccessToken = (row: {
      publicId: string
      userId: number
      tokenHash: Uint8Array
      createdAt: string
      expiresAt: string
    }) =>
      sql`INSERT INTO access_tokens (public_id, user_id, token_hash, created_at, expires_at)
          VALUES (${row.publicId}, ${row.userId}, ${row.tokenHash}, ${row.createdAt}, ${row.expiresAt})`

    const deleteExpiredAccessTokens = (now: string) => sql`DELETE FROM access_tokens WHERE expires_at <= ${now}`

    /** Ends every login access token of a user (their password was replaced); answers how many. */
    const endAccessTokens = (userId: number) =>
      sql`DELETE FROM access_tokens WHERE user_id = ${userId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        Effect.tap(credentials.forget)
      )

    const insertApiToken = (row: {
      publicId: string
      organizationId: OrganizationRowId
      name: string
      tokenHash: Uint8Array
      createdAt: string
    }) =>
      sql`INSERT INTO api_tokens (public_id, organization_id, name, token_hash, created_at)
          VALUES (${row.publicId}, ${row.organizationId}, ${row.name}, ${row.tokenHash}, ${row.createdAt})`

    const apiTokenExists = (tokenHash: Uint8Array) =>
      sql`SELECT 1 AS found FROM api_tokens WHERE token_hash = ${tokenHash}`.pipe(Effect.map((rows) => rows.length > 0))

    const apiTokens = SqlSchema.findAll({
      Request: Schema.Number,
      Result: ApiTokenRow,
      execute: (organizationId) =>
        sql`SELECT public_id, name, created_at, last_used_at, revoked_at FROM api_tokens
            WHERE organization_id = ${organizationId} ORDER BY id`
    })

    const revokeApiToken = (row: { organizationId: OrganizationRowId; publicId: string; revokedAt: string }) =>
      sql`UPDATE api_tokens SET revoked_at = coalesce(revoked_at, ${row.revokedAt})
          WHERE organization_id = ${row.organizationId} AND public_id = ${row.publicId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.tap(credentials.forget)
      )

    return {
      apiToken,
      touchApiToken,
      accessToken,
      insertAccessToken,
      deleteExpiredAccessTokens,
      endAccessTokens,
      insertApiToken,
      apiTokenExists,
      apiTokens,
      revokeApiToken
    } as const
  }),
  dependencies: [CredentialCache.Default]
}) {}
