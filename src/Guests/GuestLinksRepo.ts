/**
 * One guest link at a time (GuestsRepo.ts): what a write of the API finds and changes, its RSVP
 * history and its invite.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import type { EventRowId, GuestRowId, OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import type { ActorType } from "./Domain.js"
import { HISTORY_ENTRIES, LinkRow } from "./GuestRows.js"

const ActiveLinkRow = Schema.Struct({ ...LinkRow.fields, public_id: Schema.String })
const LinkEmailed = Schema.Struct({ link_emailed_at: Schema.NullOr(Schema.String) })

export const guestLinkStatements = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => {
  const d = dialectOf(sql)
  const historyEntries = sql.literal(HISTORY_ENTRIES)

  const link = ({ eventId, personId }: { eventId: EventRowId; personId: PersonRowId }) =>
    Effect.map(
      direct.first(
        LinkRow,
        sql`SELECT g.id, g.person_id, g.rsvp_status, g.attendance_status, g.dietary_restrictions, g.rsvp_note, g.custom_columns,
              g.removed_at, ${historyEntries}
            FROM event_guests g WHERE g.event_id = ${eventId} AND g.person_id = ${personId}`
      ),
      Option.fromNullable
    )

  /**
   * The active links of the given persons (by public id) on an event. Found from the persons:
   * each named person by its public id, then its guest link by the (event, person) key, so the
   * cost follows the number of persons named, not the length of the list (walking the list's
   * index instead cost 20 ms for one guest of a 100,000-guest list).
   */
  const activeLinks = (eventId: EventRowId, organizationId: OrganizationRowId, personPublicIds: ReadonlyArray<string>) =>
    sql`SELECT g.id, g.person_id, g.rsvp_status, g.attendance_status, g.dietary_restrictions, g.rsvp_note,
          g.custom_columns, g.removed_at, ${historyEntries}, p.public_id
        FROM event_guests g JOIN persons p ON p.id = g.person_id
        WHERE g.event_id = ${eventId} AND g.removed_at IS NULL AND p.organization_id = ${organizationId}
          AND g.person_id IN (SELECT x.id FROM persons x
            WHERE x.public_id IN ${d.inValues(JSON.stringify(personPublicIds), "text")})`.pipe(
      (statement) => direct.rows(ActiveLinkRow, statement),
      Effect.map((rows) => new Map(rows.map((r) => [r.public_id, r])))
    )

  const insertLink = (eventId: EventRowId, personId: PersonRowId, at: string) =>
    direct.insert<GuestRowId>(sql`INSERT INTO event_guests (event_id, person_id, rsvp_status, created_at, updated_at)
        VALUES (${eventId}, ${personId}, 'Invited', ${at}, ${at}) RETURNING id`)

  const readd = (guestId: GuestRowId, at: string) =>
    direct.run(sql`UPDATE event_guests SET removed_at = NULL, rsvp_status = 'Invited', attendance_status = NULL, updated_at = ${at}
        WHERE id = ${guestId}`)

  const update = (guestId: GuestRowId, changes: Record<string, string | null>, at: string) =>
    direct.run(sql`UPDATE event_guests SET ${sql.update({ ...changes, updated_at: at })} WHERE id = ${guestId}`)

  const remove = (guestIds: ReadonlyArray<GuestRowId>, at: string) =>
    guestIds.length === 0
      ? Effect.void
      : Effect.asVoid(direct.run(sql`UPDATE event_guests SET removed_at = ${at}, updated_at = ${at}
            WHERE id IN ${d.inValues(JSON.stringify(guestIds), "integer")}`))

  const addHistory = (row: {
    guestId: GuestRowId
    status: string
    actorType: ActorType
    actorId: string
    actionType: "added" | "updated"
    at: string
  }) =>
    direct.run(sql`INSERT INTO rsvp_history (event_guest_id, status, actor_type, actor_id, action_type, created_at)
        VALUES (${row.guestId}, ${row.status}, ${row.actorType}, ${row.actorId}, ${row.actionType}, ${row.at})`)

  const addInvite = (guestId: GuestRowId, token: string, at: string) =>
    direct.run(sql`INSERT INTO invites (event_guest_id, token, created_at) VALUES (${guestId}, ${token}, ${at})
        ON CONFLICT (event_guest_id) DO NOTHING`)

  /**
   * Claims the emailing of a guest's RSVP link at `at` unless it was emailed after `since` (migration
   * 0028); answers whether it was claimed. Read and written in the caller's write transaction.
   */
  const claimLinkEmail = (guestId: GuestRowId, at: string, since: string) =>
    Effect.gen(function*() {
      const row = yield* direct.first(LinkEmailed, sql`SELECT link_emailed_at FROM event_guests WHERE id = ${guestId}`)
      if (row === undefined || (row.link_emailed_at !== null && row.link_emailed_at > since)) return false
      yield* direct.run(sql`UPDATE event_guests SET link_emailed_at = ${at} WHERE id = ${guestId}`)
      return true
    })

  return { link, activeLinks, insertLink, readd, update, remove, addHistory, addInvite, claimLinkEmail } as const
}
