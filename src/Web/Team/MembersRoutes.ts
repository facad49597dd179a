/**
 * Team settings › Members (docs/integrators.md#members-and-invitations, docs/integrators.md#the-dashboard):
 * Admins and above see the members and the open invitations, as `GET /member`; a Super Admin adds
 * (a new email becomes a user with the initial password, an existing user gets a one-time
 * invitation link instead; the form decoded with the API's `NewMember`), changes roles, removes and
 * withdraws invitations, through the same `Members` service as the API, so the last Super Admin
 * stays. The page an invitation link opens is the user's: Account/InvitationRoutes.ts.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type Conflict, NotFound } from "../../Domain/Errors.js"
import { Role } from "../../Domain/Role.js"
import { NewMemberJson } from "../../Organizations/Api.js"
import { MemberAdded, Members } from "../../Organizations/Members.js"
import { confirmed, decodeForm, fieldsOf, type FormIssue, orNone, pathParams } from "../Kit/Form.js"
import type { FlashView } from "../Kit/Layout.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { type AddMemberForm, memberName, MembersPage, type NewInvitation } from "./MembersPage.js"

const fieldLabels = {
  email: "Email",
  password: "Initial password",
  firstName: "First name",
  lastName: "Last name",
  role: "Role"
} as const
type MemberField = keyof typeof fieldLabels

const isMemberField = (key: string): key is MemberField => key in fieldLabels

/** A refused add form, as one message per field. */
const fieldErrors = (issues: ReadonlyArray<FormIssue>): AddMemberForm["errors"] =>
  issues.flatMap(({ field, message }) =>
    isMemberField(field)
      ? [{ field, message: `${fieldLabels[field]} ${field === "role" ? "must be one of Super Admin, Admin, Team Member and Viewer" : message}.` }]
      : [])

const decodeNewMember = decodeForm(NewMemberJson)
/** The add form as typed, shown again when refused. */
const readTyped = fieldsOf(Schema.Struct({ email: Schema.String, firstName: Schema.String, lastName: Schema.String, role: Schema.String }))
const readRole = fieldsOf(Schema.Struct({ role: orNone(Role) }))

const MEMBERS = "/app/team/members"

export const MembersRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const members = yield* Members
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

    /** A refusal of the members' service said on the page (the last Super Admin stays); an unknown member, the 404 page. */
    const refused = (viewer: Viewer) => (error: NotFound | Conflict) =>
      error._tag === "NotFound" ? Effect.fail(error) : membersPage(viewer, { flash: { kind: "error", message: `${error.message}.` } }, 409)

    /** A member of the viewer's organization by user id; another organization's is unknown, as in the API. */
    const memberOf = (viewer: Viewer) =>
      Effect.gen(function*() {
        const { userId } = yield* pathParams("userId")
        const found = (yield* members.active(viewer.organization.id)).find((m) => m.userId === userId)
        if (found === undefined) return yield* new NotFound({ message: `Member ${userId} not found` })
        return found
      })

    yield* router.get(MEMBERS, web.page("Admin", (viewer) => membersPage(viewer)))

    yield* router.post(
      MEMBERS,
      web.action("Super Admin", (viewer, form) =>
        Effect.gen(function*() {
          const values = readTyped(form)
          const decoded = decodeNewMember(form)
          if (Either.isLeft(decoded)) return yield* membersPage(viewer, { flash: null, form: { values, errors: fieldErrors(decoded.left) } }, 400)
          const input = decoded.right
          const person = { email: input.email, firstName: input.firstName ?? null, lastName: input.lastName ?? null }
          const added = members.add(viewer.organization, { ...person, password: Option.some(input.password), role: input.role }, viewer.caller.userId)
          return yield* web.perform(viewer, added, {
            to: MEMBERS,
            done: MemberAdded.$match({
              Added: () => `${memberName(person)} was added as ${input.role}. They can sign in now with ${input.email} and the initial password you chose.`,
              Invited: ({ expiresAt, inviteUrl }) =>
                membersPage(viewer, {
                  flash: { kind: "success", message: `Invitation for ${input.email} created. Send them the link below.` },
                  invited: { email: input.email, role: input.role, inviteUrl, expiresAt }
                })
            }),
            failed: (error) => {
              const refusal = error._tag === "Conflict"
                ? { field: "email" as const, message: `${input.email} is a member of ${viewer.organization.name} already.` }
                : { field: "password" as const, message: "Initial password is required for a new member." }
              return membersPage(viewer, { flash: null, form: { values, errors: [refusal] } }, error._tag === "Conflict" ? 409 : 400)
            }
          })
        }))
    )

    yield* router.post(
      "/app/team/members/:userId/role",
      web.action("Super Admin", (viewer, form) =>
        Effect.gen(function*() {
          const target = yield* memberOf(viewer)
          const name = memberName(target)
          const { role } = readRole(form)
          if (role === undefined) return yield* membersPage(viewer, { flash: { kind: "error", message: "Choose one of the four roles." } }, 400)
          if (role === target.role) return yield* web.flashTo(viewer, "success", `${name} is ${role} already: nothing changed.`, MEMBERS)
          const self = target.userId === viewer.session.userPublicId
          return yield* web.perform(viewer, members.changeRole(viewer.organization.id, target.userId, role), {
            // a Super Admin who made themself Team Member or Viewer may no longer see this page
            to: self && role !== "Admin" ? "/app/events" : MEMBERS,
            done: () => (self ? `Your role is now ${role}.` : `${name} is now ${role}.`),
            failed: refused(viewer)
          })
        }))
    )

    yield* router.post(
      "/app/team/members/:userId/remove",
      web.action("Super Admin", (viewer, form) =>
        Effect.gen(function*() {
          const target = yield* memberOf(viewer)
          const name = memberName(target)
          const organization = viewer.organization.name
          const self = target.userId === viewer.session.userPublicId
          if (!confirmed(form)) {
            return web.confirm(viewer, {
              section: "team",
              title: self ? `Remove yourself from ${organization}?` : `Remove ${name}?`,
              message: self
                ? `You lose access to ${organization} at once. Only another Super Admin can add you again.`
                : `${name} (${target.email}) loses access to ${organization} at once. Their account stays, and so does their work.`,
              action: `/app/team/members/${encodeURIComponent(target.userId)}/remove`,
              confirmLabel: self ? "Remove myself" : `Remove ${name}`,
              cancel: MEMBERS
            })
          }
          return yield* web.perform(viewer, members.remove(viewer.organization.id, target.userId), {
            to: self ? "/app/account" : MEMBERS,
            done: () => (self ? `You left ${organization}.` : `${name} was removed from ${organization}. Their access ended at once.`),
            failed: refused(viewer)
          })
        }))
    )

    yield* router.post(
      "/app/team/invitations/:invitationId/withdraw",
      web.action("Super Admin", (viewer, form) =>
        Effect.gen(function*() {
          const { invitationId } = yield* pathParams("invitationId")
          const invitation = (yield* members.list(viewer.organization.id)).find((m) => m.invitationId === invitationId)
          if (invitation === undefined) return yield* new NotFound({ message: `Invitation ${invitationId} not found` })
          if (!confirmed(form)) {
            return web.confirm(viewer, {
              section: "team",
              title: `Withdraw the invitation of ${invitation.email}?`,
              message: "The link you sent them stops working at once. You can invite them again later.",
              action: `/app/team/invitations/${encodeURIComponent(invitationId)}/withdraw`,
              confirmLabel: "Withdraw the invitation",
              cancel: MEMBERS
            })
          }
          yield* members.revokeInvitation(viewer.organization.id, invitationId)
          return yield* web.flashTo(viewer, "success", `The invitation of ${invitation.email} was withdrawn. Its link no longer works.`, MEMBERS)
        }))
    )
  })
)
