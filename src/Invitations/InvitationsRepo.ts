/**
 * Invitations (migration 0012): which guest of which event an email invited, pointing at the
 * email's outbox delivery, whose state says whether it was sent. Guests are read as the guest list
 * holds them (removed guests are not on it).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import type { EventRowId, GuestRowId, OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"

/** A guest an invitation may go to. */
export interface RecipientRow {
  readonly gid: GuestRowId
  readonly person_id: PersonRowId
  readonly public_id: string
  readonly first_name: string
  readonly last_name: string
  readonly email: string
}

export interface InvitationRow {
  readonly public_id: string
  readonly person_public_id: string
  readonly first_name: string
  readonly last_name: string
  readonly recipient: string
  readonly subject: string
  readonly status: string
  readonly attempts: number
  readonly last_error: string | null
  readonly delivered_at: string | null
  readonly created_at: string
  readonly next_attempt_at: number | null
}

export class EventInvitationsRepo extends Effect.Service<EventInvitationsRepo>()("Convene/EventInvitationsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)
    const recipientColumns = sql.literal(`g.id AS gid, g.person_id, p.public_id, p.first_name, p.last_name, p.email`)

    /** The guests of the list among these persons (by public id, of the organization), in list order. */
    const guestsByPersonIds = (eventId: EventRowId, organizationId: OrganizationRowId, personIds: ReadonlyArray<string>) =>
      direct.unchecked.rows<RecipientRow>(
        // from the named persons to their links by the (event, person) key: the cost follows the
        // persons named, not the length of the list
        sql`SELECT ${recipientColumns}
            FROM event_guests g JOIN persons p ON p.id = g.person_id
            WHERE g.event_id = ${eventId} AND g.removed_at IS NULL AND p.organization_id = ${organizationId}
              AND g.person_id IN (SELECT x.id FROM persons x
                WHERE x.public_id IN ${d.inValues(JSON.stringify(personIds), "text")})
            ORDER BY g.id`
      )

    /** The guests of the list whose RSVP status is one of these, in list order; at most `limit`. */
    const guestsByStatuses = (eventId: EventRowId, statuses: ReadonlyArray<string>, limit: number) =>
      direct.unchecked.rows<RecipientRow>(
        sql`SELECT ${recipientColumns}
            FROM event_guests g JOIN persons p ON p.id = g.person_id
            WHERE g.event_id = ${eventId} AND g.removed_at IS NULL
              AND g.rsvp_status IN ${d.inValues(JSON.stringify(statuses), "text")}
            ORDER BY g.id LIMIT ${limit}`
      )

    /** How many guests of the list have each RSVP status. */
    const countByStatus = (eventId: EventRowId) =>
      direct.unchecked.rows<{ rsvp_status: string; n: number }>(
        sql`SELECT rsvp_status, count(*) AS n FROM event_guests WHERE event_id = ${eventId} AND removed_at IS NULL
            GROUP BY rsvp_status`
      )

    const insert = (row: {
      readonly publicId: string
      readonly organizationId: OrganizationRowId
      readonly eventId: EventRowId
      readonly personId: PersonRowId
      readonly deliveryId: number
      readonly at: string
    }) =>
      direct.run(sql`INSERT INTO invitations (public_id, organization_id, event_id, person_id, delivery_id, created_at)
          VALUES (${row.publicId}, ${row.organizationId}, ${row.eventId}, ${row.personId}, ${row.deliveryId}, ${row.at})`)

    /**
     * Which of the event's guests got an invitation after `since` (an ISO time): the ten-minute
     * window's (on the index `invitations_recent`, migration 0022).
     */
    const invitedSince = (eventId: EventRowId, since: string) =>
      Effect.map(
        direct.unchecked.rows<{ readonly person_id: PersonRowId }>(
          sql`SELECT DISTINCT person_id FROM invitations WHERE event_id = ${eventId} AND created_at > ${since}`
        ),
        (rows) => new Set<number>(rows.map((r) => Number(r.person_id)))
      )

    /** A page of an event's invitations, newest first. */
    const list = (eventId: EventRowId, limit: number, skip: number) =>
      direct.unchecked.rows<InvitationRow>(
        sql`SELECT i.public_id, p.public_id AS person_public_id, p.first_name, p.last_name, e.recipient, e.subject,
              d.status, d.attempts, d.last_error, d.delivered_at, d.created_at, d.next_attempt_at
            FROM invitations i
            JOIN outbox_deliveries d ON d.id = i.delivery_id
            JOIN outbox_emails e ON e.delivery_id = i.delivery_id
            JOIN persons p ON p.id = i.person_id
            WHERE i.event_id = ${eventId}
            ORDER BY i.id DESC LIMIT ${limit} OFFSET ${skip}`
      )

    /** An event's invitations by delivery state. */
    const countByState = (eventId: EventRowId) =>
      direct.unchecked.rows<{ status: string; n: number }>(
        sql`SELECT d.status, count(*) AS n FROM invitations i JOIN outbox_deliveries d ON d.id = i.delivery_id
            WHERE i.event_id = ${eventId} GROUP BY d.status`
      )

    /** Deletes the invitations of the given email deliveries, which the outbox's retention deletes (Retention.ts). */
    const forgetDeliveries = (deliveryIds: ReadonlyArray<number>) =>
      direct.run(sql`DELETE FROM invitations WHERE delivery_id IN ${d.inValues(JSON.stringify(deliveryIds), "integer")}`)

    return { guestsByPersonIds, guestsByStatuses, countByStatus, insert, invitedSince, list, countByState, forgetDeliveries } as const
  })
}) {}
