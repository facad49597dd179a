/**
 * The door's whole list in one read (CONTRACT §17): every guest of an event still on its list, with
 * what the door searches and shows (name, email, RSVP status, attendance) and their ticket's code,
 * so that the door page searches and scans from the browser, also without network.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/DirectSql.js"
import type { EventRowId } from "../Domain/RowIds.js"

export const DoorListRow = Schema.Struct({
  public_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  rsvp_status: Schema.String,
  attendance_status: Schema.NullOr(Schema.String),
  code: Schema.NullOr(Schema.String)
})
export type DoorListRow = typeof DoorListRow.Type

export class DoorListRepo extends Effect.Service<DoorListRepo>()("Convene/DoorListRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    const ofEvent = (eventId: EventRowId) =>
      direct.rows(
        DoorListRow,
        sql`SELECT p.public_id, p.first_name, p.last_name, p.email, g.rsvp_status, g.attendance_status, t.code
            FROM event_guests g
            JOIN persons p ON p.id = g.person_id
            LEFT JOIN tickets t ON t.event_guest_id = g.id
            WHERE g.event_id = ${eventId} AND g.removed_at IS NULL`
      )

    return { ofEvent } as const
  })
}) {}
