/** Tickets in SQLite: the code of a guest link, and what a code leads to. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { DirectSql } from "../Db/DirectSql.js"
import type { EventRowId, GuestRowId, OrganizationRowId } from "../Domain/RowIds.js"

/** Whom a ticket code belongs to: the guest link, its event and organization. */
export interface TicketHolder {
  readonly guest_id: GuestRowId
  readonly removed_at: string | null
  readonly attendance_status: string | null
  /** When the guest was checked in (kept by the database with the attendance). */
  readonly attended_at: string | null
  readonly person_public_id: string
  readonly event_id: EventRowId
  readonly event_name: string
  readonly organization_id: OrganizationRowId
}

export class TicketsRepo extends Effect.Service<TicketsRepo>()("Convene/TicketsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    /** The code of a guest link, if it has a ticket. */
    const codeOf = (guestId: GuestRowId) =>
      Effect.map(
        direct.unchecked.first<{ readonly code: string }>(sql`SELECT code FROM tickets WHERE event_guest_id = ${guestId}`),
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
      direct.unchecked.first<TicketHolder>(
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
