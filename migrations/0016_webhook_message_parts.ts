import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Webhook message bodies too large to keep as one value: a guest-list import's `GuestList`
 * notification carries every affected guest, tens of MB for a large file. Such a body is kept in
 * `webhook_message_parts`, its text in order (`seq` from 0) in parts of about a MiB, written as it
 * is built and read part by part when it is sent (src/Webhooks/Outbox.ts, WebhookChannel.ts), so
 * that neither writing nor delivering it holds it whole in memory. Its message then has
 * `payload = ''` and `payload_bytes` the body's length in bytes (UTF-8); every other message has
 * `payload_bytes` NULL and its body in `payload`, as before. A body is the concatenation of its
 * parts: `SELECT group_concat(part, '') FROM (SELECT part FROM webhook_message_parts WHERE
 * message_id = ? ORDER BY seq)`.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_messages ADD COLUMN payload_bytes INTEGER`
  yield* sql`CREATE TABLE webhook_message_parts (
    message_id  INTEGER NOT NULL REFERENCES webhook_messages(id),
    seq         INTEGER NOT NULL,
    part        TEXT NOT NULL,
    PRIMARY KEY (message_id, seq)
  ) STRICT`
})
