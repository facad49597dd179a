import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The outbox's rows carry what its dispatcher needs (ARCHITECTURE.md, "Tables and their owners"):
 * `outbox_deliveries.bytes` is the size (UTF-8 bytes) of the message a delivery carries, written
 * by its channel with the delivery, so that the dispatcher tells large deliveries from small ones
 * (src/Outbox/OutboxRepo.ts) without reading the channels' own tables. Emails are 0 (never large).
 * Existing webhook deliveries take their message's size, as the dispatcher read it until now.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE outbox_deliveries ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0`
  yield* sql`UPDATE outbox_deliveries
    SET bytes = (SELECT coalesce(m.payload_bytes, octet_length(m.payload)) FROM webhook_messages m WHERE m.id = outbox_deliveries.message_id)
    WHERE message_id IS NOT NULL`
})
