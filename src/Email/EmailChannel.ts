/**
 * The outbox's email channel: one SMTP send per attempt (Mailer.ts), its outcome recorded like a
 * webhook's: `delivered` on the server's acceptance, `failed` at once on a permanent refusal, else
 * retried on `WEBHOOK_RETRY_SCHEDULE` until the attempts run out. A delivered email's body and
 * attachments are deleted in the transaction that records it delivered (CONTRACT §18, retention).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { AppConfig } from "../Config/AppConfig.js"
import type { Attempt, Channel, Outcome } from "../Outbox/Channel.js"
import type { DeliveryReferrer } from "../Outbox/Retention.js"
import { afterFailure } from "../Outbox/Retry.js"
import { EmailsRepo } from "./EmailsRepo.js"
import { EmailAttachment, Mailer } from "./Mailer.js"

/** An email's attachments, as EmailsRepo stores them (a JSON array). */
const decodeAttachments = Schema.decode(Schema.parseJson(Schema.Array(EmailAttachment)))

const make = Effect.gen(function*() {
  const { webhooks } = yield* AppConfig
  const emails = yield* EmailsRepo
  const mailer = yield* Mailer

  const deliver = (delivery: Attempt) =>
    Effect.gen(function*() {
      const row = yield* emails.attempt(delivery.id)
      if (row === undefined) return
      const result = yield* Effect.either(mailer.send({
        messageId: row.message_id,
        to: row.recipient,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body,
        replyTo: row.reply_to,
        attachments: yield* decodeAttachments(row.attachments).pipe(Effect.orDie)
      }))
      const outcome: Outcome = result._tag === "Right"
        ? { deliveryId: delivery.id, status: "delivered", statusCode: result.right.code, error: null, response: result.right.response, nextAttemptAt: null }
        : yield* Effect.map(
          afterFailure({ attempts: delivery.attempts, max_attempts: delivery.maxAttempts }, webhooks.retrySchedule, result.left.permanent),
          (next) => ({
            deliveryId: delivery.id,
            status: next.status,
            statusCode: result.left.code,
            error: result.left.permanent ? `${result.left.message} (permanent: not retried)` : result.left.message,
            response: result.left.response,
            nextAttemptAt: next.nextAttemptAt
          })
        )
      // recorded whole or not at all, and only under this attempt's lease (not when the delivery was
      // cancelled or claimed again meanwhile); a delivered email's content goes in the same transaction
      yield* delivery.record(outcome, outcome.status === "delivered" ? emails.forgetContent(delivery.id) : undefined)
    })

  return { name: "email", deliver } satisfies Channel
})

/** The outbox's email channel, for the dispatcher (src/Server.ts composes it). */
export class EmailChannel extends Context.Tag("Convene/EmailChannel")<EmailChannel, Channel>() {}

/** The channel, its SMTP connections the mailer's (closed after the dispatcher's pool stops). */
export const EmailChannelLive = Layer.effect(EmailChannel, make).pipe(Layer.provide([EmailsRepo.Default, Mailer.Default]))

/** The emails' share of the outbox's retention: an email goes with its delivery. */
export const emailReferrer = Effect.map(EmailsRepo, (emails): DeliveryReferrer => ({ beforeDeliveries: emails.forgetDeliveries })).pipe(
  Effect.provide(EmailsRepo.Default)
)
