import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The outbox without session state (CONTRACT §15), and its retention (CONTRACT §18): the instances'
 * heartbeats (`outbox_instances`, written by the database's clock in epoch milliseconds), the
 * instance holding a claim (`outbox_deliveries.claimed_by`), and the indexes of the stale-claim
 * release, of the retention (finished deliveries by `updated_at`) and of a message's deliveries.
 * Same as the SQLite step, which says what each is for.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE outbox_instances (
    id            text PRIMARY KEY,
    heartbeat_at  bigint NOT NULL
  )`
  yield* sql`ALTER TABLE outbox_deliveries ADD COLUMN claimed_by text`
  yield* sql`CREATE INDEX outbox_deliveries_claimed ON outbox_deliveries (claimed_by) WHERE claimed_by IS NOT NULL`
  yield* sql`CREATE INDEX outbox_deliveries_finished ON outbox_deliveries (updated_at) WHERE status <> 'pending'`
  yield* sql`CREATE INDEX outbox_deliveries_message ON outbox_deliveries (message_id) WHERE message_id IS NOT NULL`
})
