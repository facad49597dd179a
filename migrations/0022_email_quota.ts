import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The daily email quota and the invitations' ten-minute window (CONTRACT §18, Email/EmailQuota.ts,
 * Invitations/Invitations.ts). Each invitation request counts the emails its organization queued
 * in the last 24 hours, and reads which of its guests were invited to the event in the last ten
 * minutes: both are ranges of recent rows, found by these indexes without walking an
 * organization's or an event's whole history.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX outbox_deliveries_email_quota ON outbox_deliveries (organization_id, created_at) WHERE channel = 'email'`
  yield* sql`CREATE INDEX invitations_recent ON invitations (event_id, created_at)`
})
