/** Members and API tokens of the caller's organization (CONTRACT §2, extensions). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { AdminAccess, SuperAdminAccess } from "../Auth/Access.js"
import { optional, RequiredText, UserEmail } from "../Domain/Fields.js"
import { Role } from "../Domain/Role.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { Conflict, NotFound, PayloadTooLarge } from "../Http/Errors.js"

export const MemberJson = Schema.Struct({
  userId: Schema.String,
  email: Schema.String,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  role: Role
}).annotations({ identifier: "Member" })

export const ApiTokenJson = Schema.Struct({
  tokenId: Schema.String,
  name: Schema.String,
  createdAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ApiToken" })

export const NewMemberJson = Schema.Struct({
  email: UserEmail,
  password: Schema.Redacted(Schema.String.pipe(
    Schema.minLength(8, { message: () => "must be at least 8 characters" }),
    Schema.maxLength(1024)
  )),
  firstName: optional(Schema.NullOr(RequiredText(200))),
  lastName: optional(Schema.NullOr(RequiredText(200))),
  role: Role
}).annotations({ identifier: "NewMember" })

export class OrganizationsApi extends HttpApiGroup.make("organization")
  .add(
    HttpApiEndpoint.post("addMember", "/member")
      .setPayload(NewMemberJson)
      .addSuccess(Schema.Struct({ userId: Schema.String }))
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(SuperAdminAccess)
      .annotate(OpenApi.Summary, "Add a member (creating the user if the email is new)")
  )
  .add(
    HttpApiEndpoint.get("members", "/member")
      .addSuccess(Schema.Struct({ members: Schema.Array(MemberJson) }))
      .middleware(AdminAccess)
      .annotate(OpenApi.Summary, "The organization's members")
  )
  .add(
    HttpApiEndpoint.post("createToken", "/api-token")
      .setPayload(Schema.Struct({ name: RequiredText(100) }))
      .addSuccess(Schema.Struct({ tokenId: Schema.String, name: Schema.String, token: Schema.String }))
      .addError(PayloadTooLarge.Wire)
      .middleware(AdminAccess)
      .annotate(OpenApi.Summary, "Create an API token; the token is shown only in this response")
  )
  .add(
    HttpApiEndpoint.get("tokens", "/api-token")
      .addSuccess(Schema.Struct({ tokens: Schema.Array(ApiTokenJson) }))
      .middleware(AdminAccess)
      .annotate(OpenApi.Summary, "The organization's API tokens (never the tokens themselves)")
  )
  .add(
    HttpApiEndpoint.del("revokeToken", "/api-token/:tokenId")
      .setPath(Schema.Struct({ tokenId: Schema.String }))
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(NotFound.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Summary, "Revoke an API token at once")
  )
  .annotate(OpenApi.Title, "Organization")
{}
