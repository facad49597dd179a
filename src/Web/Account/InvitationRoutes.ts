/**
 * The page an invitation link opens (docs/integrators.md#members-and-invitations): the signed-in
 * user it was issued to joins the organization with one button, whether or not they belong to one
 * already (UserPages.ts), through the same `Invitations` service as the API's accept.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Auth } from "../../Auth/Auth.js"
import { Sessions } from "../../Auth/Sessions.js"
import { Invitations } from "../../Organizations/Invitations.js"
import { pathParams } from "../Kit/Form.js"
import { Web } from "../Kit/Web.js"
import { InvitationMissingPage, InvitationPage } from "./InvitationPage.js"
import { userPages, type UserView } from "./UserPages.js"

export const InvitationRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const invitations = yield* Invitations
    const sessions = yield* Sessions
    const auth = yield* Auth
    const user = yield* userPages
    const { site } = web

    // the page an invitation link opens: the user it was issued to, signed in, accepts it
    const missing = (view: UserView, token: string) =>
      web.render(InvitationMissingPage({ frame: user.frame(view), link: `/app/invitations/${encodeURIComponent(token)}` }), 404)

    yield* router.get(
      "/app/invitations/:token",
      user.page((view) =>
        Effect.gen(function*() {
          const { token } = yield* pathParams("token")
          const offer = yield* invitations.show(token, view.session.userId).pipe(Effect.option)
          if (Option.isNone(offer)) return missing(view, token)
          return web.render(InvitationPage({
            frame: user.frame(view),
            offer: offer.value,
            action: site.href(`/app/invitations/${encodeURIComponent(token)}/accept`)
          }))
        }))
    )

    yield* router.post(
      "/app/invitations/:token/accept",
      user.action((view) =>
        Effect.gen(function*() {
          const { token } = yield* pathParams("token")
          const accepted = yield* invitations.accept(token, view.session.userId).pipe(Effect.either)
          if (accepted._tag === "Left") {
            if (accepted.left._tag === "NotFound") return missing(view, token)
            // the operator added them directly in the meantime
            yield* sessions.flash(view.session, { kind: "error", message: "You are a member of that organization already." })
            return web.redirect("/app/account")
          }
          const { organizationSlug, role } = accepted.right
          const organization = (yield* auth.memberships(view.session.userId)).find((o) => o.slug === organizationSlug)
          if (organization !== undefined) yield* sessions.switchOrganization(view.session, organization.organization_id)
          yield* sessions.flash(view.session, {
            kind: "success",
            message: `Welcome to ${organization?.name ?? organizationSlug}: you joined as ${role}, and you are working there now.`
          })
          return web.redirect("/app/events")
        }))
    )
  })
)
