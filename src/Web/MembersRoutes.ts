/**
 * Team settings › Members (docs/integrators.md#members-and-invitations, docs/integrators.md#the-dashboard): Admins and above see the members and the open
 * invitations, as `GET /member`; a Super Admin adds (a new email becomes a user with the initial
 * password, an existing user gets a one-time invitation link instead), changes roles, removes and
 * withdraws invitations, through the same `Members` service as the API, so the last Super Admin
 * stays. Also the page an invitation link opens, where the user it was issued to joins.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { Auth } from "../Auth/Auth.js"
import { Sessions } from "../Auth/Sessions.js"
import { Role } from "../Domain/Role.js"
import { NotFound } from "../Domain/Errors.js"
import { NewMemberJson } from "../Organizations/Api.js"
import { Invitations } from "../Organizations/Invitations.js"
import { MemberAdded, Members } from "../Organizations/Members.js"
import { userPages, type UserView } from "./AccountRoutes.js"
import type { FlashView } from "./Html.js"
import { InvitationMissingPage, InvitationPage } from "./Pages/Invitation.js"
import { type AddMemberForm, memberName, MembersPage, type NewInvitation } from "./Pages/Members.js"
import { ConfirmPage } from "./Kit/Confirm.js"
import { type Viewer, Web } from "./Web.js"

const fieldLabels = {
  email: "Email",
  password: "Initial password",
  firstName: "First name",
  lastName: "Last name",
  role: "Role"
} as const
type MemberField = keyof typeof fieldLabels

const isMemberField = (key: unknown): key is MemberField => typeof key === "string" && key in fieldLabels

/** A decoding failure of the add form, as one message per field. */
const fieldErrors = (error: ParseResult.ParseError): AddMemberForm["errors"] => {
  const errors: Array<AddMemberForm["errors"][number]> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const field = issue.path[0]
    if (!isMemberField(field) || errors.some((e) => e.field === field)) continue
    const message = field === "role" ? "must be one of Super Admin, Admin, Team Member and Viewer" : issue.message
    errors.push({ field, message: `${fieldLabels[field]} ${message}.` })
  }
  return errors
}

const decodeNewMember = Schema.decodeUnknownEither(NewMemberJson, { errors: "all" })
const decodeRole = Schema.decodeUnknownOption(Role)

export const MembersRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const members = yield* Members
    const invitations = yield* Invitations
    const sessions = yield* Sessions
    const auth = yield* Auth
    const user = yield* userPages
    const { site } = web

    const membersPage = (
      viewer: Viewer,
      extra: { flash?: FlashView | null; form?: AddMemberForm; invited?: NewInvitation } = {},
      status = 200
    ) =>
      Effect.map(members.list(viewer.organization.id), (all) =>
        web.render(
          MembersPage({
            site,
            member: viewer.member,
            flash: extra.flash === undefined ? viewer.flash : extra.flash,
            organizationName: viewer.organization.name,
            members: all.filter((m) => m.status === "active"),
            invitations: all.filter((m) => m.status === "invited"),
            canManage: viewer.can("Super Admin"),
            you: viewer.session.userPublicId,
            form: extra.form,
            invited: extra.invited
          }),
          status
        ))

    /** A member of the viewer's organization by user id; another organization's is unknown, as in the API. */
    const memberOf = (viewer: Viewer) =>
      Effect.gen(function*() {
        const { userId = "" } = yield* HttpRouter.params
        const found = (yield* members.active(viewer.organization.id)).find((m) => m.userId === userId)
        if (found === undefined) return yield* new NotFound({ message: `Member ${userId} not found` })
        return found
      })

    const back = web.redirect("/app/team/members")

    yield* router.get("/app/team/members", web.page("Admin", (viewer) => membersPage(viewer)))

    yield* router.post(
      "/app/team/members",
      web.action("Super Admin", (viewer, form) =>
        Effect.gen(function*() {
          const values = { email: form.get("email"), firstName: form.get("firstName"), lastName: form.get("lastName"), role: form.get("role") }
          const decoded = decodeNewMember({
            email: values.email,
            password: form.get("password"),
            role: values.role,
            ...(values.firstName === "" ? {} : { firstName: values.firstName }),
            ...(values.lastName === "" ? {} : { lastName: values.lastName })
          })
          if (decoded._tag === "Left") return yield* membersPage(viewer, { flash: null, form: { values, errors: fieldErrors(decoded.left) } }, 400)
          const input = decoded.right
          const person = { email: input.email, firstName: input.firstName ?? null, lastName: input.lastName ?? null }
          const added = yield* members.add(viewer.organization, { ...person, password: Option.some(input.password), role: input.role }, viewer.caller.userId)
            .pipe(Effect.either)
          if (added._tag === "Left") {
            const error = added.left._tag === "Conflict"
              ? { field: "email" as const, message: `${input.email} is a member of ${viewer.organization.name} already.` }
              : { field: "password" as const, message: "Initial password is required for a new member." }
            return yield* membersPage(viewer, { flash: null, form: { values, errors: [error] } }, added.left._tag === "Conflict" ? 409 : 400)
          }
          return yield* MemberAdded.$match(added.right, {
            Added: () =>
              Effect.as(
                web.flash(
                  viewer,
                  "success",
                  `${memberName(person)} was added as ${input.role}. ` +
                    `They can sign in now with ${input.email} and the initial password you chose.`
                ),
                back
              ),
            Invited: ({ expiresAt, inviteUrl }) =>
              membersPage(viewer, {
                flash: { kind: "success", message: `Invitation for ${input.email} created. Send them the link below.` },
                invited: { email: input.email, role: input.role, inviteUrl, expiresAt }
              })
          })
        }))
    )

    yield* router.post(
      "/app/team/members/:userId/role",
      web.action("Super Admin", (viewer, form) =>
        Effect.gen(function*() {
          const target = yield* memberOf(viewer)
          const name = memberName(target)
          const role = decodeRole(form.get("role"))
          if (Option.isNone(role)) {
            return yield* membersPage(viewer, { flash: { kind: "error", message: "Choose one of the four roles." } }, 400)
          }
          if (role.value === target.role) {
            yield* web.flash(viewer, "success", `${name} is ${role.value} already: nothing changed.`)
            return back
          }
          const changed = yield* members.changeRole(viewer.organization.id, target.userId, role.value).pipe(Effect.either)
          if (changed._tag === "Left") {
            if (changed.left._tag === "NotFound") return yield* changed.left
            return yield* membersPage(viewer, { flash: { kind: "error", message: `${changed.left.message}.` } }, 409)
          }
          const self = target.userId === viewer.session.userPublicId
          yield* web.flash(viewer, "success", self ? `Your role is now ${role.value}.` : `${name} is now ${role.value}.`)
          // a Super Admin who made themself Team Member or Viewer may no longer see this page
          return self && role.value !== "Admin" ? web.redirect("/app/events") : back
        }))
    )

    yield* router.post(
      "/app/team/members/:userId/remove",
      web.action("Super Admin", (viewer, form) =>
        Effect.gen(function*() {
          const target = yield* memberOf(viewer)
          const name = memberName(target)
          const self = target.userId === viewer.session.userPublicId
          if (form.get("confirm") !== "yes") {
            return web.render(ConfirmPage({
              section: "team",
              site,
              member: viewer.member,
              title: self ? `Remove yourself from ${viewer.organization.name}?` : `Remove ${name}?`,
              message: self
                ? `You lose access to ${viewer.organization.name} at once. Only another Super Admin can add you again.`
                : `${name} (${target.email}) loses access to ${viewer.organization.name} at once. Their account stays, and so does their work.`,
              action: site.href(`/app/team/members/${encodeURIComponent(target.userId)}/remove`),
              confirmLabel: self ? "Remove myself" : `Remove ${name}`,
              cancel: site.href("/app/team/members")
            }))
          }
          const removed = yield* members.remove(viewer.organization.id, target.userId).pipe(Effect.either)
          if (removed._tag === "Left") {
            if (removed.left._tag === "NotFound") return yield* removed.left
            return yield* membersPage(viewer, { flash: { kind: "error", message: `${removed.left.message}.` } }, 409)
          }
          if (self) {
            yield* web.flash(viewer, "success", `You left ${viewer.organization.name}.`)
            return web.redirect("/app/account")
          }
          yield* web.flash(viewer, "success", `${name} was removed from ${viewer.organization.name}. Their access ended at once.`)
          return back
        }))
    )

    yield* router.post(
      "/app/team/invitations/:invitationId/withdraw",
      web.action("Super Admin", (viewer, form) =>
        Effect.gen(function*() {
          const { invitationId = "" } = yield* HttpRouter.params
          const invitation = (yield* members.list(viewer.organization.id)).find((m) => m.invitationId === invitationId)
          if (invitation === undefined) return yield* new NotFound({ message: `Invitation ${invitationId} not found` })
          if (form.get("confirm") !== "yes") {
            return web.render(ConfirmPage({
              section: "team",
              site,
              member: viewer.member,
              title: `Withdraw the invitation of ${invitation.email}?`,
              message: "The link you sent them stops working at once. You can invite them again later.",
              action: site.href(`/app/team/invitations/${encodeURIComponent(invitationId)}/withdraw`),
              confirmLabel: "Withdraw the invitation",
              cancel: site.href("/app/team/members")
            }))
          }
          yield* members.revokeInvitation(viewer.organization.id, invitationId)
          yield* web.flash(viewer, "success", `The invitation of ${invitation.email} was withdrawn. Its link no longer works.`)
          return back
        }))
    )

    // the page an invitation link opens: the user it was issued to, signed in, accepts it
    const missing = (view: UserView, token: string) =>
      web.render(InvitationMissingPage({ frame: user.frame(view), link: `/app/invitations/${encodeURIComponent(token)}` }), 404)

    yield* router.get(
      "/app/invitations/:token",
      user.page((view) =>
        Effect.gen(function*() {
          const { token = "" } = yield* HttpRouter.params
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
          const { token = "" } = yield* HttpRouter.params
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
