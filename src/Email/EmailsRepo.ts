/**
 * Emails in the outbox (migration 0012): what each email delivery sends, as it was when queued,
 * until it is delivered (then only its recipient and subject stay, with the delivery's state, for
 * the listings); and how many an organization queued lately, for its daily quota (EmailQuota.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/DirectSql.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"
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

    /**
     * A delivered email's body and attachments are deleted (CONTRACT §18, retention): run in the
     * transaction that records the delivery delivered.
     */
    const forgetContent = (deliveryId: number) =>
      direct.run(sql`UPDATE outbox_emails SET text_body = '', html_body = '', attachments = '[]' WHERE delivery_id = ${deliveryId}`)

    // The quota's counts: every email delivery of the organization queued after `since` (an ISO
    // time), whatever its state, on the index `outbox_deliveries_email_quota` (migration 0022).

    /** How many emails the organization queued after `since`. */
    const queuedSince = (organizationId: OrganizationRowId, since: string) =>
      Effect.map(
        direct.first<{ readonly n: number }>(sql`SELECT count(*) AS n FROM outbox_deliveries
          WHERE organization_id = ${organizationId} AND channel = 'email' AND created_at > ${since}`),
        (row) => Number(row?.n ?? 0)
      )

    /** When the `nth` oldest (from 1) of the emails the organization queued after `since` was queued. */
    const nthQueuedSince = (organizationId: OrganizationRowId, since: string, nth: number) =>
      Effect.map(
        direct.first<{ readonly created_at: string }>(sql`SELECT created_at FROM outbox_deliveries
          WHERE organization_id = ${organizationId} AND channel = 'email' AND created_at > ${since}
          ORDER BY created_at, id LIMIT 1 OFFSET ${nth - 1}`),
        (row) => row?.created_at
      )

    return { insert, attempt, forgetContent, queuedSince, nthQueuedSince } as const
  })
}) {}
