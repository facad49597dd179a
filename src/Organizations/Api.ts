/** Members, invitations and API tokens of the caller's organization (docs/integrators.md#members-and-invitations, docs/integrators.md#managing-api-tokens). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { AdminAccess, SessionAccess, SuperAdminAccess } from "../Auth/Access.js"
import { optional, PASSWORD_MAX_LENGTH, RequiredText, UserEmail } from "../Domain/Fields.js"
import { Role } from "../Domain/Role.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { Conflict, Forbidden, NotFound } from "../Domain/Errors.js"
import { PayloadTooLarge } from "../Http/Errors.js"

export const MemberJson = Schema.Struct({
  userId: Schema.String,
  email: Schema.String,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  role: Role,
  status: Schema.Literal("active", "invited").annotations({
    description: "`invited`: an existing user who has not accepted yet, and is not a member until they do."
  }),
  invitationId: optional(Schema.String).annotations({
    description: "Invited entries: the invitation to revoke (an id for the organization, not a way to accept it)."
  }),
  expiresAt: optional(Schema.String).annotations({ description: "Invited entries: when the link stops working." })
}).annotations({ identifier: "Member" })

export const ApiTokenJson = Schema.Struct({
  tokenId: Schema.String,
  name: Schema.String,
  createdAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String)
}).annotations({
  identifier: "ApiToken",
  examples: [{
    tokenId: "3d5e7f90-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
    name: "CRM sync",
    createdAt: "2030-05-01T09:00:00.000Z",
    lastUsedAt: "2030-05-02T14:12:09.000Z",
    revokedAt: null
  }]
})

export const NewMemberJson = Schema.Struct({
  email: UserEmail,
  password: Schema.Redacted(Schema.String.pipe(
    Schema.minLength(8, { message: () => "must be at least 8 characters" }),
    Schema.maxLength(PASSWORD_MAX_LENGTH)
  )).annotations({ description: "The new user's password; ignored, and never stored, when the email has a user already." }),
  firstName: optional(Schema.NullOr(RequiredText(200))),
  lastName: optional(Schema.NullOr(RequiredText(200))),
  role: Role
}).annotations({
  identifier: "NewMember",
  examples: [{ email: "ben@acme.test", password: Redacted.make("a long secret"), firstName: "Ben", lastName: "Okafor", role: "Team Member" }]
})

export const MemberAddedJson = Schema.Struct({ userId: Schema.String }).annotations({
  identifier: "MemberAdded",
  examples: [{ userId: "0b0e8a52-61a4-4b5e-9a3c-2f1d4e5c6b7a" }]
})

export const MemberInvitedJson = Schema.Struct({
  status: Schema.Literal("invited"),
  inviteUrl: Schema.String.annotations({
    description: "A one-time link for the user to open signed in to their own account (7 days)."
  }),
  expiresAt: Schema.String
}).annotations(HttpApiSchema.annotations({
  identifier: "MemberInvited",
  status: 202,
  examples: [{
    status: "invited",
    inviteUrl: "https://events.example.org/app/invitations/cvi_Jx0q9mB2sL7dV4kR8tY1wZ3cN6pH5fG2aE0uI9oQ",
    expiresAt: "2030-05-08T09:00:00.000Z"
  }]
}))

export const InvitationJson = Schema.Struct({
  organizationSlug: Schema.String,
  organizationName: Schema.String,
  role: Role,
  email: Schema.String.annotations({ description: "The invited account's email: the signed-in user's own." }),
  expiresAt: Schema.String
}).annotations({ identifier: "Invitation" })

export const AcceptedInvitationJson = Schema.Struct({ organizationSlug: Schema.String, role: Role })
  .annotations({ identifier: "AcceptedInvitation" })

const Success = Schema.Struct({ success: Schema.Literal(true) })
const UserPath = Schema.Struct({ userId: Schema.String })

/**
 * An invitation link is read and accepted with a user's own sign-in (a Bearer access token, no
 * `organizationSlug`): an API token gets 403. The document shows that scheme alone.
 */
const bearerOnly = { security: [{ bearer: [] }] }

const TokenPath = Schema.Struct({
  token: Schema.String.annotations({ description: "The last segment of the `inviteUrl` (`cvi_...`)." })
})

const linkOnly = "The link is the only way to an invitation: none is listed for the account, nor accepted by id. " +
  "Only the access token of the user it was issued to reads it; another user, or an expired, revoked, used or " +
  "unknown link, gets 404 (the same answer, whichever it was); an API token gets 403."

export class OrganizationsApi extends HttpApiGroup.make("organization")
  .add(
    HttpApiEndpoint.post("addMember", "/member")
      .setPayload(NewMemberJson)
      .addSuccess(MemberAddedJson)
      .addSuccess(MemberInvitedJson)
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(SuperAdminAccess)
      .annotate(OpenApi.Identifier, "organization.addMember")
      .annotate(OpenApi.Summary, "Add a member: a new email becomes a user (200); an existing user is invited (202)")
      .annotate(
        OpenApi.Description,
        "A user is created with the given password only when the email is new to the whole instance. " +
          "For an email that has a user already, nothing is granted at once: the answer is 202 with a " +
          "one-time `inviteUrl` (7 days) that the user opens signed in to their own account; the password " +
          "is ignored. Hand the link to the person yourself: it is the only way to the invitation (the " +
          "account alone finds nothing). Inviting again answers a new link and voids the old one. 409 when " +
          "already a member."
      )
  )
  .add(
    HttpApiEndpoint.get("members", "/member")
      .addSuccess(Schema.Struct({ members: Schema.Array(MemberJson) }))
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "organization.members")
      .annotate(OpenApi.Summary, "The organization's members, then its pending invitations")
  )
  .add(
    HttpApiEndpoint.patch("changeMemberRole", "/member/:userId")
      .setPath(UserPath)
      .setPayload(Schema.Struct({ role: Role }))
      .addSuccess(MemberJson)
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(SuperAdminAccess)
      .annotate(OpenApi.Identifier, "organization.changeMemberRole")
      .annotate(OpenApi.Summary, "Change a member's role; 409 for the last Super Admin's demotion (extension)")
  )
  .add(
    HttpApiEndpoint.del("removeMember", "/member/:userId")
      .setPath(UserPath)
      .addSuccess(Success)
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .middleware(Idempotent)
      .middleware(SuperAdminAccess)
      .annotate(OpenApi.Identifier, "organization.removeMember")
      .annotate(OpenApi.Summary, "Remove a member, whose access ends at once; 409 for the last Super Admin (extension)")
  )
  .add(
    HttpApiEndpoint.del("revokeInvitation", "/member/invitations/:invitationId")
      .setPath(Schema.Struct({ invitationId: Schema.String }))
      .addSuccess(Success)
      .addError(NotFound.Wire)
      .middleware(Idempotent)
      .middleware(SuperAdminAccess)
      .annotate(OpenApi.Identifier, "organization.revokeInvitation")
      .annotate(OpenApi.Summary, "Revoke a pending invitation (extension)")
  )
  .add(
    HttpApiEndpoint.get("invitation", "/member/invitations/:token")
      .setPath(TokenPath)
      .addSuccess(InvitationJson)
      .addError(Forbidden.Wire)
      .addError(NotFound.Wire)
      .middleware(SessionAccess)
      .annotate(OpenApi.Identifier, "organization.invitation")
      .annotate(OpenApi.Summary, "What an invitation link offers, signed in as the invited user (extension)")
      .annotate(OpenApi.Description, linkOnly)
      .annotate(OpenApi.Override, bearerOnly)
  )
  .add(
    HttpApiEndpoint.post("acceptInvitation", "/member/invitations/:token/accept")
      .setPath(TokenPath)
      .addSuccess(AcceptedInvitationJson)
      .addError(Forbidden.Wire)
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .middleware(Idempotent)
      .middleware(SessionAccess)
      .annotate(OpenApi.Identifier, "organization.acceptInvitation")
      .annotate(OpenApi.Summary, "Accept an invitation link, signed in as the invited user (extension)")
      .annotate(
        OpenApi.Description,
        `${linkOnly} A link works once; 409 when the account became a member of the organization meanwhile ` +
          "(the admin CLI added it)."
      )
      .annotate(OpenApi.Override, bearerOnly)
  )
  .add(
    HttpApiEndpoint.post("createToken", "/api-token")
      .setPayload(Schema.Struct({ name: RequiredText(100) }).annotations({ examples: [{ name: "CRM sync" }] }))
      .addSuccess(Schema.Struct({ tokenId: Schema.String, name: Schema.String, token: Schema.String }).annotations({
        examples: [{
          tokenId: "3d5e7f90-1a2b-4c3d-8e9f-0a1b2c3d4e5f",
          name: "CRM sync",
          token: "cvn_Q2hhbmdlIG1lOiB0aGlzIGlzIGFuIGV4YW1wbGUgdG9rZW4"
        }]
      }))
      .addError(PayloadTooLarge.Wire)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "organization.createToken")
      .annotate(OpenApi.Summary, "Create an API token; the token is shown only in this response")
  )
  .add(
    HttpApiEndpoint.get("tokens", "/api-token")
      .addSuccess(Schema.Struct({ tokens: Schema.Array(ApiTokenJson) }))
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "organization.tokens")
      .annotate(OpenApi.Summary, "The organization's API tokens (never the tokens themselves)")
  )
  .add(
    HttpApiEndpoint.del("revokeToken", "/api-token/:tokenId")
      .setPath(Schema.Struct({ tokenId: Schema.String }))
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(NotFound.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "organization.revokeToken")
      .annotate(OpenApi.Summary, "Revoke an API token at once")
  )
  .annotate(OpenApi.Title, "Organization")
{}
