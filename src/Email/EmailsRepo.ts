/**
 * Emails in the outbox (migration 0012): what each email delivery sends, as it was when queued,
 * until it is delivered (then only its recipient and subject stay, for the listings). The
 * deliveries themselves are the outbox's (Outbox/Deliveries.ts), keyed by the same id.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import type { EmailAttachment } from "./Mailer.js"

/** What an attempt needs: the message. */
export const EmailAttemptRow = Schema.Struct({
  message_id: Schema.String,
  recipient: Schema.String,
  subject: Schema.String,
  text_body: Schema.String,
  html_body: Schema.String,
  attachments: Schema.String,
  reply_to: Schema.NullOr(Schema.String)
})
export type EmailAttemptRow = typeof EmailAttemptRow.Type

export class EmailsRepo extends Effect.Service<EmailsRepo>()("Convene/EmailsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    const insert = (row: {
      readonly deliveryId: number
      readonly messageId: string
      readonly to: string
      readonly subject: string
      readonly text: string
      readonly html: string
      readonly attachments: ReadonlyArray<EmailAttachment>
      readonly replyTo?: string | null | undefined
    }) =>
      direct.run(sql`INSERT INTO outbox_emails (delivery_id, message_id, recipient, subject, text_body, html_body, attachments, reply_to)
          VALUES (${row.deliveryId}, ${row.messageId}, ${row.to}, ${row.subject}, ${row.text}, ${row.html},
                  ${JSON.stringify(row.attachments)}, ${row.replyTo ?? null})`)

    const attempt = (deliveryId: number) =>
      direct.first(
        EmailAttemptRow,
        sql`SELECT message_id, recipient, subject, text_body, html_body, attachments, reply_to
            FROM outbox_emails WHERE delivery_id = ${deliveryId}`
      )

    /**
     * A delivered email's body and attachments are deleted (CONTRACT §18, retention): run in the
     * transaction that records the delivery delivered.
     */
    const forgetContent = (deliveryId: number) =>
      direct.run(sql`UPDATE outbox_emails SET text_body = '', html_body = '', attachments = '[]' WHERE delivery_id = ${deliveryId}`)

    /** Deletes the emails of the given deliveries, which the outbox's retention deletes (Outbox/Retention.ts). */
    const forgetDeliveries = (deliveryIds: ReadonlyArray<number>) =>
      direct.run(sql`DELETE FROM outbox_emails WHERE delivery_id IN ${dialectOf(sql).inValues(JSON.stringify(deliveryIds), "integer")}`)

    return { insert, attempt, forgetContent, forgetDeliveries } as const
  })
}) {}
