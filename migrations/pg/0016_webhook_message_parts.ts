import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Webhook message bodies too large to keep as one value, kept in `webhook_message_parts`, their
 * text in order (`seq` from 0) in parts of about a MiB; such a message has `payload = ''` and
 * `payload_bytes` the body's length in bytes (UTF-8), every other message `payload_bytes` NULL.
 * A body is the concatenation of its parts (PostgreSQL: `SELECT string_agg(part, '' ORDER BY seq)
 * FROM webhook_message_parts WHERE message_id = $1`). Same as the SQLite step.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_messages ADD COLUMN payload_bytes bigint`
  yield* sql`CREATE TABLE webhook_message_parts (
    message_id  bigint NOT NULL REFERENCES webhook_messages(id),
    seq         bigint NOT NULL,
    part        text NOT NULL,
    PRIMARY KEY (message_id, seq)
  )`
})
