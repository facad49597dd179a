/**
 * Organizations and their API tokens: used by the API (`/api-token`), the admin CLI and the
 * start-up bootstrap. Members are `Members`' (and `Invitations`').
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest, NotFound } from "../Domain/Errors.js"
import { API_TOKEN_PREFIX, hashToken } from "../Auth/Secrets.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { OrganizationsRepo } from "./OrganizationsRepo.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

export interface ApiTokenInfo {
  readonly tokenId: string
  readonly name: string
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
}

export class Organizations extends Effect.Service<Organizations>()("Convene/Organizations", {
  effect: Effect.gen(function*() {
    const repo = yield* OrganizationsRepo
    const ids = yield* Ids

    const find = (slug: string) => repo.organizationBySlug(slug).pipe(Effect.orDie)

    const get = (slug: string) =>
      find(slug).pipe(Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new NotFound({ message: `Organization ${slug} not found` })),
        onSome: Effect.succeed
      })))

    const create = Effect.fn("Organizations.create")(function*(input: { slug: string; name: string }) {
      if (!/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(input.slug)) {
        return yield* InvalidRequest.at("slug", "must be lowercase letters, digits and inner hyphens")
      }
      return yield* repo.insertOrganization({ slug: input.slug, name: input.name, createdAt: yield* nowIso }).pipe(
        onUniqueViolation(() => new Conflict({ message: `Organization slug ${input.slug} is taken` }))
      )
    })

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

    const createApiToken = Effect.fn("Organizations.createApiToken")(function*(organizationId: OrganizationRowId, name: string) {
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

    const revokeApiToken = Effect.fn("Organizations.revokeApiToken")(function*(organizationId: OrganizationRowId, tokenId: string) {
      const revoked = yield* repo.revokeApiToken({ organizationId, publicId: tokenId, revokedAt: yield* nowIso }).pipe(
        Effect.orDie
      )
      if (!revoked) return yield* new NotFound({ message: `API token ${tokenId} not found` })
    })

    return {
      find,
      get,
      create,
      registerApiToken,
      createApiToken,
      apiTokenExists,
      apiTokens,
      revokeApiToken
    } as const
  }),
  dependencies: [OrganizationsRepo.Default, Ids.Default]
}) {}
