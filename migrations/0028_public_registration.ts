import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * What the public page and self-registration (CONTRACT §16) need of the guest list:
 * - an index of each event's guests by RSVP status: the page shows the places left by counting the
 *   event's `Accepted` guests, at most its capacity of them, at a cost that does not grow with the
 *   list (bench/RESULTS.md); the waitlist's counts in a writing transaction use it too;
 * - `link_emailed_at`: when a registration last emailed the guest their RSVP link, so that someone
 *   registering an address already on the list again sends it at most once an hour.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX event_guests_status ON event_guests (event_id, rsvp_status)`
  yield* sql`ALTER TABLE event_guests ADD COLUMN link_emailed_at TEXT`
})
