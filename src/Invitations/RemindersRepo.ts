/**
 * Reminders in the database (migration 0027): the events that may have reminders due, the guests
 * still to remind, and the marks of reminders sent (`reminders_sent`, whose unique key per event,
 * person and offset lets a reminder be marked once: the mark that is not inserted sends nothing).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/DirectSql.js"
import { rowIdColumn } from "../Domain/RowIds.js"
import type { EventRowId, PersonRowId } from "../Domain/RowIds.js"

/** An event with reminders that has not started: its offsets and start, to see which are due. */
export const UpcomingRow = Schema.Struct({ id: rowIdColumn.event, primary_date_utc: Schema.String, reminders: Schema.String })
export type UpcomingRow = typeof UpcomingRow.Type

/** An `Accepted` guest with an email, not yet reminded at an offset. */
export const ReminderGuestRow = Schema.Struct({
  gid: rowIdColumn.guest,
  person_id: rowIdColumn.person,
  public_id: Schema.String,
  first_name: Schema.String,
  email: Schema.String
})
export type ReminderGuestRow = typeof ReminderGuestRow.Type

const Inserted = Schema.Struct({ id: Schema.Number })

export class RemindersRepo extends Effect.Service<RemindersRepo>()("Convene/RemindersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    /**
     * Events with reminders that start after `now`, by start then row id, after the last one read
     * (`after`), `limit` at most (on the partial index `events_reminders`, migration 0027).
     */
    const upcoming = (now: string, after: { readonly start: string; readonly id: number } | undefined, limit: number) =>
      direct.rows(
        UpcomingRow,
        after === undefined
          ? sql`SELECT id, primary_date_utc, reminders FROM events
                WHERE reminders <> '[]' AND primary_date_utc > ${now}
                ORDER BY primary_date_utc, id LIMIT ${limit}`
          : sql`SELECT id, primary_date_utc, reminders FROM events
                WHERE reminders <> '[]' AND (primary_date_utc > ${after.start} OR (primary_date_utc = ${after.start} AND id > ${after.id}))
                ORDER BY primary_date_utc, id LIMIT ${limit}`
      )

    /** The event's `Accepted` guests on the list with an email, not reminded at `offset` yet, in list order, `limit` at most. */
    const unreminded = (eventId: EventRowId, offset: number, limit: number) =>
      direct.rows(
        ReminderGuestRow,
        sql`SELECT g.id AS gid, g.person_id, p.public_id, p.first_name, p.email
            FROM event_guests g JOIN persons p ON p.id = g.person_id
            WHERE g.event_id = ${eventId} AND g.removed_at IS NULL AND g.rsvp_status = 'Accepted'
              AND p.archived_at IS NULL AND p.email <> ''
              AND NOT EXISTS (SELECT 1 FROM reminders_sent r
                              WHERE r.event_id = g.event_id AND r.person_id = g.person_id AND r.offset_seconds = ${offset})
            ORDER BY g.id LIMIT ${limit}`
      )

    /** Marks the reminder sent; answers whether this call marked it (false: it was marked already, by this instance or another). */
    const mark = (eventId: EventRowId, personId: PersonRowId, offset: number, at: string) =>
      Effect.map(
        direct.rows(
          Inserted,
          sql`INSERT INTO reminders_sent (event_id, person_id, offset_seconds, sent_at) VALUES (${eventId}, ${personId}, ${offset}, ${at})
              ON CONFLICT (event_id, person_id, offset_seconds) DO NOTHING RETURNING id`
        ),
        (rows) => rows.length > 0
      )

    /** The offsets at which the guest's person was reminded of the event (tests and the dashboard). */
    const sentTo = (eventId: EventRowId, personId: PersonRowId) =>
      Effect.map(
        direct.rows(Schema.Struct({ offset_seconds: Schema.Number }), sql`SELECT offset_seconds FROM reminders_sent
            WHERE event_id = ${eventId} AND person_id = ${personId} ORDER BY offset_seconds`),
        (rows) => rows.map((row) => row.offset_seconds)
      )

    return { upcoming, unreminded, mark, sentTo } as const
  })
}) {}
