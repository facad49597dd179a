import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Tickets for the door (docs/integrators.md#calendar-files-and-tickets): one short code per guest link, made the first time the
 * guest needs it (when they answer yes) and never changed afterwards. Codes are unique in the
 * whole instance, so a code names one guest of one event; the door checks the organization and the
 * event before it checks anyone in.
 *
 * `event_guests.attended_at`: when the guest was checked in (attendance `Attended`), cleared when
 * that attendance is cleared or changed. Triggers keep it in the statement that changes the
 * attendance, whichever path makes the change (a guest-list PUT, the dashboard, a re-added guest,
 * an import), stamped with the write's own `updated_at`. Guests checked in before this migration
 * get their last update's time, the best that is known.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE tickets (
    id              INTEGER PRIMARY KEY,
    event_guest_id  INTEGER NOT NULL UNIQUE REFERENCES event_guests(id),
    code            TEXT NOT NULL UNIQUE,
    created_at      TEXT NOT NULL
  ) STRICT`
  yield* sql`ALTER TABLE event_guests ADD COLUMN attended_at TEXT`
  yield* sql`UPDATE event_guests SET attended_at = updated_at WHERE attendance_status = 'Attended'`
  yield* sql`CREATE TRIGGER event_guests_attended_at_update AFTER UPDATE OF attendance_status ON event_guests
    WHEN new.attendance_status IS NOT old.attendance_status
  BEGIN
    UPDATE event_guests SET attended_at = CASE
        WHEN new.attendance_status IS NOT 'Attended' THEN NULL
        WHEN new.updated_at IS NOT old.updated_at THEN new.updated_at
        ELSE strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
      END
      WHERE id = new.id;
  END`
  yield* sql`CREATE TRIGGER event_guests_attended_at_insert AFTER INSERT ON event_guests
    WHEN new.attendance_status = 'Attended'
  BEGIN
    UPDATE event_guests SET attended_at = new.updated_at WHERE id = new.id;
  END`
})
