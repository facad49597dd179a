import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** The guests' index by RSVP status and `link_emailed_at`: as the SQLite migration 0028 (which says what they are for). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX event_guests_status ON event_guests (event_id, rsvp_status)`
  yield* sql`ALTER TABLE event_guests ADD COLUMN link_emailed_at text`
})
