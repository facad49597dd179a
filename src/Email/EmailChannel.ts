/**
 * The outbox's email channel: one SMTP send per attempt (Mailer.ts), its outcome recorded like a
 * webhook's: `delivered` on the server's acceptance, `failed` at once on a permanent refusal, else
 * retried on `WEBHOOK_RETRY_SCHEDULE` until the attempts run out. A delivered email's body and
 * attachments are deleted in the transaction that records it delivered (CONTRACT §18, retention).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AppConfig } from "../Config/AppConfig.js"
import { nowIso } from "../Domain/Time.js"
import type { Channel } from "../Outbox/Dispatcher.js"
import { type Lease, OutboxRepo } from "../Outbox/OutboxRepo.js"
import { afterFailure } from "../Outbox/Retry.js"
import { EmailsRepo } from "./EmailsRepo.js"
import { EmailAttachment, Mailer } from "./Mailer.js"

/** An email's attachments, as EmailsRepo stores them (a JSON array). */
const decodeAttachments = Schema.decode(Schema.parseJson(Schema.Array(EmailAttachment)))

export const emailChannel = Effect.gen(function*() {
  const { webhooks } = yield* AppConfig
  const sql = yield* SqlClient.SqlClient
  const emails = yield* EmailsRepo
  const outbox = yield* OutboxRepo
  const mailer = yield* Mailer

  const deliver = (id: number, lease: Lease) =>
    Effect.gen(function*() {
      const row = yield* emails.attempt(id)
      if (row === undefined || row.status !== "pending") return
      const result = yield* Effect.either(mailer.send({
        messageId: row.message_id,
        to: row.recipient,
        subject: row.subject,
        text: row.text_body,
        html: row.html_body,
        attachments: yield* decodeAttachments(row.attachments).pipe(Effect.orDie)
      }))
      const outcome = result._tag === "Right"
        ? { deliveryId: id, status: "delivered" as const, statusCode: result.right.code, error: null, response: result.right.response, nextAttemptAt: null }
        : yield* Effect.map(afterFailure(row, webhooks.retrySchedule, result.left.permanent), (next) => ({
          deliveryId: id,
          status: next.status,
          statusCode: result.left.code,
          error: result.left.permanent ? `${result.left.message} (permanent: not retried)` : result.left.message,
          response: result.left.response,
          nextAttemptAt: next.nextAttemptAt
        }))
      // recorded whole or not at all: an interruption here leaves the claim to be released; and only
      // under this attempt's lease (not when the delivery was cancelled or claimed again meanwhile)
      const recorded = Effect.flatMap(nowIso, (at) => outbox.record(outcome, lease, at))
      yield* Effect.uninterruptible(
        outcome.status === "delivered"
          ? sql.withTransaction(Effect.flatMap(recorded, (done) => done ? emails.forgetContent(id) : Effect.void))
          : recorded
      )
    })

  return { name: "email", deliver } satisfies Channel
})
