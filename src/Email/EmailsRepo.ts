/** Emails in the outbox (migration 0012): what each email delivery sends, as it was when queued. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/DirectSql.js"
import type { EmailAttachment } from "./Mailer.js"

/** What an attempt needs: the delivery's state and the message. */
export interface EmailAttemptRow {
  readonly id: number
  readonly status: string
  readonly attempts: number
  readonly max_attempts: number
  readonly message_id: string
  readonly recipient: string
  readonly subject: string
  readonly text_body: string
  readonly html_body: string
  readonly attachments: string
}

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
    }) =>
      direct.run(sql`INSERT INTO outbox_emails (delivery_id, message_id, recipient, subject, text_body, html_body, attachments)
          VALUES (${row.deliveryId}, ${row.messageId}, ${row.to}, ${row.subject}, ${row.text}, ${row.html},
                  ${JSON.stringify(row.attachments)})`)

    const attempt = (deliveryId: number) =>
      direct.first<EmailAttemptRow>(
        sql`SELECT d.id, d.status, d.attempts, d.max_attempts, e.message_id, e.recipient, e.subject, e.text_body,
              e.html_body, e.attachments
            FROM outbox_deliveries d JOIN outbox_emails e ON e.delivery_id = d.id
            WHERE d.id = ${deliveryId} AND d.channel = 'email'`
      )

    return { insert, attempt } as const
  })
}) {}
