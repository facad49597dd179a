/**
 * An organization's API tokens (`/api-token`, the dashboard's Team settings, the admin CLI, the
 * start-up bootstrap): created with 256 random bits and stored as their hash only (the plain
 * token is shown once), listed, revoked. The table is Auth's, like every credential.
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { NotFound } from "../Domain/Errors.js"
import { Ids } from "../Domain/Ids.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { API_TOKEN_PREFIX, hashToken } from "../Domain/Secrets.js"
import { nowIso } from "../Domain/Time.js"
import { AuthRepo } from "./AuthRepo.js"

export interface ApiTokenInfo {
  readonly tokenId: string
  readonly name: string
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
}

export class ApiTokens extends Effect.Service<ApiTokens>()("Convene/ApiTokens", {
  effect: Effect.gen(function*() {
    const repo = yield* AuthRepo
    const ids = yield* Ids

    /** Stores the hash of `plain`; the plain token is never stored. */
    const registerApiToken = (organizationId: OrganizationRowId, name: string, plain: Redacted.Redacted) =>
      Effect.gen(function*() {
        const tokenId = yield* ids.uuid
        yield* repo.insertApiToken({
          publicId: tokenId,
          organizationId,
          name,
          tokenHash: hashToken(Redacted.value(plain)),
          createdAt: yield* nowIso
        })
        return tokenId
      }).pipe(Effect.orDie)

    const createApiToken = Effect.fn("ApiTokens.createApiToken")(function*(organizationId: OrganizationRowId, name: string) {
      const token = Redacted.make(API_TOKEN_PREFIX + (yield* ids.secret(32)))
      const tokenId = yield* registerApiToken(organizationId, name, token)
      return { tokenId, name, token }
    })

    const apiTokenExists = (plain: Redacted.Redacted) =>
      repo.apiTokenExists(hashToken(Redacted.value(plain))).pipe(Effect.orDie)

    const apiTokens = (organizationId: OrganizationRowId) =>
      repo.apiTokens(organizationId).pipe(
        Effect.orDie,
        Effect.map((rows) =>
          rows.map((row): ApiTokenInfo => ({
            tokenId: row.public_id,
            name: row.name,
            createdAt: row.created_at,
            lastUsedAt: row.last_used_at,
            revokedAt: row.revoked_at
          }))
        )
      )

    const revokeApiToken = Effect.fn("ApiTokens.revokeApiToken")(function*(organizationId: OrganizationRowId, tokenId: string) {
      const revoked = yield* repo.revokeApiToken({ organizationId, publicId: tokenId, revokedAt: yield* nowIso }).pipe(
        Effect.orDie
      )
      if (!revoked) return yield* new NotFound({ message: `API token ${tokenId} not found` })
    })

    return { registerApiToken, createApiToken, apiTokenExists, apiTokens, revokeApiToken } as const
  }),
  dependencies: [AuthRepo.Default, Ids.Default]
}) {}
