/** Invitations by email (docs/integrators.md#email-invitations). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { TeamMemberAccess, ViewerAccess } from "../Auth/Access.js"
import { optional } from "../Domain/Fields.js"
import { EmailNotConfigured } from "../Email/EmailNotConfigured.js"
import { Conflict, NotFound, RateLimited } from "../Domain/Errors.js"
import { PayloadTooLarge } from "../Http/Errors.js"
import { Limit, Skip } from "../Http/Params.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { InvitationList, InvitationsQueued, SendInvitations } from "./Domain.js"

const IdPath = Schema.Struct({ id: Schema.String })

export class InvitationsApi extends HttpApiGroup.make("invitations")
  .add(
    HttpApiEndpoint.post("send", "/event/:id/invitations")
      .setPath(IdPath)
      .setPayload(SendInvitations)
      .addSuccess(InvitationsQueued, { status: 202 })
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .addError(EmailNotConfigured.Wire)
      .addError(RateLimited.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Identifier, "invitations.send")
      .annotate(OpenApi.Summary, "Email invitations to guests: chosen ones, or every guest with given RSVP statuses (extension)")
      .annotate(
        OpenApi.Description,
        "Give exactly one of `personIds` (1 to 500 guests of the list; an unknown person or one not on the list is a 400 " +
          "pointing at the item, e.g. `personIds.3`) or `statuses` (every guest with one of these RSVP statuses, at most " +
          "5,000). Each guest gets one email at their address, with their personal `rsvpLink` (created if missing), the " +
          "event's name, date and time in the event's time zone (named), the place and online links, the optional " +
          "`message`, a plain-text and an HTML part, and an `invitation.ics` calendar file (METHOD:PUBLISH). Every email " +
          "is queued in the request's transaction (all or none) and sent through the outbox like webhooks: at least " +
          "once, retried on WEBHOOK_RETRY_SCHEDULE after a temporary failure, failed at once when the SMTP server " +
          "refuses it (5xx), surviving restarts. A guest who got an invitation to this event in the last 10 minutes " +
          "gets none now: they are `skipped`. Answers 202 `{ queued, skipped }`; follow them in " +
          "GET /event/{id}/invitations. An organization sends at most EMAIL_DAILY_LIMIT emails (default 1,000) in any " +
          "24 hours: a request whose emails would go past it answers 429 `rate_limited` and queues nothing, with " +
          "`Retry-After` the seconds until the quota allows it (a request for more emails than the limit itself can " +
          "never go: send it in parts). 409 `email_not_configured` when SMTP_URL and MAIL_FROM are unset; 409 " +
          "`conflict` when the event has no page address (`primarySlug` null), since the emails would have no RSVP link."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/event/:id/invitations")
      .setPath(IdPath)
      .setUrlParams(Schema.Struct({ limit: optional(Limit), skip: optional(Skip) }))
      .addSuccess(InvitationList)
      .addError(NotFound.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "invitations.list")
      .annotate(OpenApi.Summary, "The event's invitation emails, newest first, with their delivery state (extension)")
      .annotate(OpenApi.Description, "`limit` 1 to 100 (default 50), `skip` 0 or more.")
  )
  .annotate(OpenApi.Title, "Invitations")
{}
