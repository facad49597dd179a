/**
 * The waitlist in the database (GuestsRepo.ts): an event's `Accepted` count and its `Waitlisted`
 * guests, each with since when it waits, read from its RSVP history (no column of its own: every
 * writer of a status already writes its history entry).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import { type EventRowId, rowIdColumn } from "../Domain/RowIds.js"
import { HISTORY_ENTRIES } from "./GuestRows.js"

const Count = Schema.Struct({ n: Schema.Number })

/** A `Waitlisted` guest: `since` the id of the first entry of its current run of `Waitlisted` history entries. */
export const WaitingRow = Schema.Struct({
  id: rowIdColumn.guest,
  since: Schema.NullOr(Schema.Number),
  history_entries: Schema.Number
})
export type WaitingRow = typeof WaitingRow.Type

export const waitlistStatements = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => {
  /** Guests holding a place (`Accepted`) on the event's list. */
  const acceptedCount = (eventId: EventRowId) =>
    Effect.map(
      direct.first(
        Count,
        sql`SELECT count(*) AS n FROM event_guests
            WHERE event_id = ${eventId} AND removed_at IS NULL AND rsvp_status = 'Accepted'`
      ),
      (row) => row?.n ?? 0
    )

  /**
   * Guests holding a place, counted up to `limit` (the capacity): what the public page shows, on the
   * `(event_id, rsvp_status)` index, so its cost does not grow with the list (migration 0028).
   */
  const acceptedUpTo = (eventId: EventRowId, limit: number) =>
    Effect.map(
      direct.first(
        Count,
        sql`SELECT count(*) AS n FROM (SELECT 1 FROM event_guests
            WHERE event_id = ${eventId} AND rsvp_status = 'Accepted' AND removed_at IS NULL LIMIT ${limit}) AS taken`
      ),
      (row) => row?.n ?? 0
    )

  /**
   * The event's `Waitlisted` guests, unordered, each with the first history entry after its last
   * entry of another status (the moment it became `Waitlisted`: later `Waitlisted` entries of a
   * repeated PUT keep its place), on the history's `(event_guest_id, …)` index.
   */
  const waiting = (eventId: EventRowId) =>
    direct.rows(
      WaitingRow,
      sql`SELECT g.id,
            (SELECT min(h.id) FROM rsvp_history h WHERE h.event_guest_id = g.id
               AND h.id > (SELECT coalesce(max(x.id), 0) FROM rsvp_history x
                           WHERE x.event_guest_id = g.id AND x.status <> 'Waitlisted')) AS since,
            ${sql.literal(HISTORY_ENTRIES)}
          FROM event_guests g
          WHERE g.event_id = ${eventId} AND g.removed_at IS NULL AND g.rsvp_status = 'Waitlisted'`
    )

  return { acceptedCount, acceptedUpTo, waiting } as const
}
