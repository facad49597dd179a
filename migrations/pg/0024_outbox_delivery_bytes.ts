import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** `outbox_deliveries.bytes`: as the SQLite migration 0024 (which says what it is for). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE outbox_deliveries ADD COLUMN bytes bigint NOT NULL DEFAULT 0`
  yield* sql`UPDATE outbox_deliveries d
    SET bytes = (SELECT coalesce(m.payload_bytes, octet_length(m.payload)) FROM webhook_messages m WHERE m.id = d.message_id)
    WHERE d.message_id IS NOT NULL`
})
