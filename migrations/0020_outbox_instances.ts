import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The outbox without session state (CONTRACT §15), and its retention (CONTRACT §18):
 * - `outbox_instances`: one row per running instance of the service (per generation of it, see
 *   src/Outbox/Instances.ts), its `heartbeat_at` written every few seconds by the database's clock
 *   (epoch milliseconds). Only PostgreSQL's instances write it; on SQLite, one process owns the file
 *   and the table stays empty.
 * - `outbox_deliveries.claimed_by`: the instance whose claim `claimed_until` is (NULL when the row
 *   is not claimed). A claim whose instance's heartbeat has gone stale is released by any instance.
 * - index `outbox_deliveries_claimed`: the claims of an instance, for that release (few rows).
 * - index `outbox_deliveries_finished`: delivered, failed and cancelled deliveries by when they
 *   ended (`updated_at`), for the retention, which deletes the oldest first.
 * - index `outbox_deliveries_message`: the deliveries of a webhook message, so that the retention
 *   finds the messages no delivery refers to any more (and deleting a message checks its foreign
 *   keys) without reading the whole table.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE outbox_instances (
    id            TEXT PRIMARY KEY,
    heartbeat_at  INTEGER NOT NULL
  ) STRICT`
  yield* sql`ALTER TABLE outbox_deliveries ADD COLUMN claimed_by TEXT`
  yield* sql`CREATE INDEX outbox_deliveries_claimed ON outbox_deliveries (claimed_by) WHERE claimed_by IS NOT NULL`
  yield* sql`CREATE INDEX outbox_deliveries_finished ON outbox_deliveries (updated_at) WHERE status <> 'pending'`
  yield* sql`CREATE INDEX outbox_deliveries_message ON outbox_deliveries (message_id) WHERE message_id IS NOT NULL`
})
