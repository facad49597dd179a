/**
 * Invitations (migration 0012): which guest of which event an email invited, pointing at the
 * email's outbox delivery, whose state says whether it was sent (asked of the outbox:
 * Outbox/DeliveryStates.ts). Guests are read as the guest list holds them (removed guests are not
 * on it).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { type EventRowId, type OrganizationRowId, type PersonRowId, rowIdColumn } from "../Domain/RowIds.js"
import { type DeliveryState, DeliveryStates } from "../Outbox/DeliveryStates.js"

/** A guest an invitation may go to. */
export const RecipientRow = Schema.Struct({
  gid: rowIdColumn.guest,
  person_id: rowIdColumn.person,
  public_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String
})
export type RecipientRow = typeof RecipientRow.Type

/** An invitation as its own rows hold it: the invited person, the email's recipient and subject, and its delivery. */
const SentRow = Schema.Struct({
  delivery_id: Schema.Number,
  public_id: Schema.String,
  person_public_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  recipient: Schema.String,
  subject: Schema.String
})

/** An invitation as the listing shows it: its rows and its delivery's state. */
export interface InvitationRow extends Omit<typeof SentRow.Type, "delivery_id">, Omit<DeliveryState, "id"> {}

const StatusCount = Schema.Struct({ rsvp_status: Schema.String, n: Schema.Number })
const Invited = Schema.Struct({ person_id: rowIdColumn.person })

export class EventInvitationsRepo extends Effect.Service<EventInvitationsRepo>()("Convene/EventInvitationsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)
    const deliveries = yield* DeliveryStates
    const recipientColumns = sql.literal(`g.id AS gid, g.person_id, p.public_id, p.first_name, p.last_name, p.email`)

    /** The guests of the list among these persons (by public id, of the organization), in list order. */
    const guestsByPersonIds = (eventId: EventRowId, organizationId: OrganizationRowId, personIds: ReadonlyArray<string>) =>
      direct.rows(
        RecipientRow,
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
      direct.rows(
        RecipientRow,
        sql`SELECT ${recipientColumns}
            FROM event_guests g JOIN persons p ON p.id = g.person_id
            WHERE g.event_id = ${eventId} AND g.removed_at IS NULL
              AND g.rsvp_status IN ${d.inValues(JSON.stringify(statuses), "text")}
            ORDER BY g.id LIMIT ${limit}`
      )

    /** How many guests of the list have each RSVP status. */
    const countByStatus = (eventId: EventRowId) =>
      direct.rows(
        StatusCount,
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
        direct.rows(
          Invited,
          sql`SELECT DISTINCT person_id FROM invitations WHERE event_id = ${eventId} AND created_at > ${since}`
        ),
        (rows) => new Set<number>(rows.map((r) => Number(r.person_id)))
      )

    /** A page of an event's invitations, newest first, with their deliveries' states. */
    const list = (eventId: EventRowId, limit: number, skip: number) =>
      Effect.gen(function*() {
        const sent = yield* direct.rows(
          SentRow,
          sql`SELECT i.delivery_id, i.public_id, p.public_id AS person_public_id, p.first_name, p.last_name, e.recipient, e.subject
              FROM invitations i
              JOIN outbox_emails e ON e.delivery_id = i.delivery_id
              JOIN persons p ON p.id = i.person_id
              WHERE i.event_id = ${eventId}
              ORDER BY i.id DESC LIMIT ${limit} OFFSET ${skip}`
        )
        const states = yield* deliveries.of(sent.map((row) => row.delivery_id))
        // every invitation's delivery is there: it is deleted with its invitation (Retention.ts)
        return sent.flatMap(({ delivery_id, ...row }): Array<InvitationRow> => {
          const state = states.get(delivery_id)
          if (state === undefined) return []
          const { id: _, ...delivery } = state
          return [{ ...row, ...delivery }]
        })
      })

    /** An event's invitations by delivery state. */
    const countByState = (eventId: EventRowId) =>
      deliveries.countByStatus(sql`SELECT delivery_id FROM invitations WHERE event_id = ${eventId}`)

    /** Deletes the invitations of the given email deliveries, which the outbox's retention deletes (Retention.ts). */
    const forgetDeliveries = (deliveryIds: ReadonlyArray<number>) =>
      direct.run(sql`DELETE FROM invitations WHERE delivery_id IN ${d.inValues(JSON.stringify(deliveryIds), "integer")}`)

    return { guestsByPersonIds, guestsByStatuses, countByStatus, insert, invitedSince, list, countByState, forgetDeliveries } as const
  }),
  dependencies: [DeliveryStates.Default]
}) {}
