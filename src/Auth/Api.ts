/** `POST /login` and `GET /me` (docs/integrators.md#login-access-tokens, docs/integrators.md#get-me). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, RequiredText } from "../Domain/Fields.js"
import { Role } from "../Domain/Role.js"
import { RateLimited, Unauthorized } from "../Domain/Errors.js"
import { PayloadTooLarge } from "../Http/Errors.js"
import { PublicAccess, SessionAccess } from "./Access.js"

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("login", "/login")
      .setPayload(Schema.Struct({
        // any non-empty text: an address that is no member's is a failed login (401), counted
        email: RequiredText(EMAIL_MAX_LENGTH),
        password: Schema.Redacted(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(PASSWORD_MAX_LENGTH)))
      }).annotations({ examples: [{ email: "ana@acme.test", password: Redacted.make("a long secret") }] }))
      .addSuccess(Schema.Struct({
        accessToken: Schema.String,
        organizationSlugs: Schema.Array(Schema.String),
        expiresIn: Schema.Int.annotations({ description: "Seconds until the access token expires." })
      }).annotations({
        examples: [{ accessToken: "cvs_ub-lv_40i7k1ooISsfv-VBrCDivn-aSajMS07mUejTw", organizationSlugs: ["acme"], expiresIn: 86400 }]
      }))
      .addError(Unauthorized.Wire)
      .addError(RateLimited.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(PublicAccess)
      .annotate(OpenApi.Identifier, "auth.login")
      .annotate(OpenApi.Summary, "Log in; each call issues a new access token")
  )
  .add(
    HttpApiEndpoint.get("me", "/me")
      .addSuccess(Schema.Struct({
        firstName: Schema.NullOr(Schema.String),
        lastName: Schema.NullOr(Schema.String),
        email: Schema.NullOr(Schema.String),
        role: Schema.NullOr(Role),
        organizationSlugs: Schema.Array(Schema.String),
        organizations: Schema.Array(Schema.Struct({ slug: Schema.String, role: Role }))
      }).annotations({
        examples: [
          {
            firstName: "Ana",
            lastName: "Silva",
            email: "ana@acme.test",
            role: "Super Admin",
            organizationSlugs: ["acme", "beta"],
            organizations: [{ slug: "acme", role: "Super Admin" }, { slug: "beta", role: "Viewer" }]
          },
          { firstName: null, lastName: null, email: null, role: "Admin", organizationSlugs: ["acme"], organizations: [{ slug: "acme", role: "Admin" }] }
        ]
      }))
      .middleware(SessionAccess)
      .annotate(OpenApi.Identifier, "auth.me")
      .annotate(OpenApi.Summary, "The caller; needs only the Authorization header")
  )
  .annotate(OpenApi.Title, "Authentication")
{}
