import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The event's fields of CONTRACT §6 that self-registration (§16) and reminders need, with the
 * defaults existing events take: registration open (`registration_open` 1) until the event starts
 * (`registration_closes_at` null), no approval (`registration_approval` 0), no reminders
 * (`reminders`, a JSON array of ISO 8601 durations before the start), no reply-to address
 * (`reply_to`) and no end (`end_date`, as given with its offset, like `primary_date`).
 * Booleans are 0/1 integers, as the table's others.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE events ADD COLUMN registration_open INTEGER NOT NULL DEFAULT 1`
  yield* sql`ALTER TABLE events ADD COLUMN registration_closes_at TEXT`
  yield* sql`ALTER TABLE events ADD COLUMN registration_approval INTEGER NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE events ADD COLUMN reminders TEXT NOT NULL DEFAULT '[]'`
  yield* sql`ALTER TABLE events ADD COLUMN reply_to TEXT`
  yield* sql`ALTER TABLE events ADD COLUMN end_date TEXT`
})
