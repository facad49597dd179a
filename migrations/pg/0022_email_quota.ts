import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The daily email quota and the invitations' ten-minute window: the same indexes as the SQLite
 * migration 0022 (which says what they serve).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX outbox_deliveries_email_quota ON outbox_deliveries (organization_id, created_at) WHERE channel = 'email'`
  yield* sql`CREATE INDEX invitations_recent ON invitations (event_id, created_at)`
})
