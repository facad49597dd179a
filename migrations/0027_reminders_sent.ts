import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Reminders and the Reply-To of emails (CONTRACT §17, Invitations/Reminders.ts).
 *
 * `reminders_sent`: one row per guest (the person) of an event and reminder offset (the offset's
 * length in seconds, so `P1D` and `PT24H` are one), inserted in the transaction that queues the
 * reminder's email. Its unique key is what makes a reminder go at most once, across restarts and
 * instances: a second insert finds the row and queues nothing. The rows stay (a few per guest):
 * a reminder sent is never sent again, also when the event's start moves.
 *
 * `events_reminders`: the events with reminders by start, so that each pass reads only those still
 * to start (Invitations/RemindersRepo.ts `upcoming`), not every event.
 *
 * `outbox_emails.reply_to`: the email's Reply-To (the event's `replyTo`), null for none.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE reminders_sent (
    id              INTEGER PRIMARY KEY,
    event_id        INTEGER NOT NULL REFERENCES events(id),
    person_id       INTEGER NOT NULL REFERENCES persons(id),
    offset_seconds  INTEGER NOT NULL,
    sent_at         TEXT NOT NULL,
    UNIQUE (event_id, person_id, offset_seconds)
  ) STRICT`
  yield* sql`CREATE INDEX events_reminders ON events (primary_date_utc, id) WHERE reminders <> '[]'`
  yield* sql`ALTER TABLE outbox_emails ADD COLUMN reply_to TEXT`
})
