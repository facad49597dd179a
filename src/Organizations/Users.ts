/**
 * What other features read and write of users and memberships (Auth: who a credential is, what it
 * may do, a new password). Users, memberships and organizations are this feature's tables; these
 * run wherever they are called, inside the caller's transaction when there is one.
 */
import * as Effect from "effect/Effect"
import { OrganizationsRepo } from "./OrganizationsRepo.js"

export type { MembershipRow, UserRow } from "./OrganizationsRepo.js"

export class Users extends Effect.Service<Users>()("Convene/Users", {
  effect: Effect.gen(function*() {
    const repo = yield* OrganizationsRepo
    return {
      /** A user by their email's key (`emailKeyOf`). */
      byEmail: repo.userByEmail,
      byId: repo.userById,
      /** Every organization of a user, with their role in it, by slug. */
      memberships: repo.membershipsOfUser,
      /** A user's role in one organization, by slug. */
      membership: repo.membership,
      /** Replaces a user's password hash (Auth/Passwords.ts ends their sign-ins in the same transaction). */
      setPasswordHash: repo.setPasswordHash
    } as const
  }),
  dependencies: [OrganizationsRepo.Default]
}) {}
