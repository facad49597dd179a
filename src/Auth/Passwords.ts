/**
 * A user's new password (docs/integrators.md#the-dashboard): the hash is replaced, and every
 * sign-in of theirs ends in the same transaction (login access tokens and dashboard sessions),
 * so whoever signed in with the old one is out at once. The user is Organizations' (Users.ts);
 * the sign-ins are Auth's.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { InvalidRequest, NotFound } from "../Domain/Errors.js"
import { emailKeyOf } from "../Domain/Fields.js"
import { hashPassword } from "../Domain/Secrets.js"
import { Users, type UserRow } from "../Organizations/Users.js"
import { Auth } from "./Auth.js"
import { AuthRepo } from "./AuthRepo.js"

const passwordRule = (password: Redacted.Redacted, path: string) => {
  const length = Redacted.value(password).length
  return length < 8 || length > 1024 ? Effect.fail(InvalidRequest.at(path, "must be 8 to 1024 characters")) : Effect.void
}

export class Passwords extends Effect.Service<Passwords>()("Convene/Passwords", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const users = yield* Users
    const repo = yield* AuthRepo
    const auth = yield* Auth

    /** The hash replaced and every sign-in ended, in one transaction; answers how many access tokens ended. */
    const replacePassword = (user: UserRow, password: Redacted.Redacted) =>
      Effect.gen(function*() {
        const passwordHash = yield* hashPassword(password)
        return yield* Effect.gen(function*() {
          yield* users.setPasswordHash({ userId: user.id, passwordHash })
          const accessTokensEnded = yield* repo.endAccessTokens(user.id)
          yield* auth.endSessions(user.id)
          return accessTokensEnded
        }).pipe(sql.withTransaction, Effect.orDie)
      })

    /**
     * The operator's recovery of an account (admin CLI), e.g. one that another organization created
     * with a password of its choosing while the email was new: a new password, and every sign-in
     * of the user (access tokens, dashboard sessions) ends at once.
     */
    const setPassword = Effect.fn("Passwords.setPassword")(function*(email: string, password: Redacted.Redacted) {
      yield* passwordRule(password, "password")
      const user = yield* users.byEmail(emailKeyOf(email)).pipe(Effect.orDie)
      if (Option.isNone(user)) return yield* new NotFound({ message: `No user has the email ${email.trim()}` })
      const accessTokensEnded = yield* replacePassword(user.value, password)
      return { email: user.value.email, userId: user.value.public_id, accessTokensEnded }
    })

    /**
     * A signed-in user's change of their own password (the dashboard's Account page). The current
     * password is checked under the sign-in lockout (`Auth.verify`, for the client address `client`:
     * a wrong one counts as a failed sign-in, and a locked email is refused even with the right
     * one); then every sign-in of the user ends, the one that made the change included.
     */
    const changePassword = Effect.fn("Passwords.changePassword")(function*(
      userId: number,
      current: Redacted.Redacted,
      password: Redacted.Redacted,
      client: string
    ) {
      yield* passwordRule(password, "newPassword")
      const user = yield* users.byId(userId).pipe(Effect.orDie)
      if (Option.isNone(user)) return yield* new NotFound({ message: "No such user" })
      yield* auth.verify(user.value.email, current, client)
      yield* replacePassword(user.value, password)
    })

    return { setPassword, changePassword } as const
  }),
  dependencies: [Users.Default, AuthRepo.Default, Auth.Default]
}) {}
