/** Tickets in SQLite: the code of a guest link, and what a code leads to. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/DirectSql.js"
import { type GuestRowId, rowIdColumn } from "../Domain/RowIds.js"

/** Whom a ticket code belongs to: the guest link, its event and organization. */
export const TicketHolder = Schema.Struct({
  guest_id: rowIdColumn.guest,
  removed_at: Schema.NullOr(Schema.String),
  attendance_status: Schema.NullOr(Schema.String),
  /** When the guest was checked in (kept by the database with the attendance). */
  attended_at: Schema.NullOr(Schema.String),
  person_public_id: Schema.String,
  event_id: rowIdColumn.event,
  event_name: Schema.String,
  organization_id: rowIdColumn.organization
})
export type TicketHolder = typeof TicketHolder.Type

const Code = Schema.Struct({ code: Schema.String })

export class TicketsRepo extends Effect.Service<TicketsRepo>()("Convene/TicketsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    /** The code of a guest link, if it has a ticket. */
    const codeOf = (guestId: GuestRowId) =>
      Effect.map(
        direct.first(Code, sql`SELECT code FROM tickets WHERE event_guest_id = ${guestId}`),
        (row) => row?.code
      )

    /**
     * Gives the guest link this code unless it has a ticket already, and answers the link's code
     * afterwards: the one it had, this one, or none when another ticket holds this code.
     */
    const insert = (guestId: GuestRowId, code: string, at: string) =>
      Effect.zipRight(
        direct.run(sql`INSERT INTO tickets (event_guest_id, code, created_at) VALUES (${guestId}, ${code}, ${at})
            ON CONFLICT DO NOTHING`),
        codeOf(guestId)
      )

    /** The holder of a code, in whichever organization and event. */
    const holder = (code: string) =>
      direct.first(
        TicketHolder,
        sql`SELECT g.id AS guest_id, g.removed_at, g.attendance_status, g.attended_at, p.public_id AS person_public_id,
              e.id AS event_id, e.name AS event_name, e.organization_id
            FROM tickets t
            JOIN event_guests g ON g.id = t.event_guest_id
            JOIN persons p ON p.id = g.person_id
            JOIN events e ON e.id = g.event_id
            WHERE t.code = ${code}`
      )

    return { codeOf, insert, holder } as const
  })
}) {}
