import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** Reminders and the Reply-To of emails: the same table, index and column as the SQLite migration 0027 (which says what they serve). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE reminders_sent (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        bigint NOT NULL REFERENCES events(id),
    person_id       bigint NOT NULL REFERENCES persons(id),
    offset_seconds  bigint NOT NULL,
    sent_at         text NOT NULL,
    UNIQUE (event_id, person_id, offset_seconds)
  )`
  yield* sql`CREATE INDEX events_reminders ON events (primary_date_utc, id) WHERE reminders <> '[]'`
  yield* sql`ALTER TABLE outbox_emails ADD COLUMN reply_to text`
})
