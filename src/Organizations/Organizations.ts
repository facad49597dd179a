/**
 * Organizations: used by the API, the admin CLI and the start-up bootstrap. Members are `Members`'
 * (and `Invitations`'); their API tokens are Auth's (Auth/ApiTokens.ts).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest, NotFound } from "../Domain/Errors.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { OrganizationsRepo } from "./OrganizationsRepo.js"

export class Organizations extends Effect.Service<Organizations>()("Convene/Organizations", {
  effect: Effect.gen(function*() {
    const repo = yield* OrganizationsRepo

    const find = (slug: string) => repo.organizationBySlug(slug).pipe(Effect.orDie)

    /** An organization by its row id (the one an event belongs to, for its public page). */
    const byId = (id: OrganizationRowId) => repo.organizationById(id).pipe(Effect.orDie)

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

    return { find, byId, get, create } as const
  }),
  dependencies: [OrganizationsRepo.Default]
}) {}
