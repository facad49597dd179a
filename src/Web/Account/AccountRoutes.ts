/**
 * Account (docs/integrators.md#the-dashboard): the signed-in user's name, email and organizations;
 * changing one's own password, which checks the current one under the sign-in lockout and then
 * ends every sign-in of the user (all their dashboard sessions, this one included, and their login
 * access tokens); signing out. These pages are about the user, not an organization, so a user who
 * belongs to no organization (removed from their last one, or not yet joined) uses them too
 * (UserPages.ts).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { Passwords } from "../../Auth/Passwords.js"
import { Sessions, type WebSession } from "../../Auth/Sessions.js"
import { asTyped, fieldsOf } from "../Kit/Form.js"
import { Web } from "../Kit/Web.js"
import { AccountPage, type PasswordError } from "./AccountPage.js"
import { userPages, type UserView } from "./UserPages.js"

/** The password form: passwords as typed, spaces at either end are part of them. */
const readPasswords = fieldsOf(Schema.Struct({
  currentPassword: asTyped(Schema.String),
  newPassword: asTyped(Schema.String),
  confirmPassword: asTyped(Schema.String)
}))
/** The sign-out form: where signing in again leads. */
const readNext = fieldsOf(Schema.Struct({ next: Schema.String }))

/** The one place a sign-out may send the user back to after signing in again. */
const INVITATION_PATH = /^\/app\/invitations\/[A-Za-z0-9_-]{1,200}$/

const nameOf = (session: WebSession) => [session.firstName, session.lastName].filter((s) => s !== null && s !== "").join(" ")

/** The fields of the password form, checked before the current password is (which counts toward the lockout). */
const passwordErrors = (current: string, next: string, confirmation: string): ReadonlyArray<PasswordError> => {
  const errors: Array<PasswordError> = []
  if (current === "") errors.push({ field: "currentPassword", message: "Enter your current password." })
  if (next.length < 8) errors.push({ field: "newPassword", message: "The new password must be at least 8 characters." })
  else if (next.length > 1024) errors.push({ field: "newPassword", message: "The new password must be at most 1024 characters." })
  else if (confirmation !== next) {
    errors.push({ field: "confirmPassword", message: "The two new passwords differ: type the same one twice." })
  }
  return errors
}

export const AccountPageRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const passwords = yield* Passwords
    const sessions = yield* Sessions
    const user = yield* userPages

    const accountPage = (view: UserView, errors: ReadonlyArray<PasswordError> = [], status = 200) =>
      web.render(
        AccountPage({
          frame: user.frame(view, errors.length > 0 ? null : view.flash),
          name: nameOf(view.session),
          organizations: (view.viewer?.organizations ?? []).map((o) => ({
            slug: o.slug,
            name: o.name,
            role: o.role,
            current: o.id === view.viewer?.organization.id
          })),
          errors
        }),
        status
      )

    yield* router.get("/app/account", user.page((view) => Effect.succeed(accountPage(view))))

    yield* router.post(
      "/app/account/password",
      user.action((view, form) =>
        Effect.gen(function*() {
          const { confirmPassword, currentPassword: current, newPassword: next } = readPasswords(form)
          const errors = passwordErrors(current, next, confirmPassword)
          if (errors.length > 0) return accountPage(view, errors, 400)
          const changed = yield* passwords.changePassword(view.session.userId, Redacted.make(current), Redacted.make(next), yield* web.clientKey).pipe(
            Effect.catchTag("NotFound", Effect.die),
            Effect.either
          )
          if (changed._tag === "Right") return yield* web.withoutSession(web.redirect("/app/login?passwordChanged=1"))
          const error = changed.left
          switch (error._tag) {
            case "Unauthorized":
              return accountPage(view, [{ field: "currentPassword", message: "That is not your current password." }], 400)
            case "RateLimited":
              return accountPage(
                view,
                [{
                  field: "currentPassword",
                  message: `Too many wrong passwords for your account. Try again in ${Math.ceil(error.retryAfter / 60)} minutes.`
                }],
                429
              ).pipe(HttpServerResponse.setHeader("retry-after", String(error.retryAfter)))
            case "InvalidRequest":
              return accountPage(view, [{ field: "newPassword", message: "The new password must be 8 to 1024 characters." }], 400)
          }
        }))
    )

    // sign-out for every signed-in user, one of no organization included (`/app/logout` needs a
    // membership); from an invitation link, signing in again (with another account) leads back to it
    yield* router.post(
      "/app/account/sign-out",
      user.action((view, form) =>
        Effect.gen(function*() {
          yield* sessions.end(view.session)
          const { next } = readNext(form)
          const back = INVITATION_PATH.test(next) ? `&next=${encodeURIComponent(next)}` : ""
          return yield* web.withoutSession(web.redirect(`/app/login?signedOut=1${back}`))
        }))
    )
  })
)
