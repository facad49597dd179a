import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Tickets for the door: one short code per guest link, made the first time the guest needs it and
 * never changed afterwards; codes are unique in the whole instance.
 *
 * `event_guests.attended_at`: when the guest was checked in (attendance `Attended`), cleared when
 * that attendance is cleared or changed, kept by triggers in the statement that changes the
 * attendance whichever path makes it, stamped with the write's own `updated_at`. Guests checked in
 * before this migration get their last update's time.
 *
 * SQLite's two AFTER triggers run an UPDATE of the row; their PostgreSQL counterparts, of the same
 * names, are BEFORE row triggers running one PL/pgSQL function that sets NEW.attended_at, which
 * stores the same values:
 * - `event_guests_attended_at_insert`: a guest inserted with attendance `Attended` gets
 *   attended_at = its updated_at (any other insert keeps the attended_at it was given);
 * - `event_guests_attended_at_update`: an UPDATE that names attendance_status and changes it sets
 *   attended_at to NULL unless the new attendance is `Attended`, else to the row's new updated_at
 *   when the statement changed it, else to the statement's time in UTC,
 *   `YYYY-MM-DDTHH:MM:SS.sssZ` (SQLite: strftime('%Y-%m-%dT%H:%M:%fZ', 'now')).
 * Two visible differences, neither used by the code: PostgreSQL's `RETURNING` (and an upsert's
 * `excluded`) sees the value the trigger set, SQLite's `RETURNING` the value before its AFTER
 * trigger ran; and the time of the last case is the statement's start on PostgreSQL.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE tickets (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_guest_id  bigint NOT NULL UNIQUE REFERENCES event_guests(id),
    code            text NOT NULL UNIQUE,
    created_at      text NOT NULL
  )`
  yield* sql`ALTER TABLE event_guests ADD COLUMN attended_at text`
  yield* sql`UPDATE event_guests SET attended_at = updated_at WHERE attendance_status = 'Attended'`
  yield* sql`CREATE FUNCTION event_guests_attended_at() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      NEW.attended_at := NEW.updated_at;
    ELSE
      NEW.attended_at := CASE
        WHEN NEW.attendance_status IS DISTINCT FROM 'Attended' THEN NULL
        WHEN NEW.updated_at IS DISTINCT FROM OLD.updated_at THEN NEW.updated_at
        ELSE to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      END;
    END IF;
    RETURN NEW;
  END
  $$`
  yield* sql`CREATE TRIGGER event_guests_attended_at_update BEFORE UPDATE OF attendance_status ON event_guests
    FOR EACH ROW WHEN (NEW.attendance_status IS DISTINCT FROM OLD.attendance_status)
    EXECUTE FUNCTION event_guests_attended_at()`
  yield* sql`CREATE TRIGGER event_guests_attended_at_insert BEFORE INSERT ON event_guests
    FOR EACH ROW WHEN (NEW.attendance_status = 'Attended')
    EXECUTE FUNCTION event_guests_attended_at()`
})
