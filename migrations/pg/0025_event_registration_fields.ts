import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** The event's registration, reminder, reply-to and end fields: as the SQLite migration 0025 (which says what they are). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE events ADD COLUMN registration_open integer NOT NULL DEFAULT 1`
  yield* sql`ALTER TABLE events ADD COLUMN registration_closes_at text`
  yield* sql`ALTER TABLE events ADD COLUMN registration_approval integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE events ADD COLUMN reminders text NOT NULL DEFAULT '[]'`
  yield* sql`ALTER TABLE events ADD COLUMN reply_to text`
  yield* sql`ALTER TABLE events ADD COLUMN end_date text`
})
