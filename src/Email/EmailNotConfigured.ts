/**
 * 409 `email_not_configured` (docs/integrators.md#error-codes): sending email needs SMTP_URL and MAIL_FROM. The error
 * body has the API's error shape, `{ message, code }`.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Schema from "effect/Schema"

export const EMAIL_NOT_CONFIGURED_MESSAGE =
  "Email is not configured: set SMTP_URL (smtp:// or smtps://, with optional user and password) and MAIL_FROM, then restart"

export class EmailNotConfigured extends Schema.TaggedError<EmailNotConfigured>()("EmailNotConfigured", {
  message: Schema.String
}) {
  static readonly Wire = Schema.transform(
    Schema.Struct({ message: Schema.String, code: Schema.Literal("email_not_configured") }),
    Schema.typeSchema(EmailNotConfigured),
    {
      strict: true,
      decode: (body) => new EmailNotConfigured({ message: body.message }),
      encode: (error) => ({ message: error.message, code: "email_not_configured" as const })
    }
  ).annotations(HttpApiSchema.annotations({
    identifier: "EmailNotConfigured",
    description: "Email is not configured on this server (SMTP_URL and MAIL_FROM are unset): nothing was queued.",
    status: 409
  }))

  static readonly standard = () => new EmailNotConfigured({ message: EMAIL_NOT_CONFIGURED_MESSAGE })

  /**
   * The answer, made by the handler itself: the API's error mapping passes on only the errors of
   * Domain/Errors.ts and Http/Errors.ts, so this one is answered before it gets there (with the same shape).
   */
  static readonly response = (error: EmailNotConfigured) =>
    HttpServerResponse.unsafeJson({ message: error.message, code: "email_not_configured" }, { status: 409 })
}
