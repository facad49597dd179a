/** Credential lookups by hash, and login access tokens. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/DirectSql.js"
import { rowIdColumn } from "../Domain/RowIds.js"

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

export class AuthRepo extends Effect.Service<AuthRepo>()("Convene/AuthRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    // every authenticated request runs one of these two lookups: they take the direct path
    const apiToken = (hash: Uint8Array) =>
      Effect.map(
        direct.first<typeof ApiTokenCredential.Type>(
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
        direct.first<typeof AccessTokenCredential.Type>(
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

    return { apiToken, touchApiToken, accessToken, insertAccessToken, deleteExpiredAccessTokens } as const
  })
}) {}
