/**
 * The guest list's reads (GuestsRepo.ts): a list as its guests' JSON texts, guests by id, searches
 * and pages of ids, counts, a person's events, an invite's guest. Set-based: one query gives
 * guests with their histories.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { dialectOf, type JsonFields } from "../Db/Dialect.js"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import { likeContains } from "../Db/SearchKeys.js"
import { emailKeyOf } from "../Domain/Fields.js"
import { type EventRowId, type GuestRowId, type OrganizationRowId, type PersonRowId, rowIdColumn } from "../Domain/RowIds.js"
import { guestJsonSql } from "./GuestJson.js"
import { type GuestFilter, type GuestPageQuery, type GuestJsonRow, GuestRow, type ListJsonShared } from "./GuestRows.js"

const text = Schema.NullOr(Schema.String)
const Id = Schema.Struct({ id: rowIdColumn.guest })
const Total = Schema.Struct({ total: Schema.Number })
const Count = Schema.Struct({ n: Schema.Number })
const StatusCount = Schema.Struct({ rsvp_status: Schema.String, n: Schema.Number, attended: Schema.Number })
const Invite = Schema.Struct({ event_guest_id: rowIdColumn.guest, token: Schema.String })
const Invited = Schema.Struct({ gid: rowIdColumn.guest, event_id: rowIdColumn.event })
/** A person's event as its `eventHistory` shows it, with the guest's RSVP history as a JSON array. */
const EventOfPerson = Schema.Struct({
  gid: rowIdColumn.guest,
  public_id: Schema.String,
  name: Schema.String,
  slug: text,
  primary_date: Schema.String,
  rsvp_status: Schema.String,
  attendance_status: text,
  history: Schema.String
})

export const guestListReads = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => {
  const d = dialectOf(sql)
  const history = (fields: JsonFields) => d.jsonObjects(fields, "h.id")
  /** A history entry's fields as the API shows them, in the schema's key order. */
  const apiHistory: JsonFields = [
    ["status", "h.status"],
    ["actorId", "h.actor_id"],
    ["actorType", "h.actor_type"],
    ["createdAt", "h.created_at"]
  ]

  /** The list's tables under the aliases its queries (and `guestJsonSql`) read them by. */
  const guestTables = `FROM event_guests g
    JOIN persons p ON p.id = g.person_id
    LEFT JOIN phones ph ON ph.id = (SELECT x.id FROM phones x WHERE x.person_id = g.person_id
                                    ORDER BY x.is_preferred DESC, x.id LIMIT 1)
    LEFT JOIN sms_consents c ON c.organization_id = p.organization_id AND c.number = ph.number
    LEFT JOIN invites i ON i.event_guest_id = g.id`
  /** A guest's history, its entries made of `historyFields`, as a JSON array. */
  const historyOfGuest = (historyFields: JsonFields) =>
    `(SELECT ${history(historyFields)} FROM rsvp_history h WHERE h.event_guest_id = g.id)`

  /** A guest's row, with its history's entries made of `historyFields`. */
  const selectWith = (historyFields: JsonFields) =>
    sql.literal(`SELECT g.id AS gid, g.person_id, p.public_id, p.first_name, p.last_name, p.email,
      p.company, p.position, g.rsvp_status, g.attendance_status, g.dietary_restrictions, g.rsvp_note,
      g.custom_columns, g.rsvp_question_responses, ph.number AS phone, c.consent, c.source AS consent_source,
      i.token, g.removed_at, ${historyOfGuest(historyFields)} AS history
    ${guestTables}`)
  /** With each history entry's action type too, for the webhook records. */
  const select = selectWith([
    ["status", "h.status"],
    ["actorId", "h.actor_id"],
    ["actorType", "h.actor_type"],
    ["actionType", "h.action_type"],
    ["createdAt", "h.created_at"]
  ])

  /** Each guest as the JSON text the list answers (GuestJson.ts), its history exactly as the API shows it. */
  const listJson = sql.literal(`SELECT g.id AS gid, g.person_id, ${guestJsonSql(d.jsonQuote, historyOfGuest(apiHistory))} AS json
    ${guestTables}`)

  /** Up to `size` guests on the list (removed ones excluded) after guest `after`, in link order, as JSON. */
  // read unchecked (DirectSql `unchecked`, as PersonPagesRepo.ts's pages): the hottest streamed
  // answer, whose rows are an id pair and a JSON text the database wrote; decoding each row of
  // every page cost the 1,000-guest list some 15% of its CPU (bench:quick: 9.6 -> 11.1 ms a list).
  // Its text is checked by test/repo/guest-json.test.ts, the whole list by the guest-list tests.
  const jsonPageOfEvent = (eventId: EventRowId, after: number, size: number, shared: ListJsonShared) =>
    direct.unchecked.rows<GuestJsonRow>(
      sql`${listJson} CROSS JOIN (SELECT CAST(${shared.linkOpen} AS text) AS link_open, CAST(${shared.tail} AS text) AS tail) o
          WHERE g.event_id = ${eventId} AND g.removed_at IS NULL AND g.id > ${after} ORDER BY g.id LIMIT ${size}`
    )

  /**
   * Every guest on the list (removed ones excluded), in the order they were first added, as
   * batches of up to `size` of their JSON texts (`guestJsonSql`): keyset pages on the
   * `(event_id, id)` index, each read when the previous one has been consumed, so a list of any
   * length holds one batch in memory. Run it in `StreamSlots.snapshot` for one consistent list.
   */
  const jsonOfEvent = (eventId: EventRowId, size: number, shared: ListJsonShared): Stream.Stream<ReadonlyArray<GuestJsonRow>, SqlError> =>
    // one row more than a batch says whether another follows: no empty last page is read
    Stream.paginateEffect(0, (after: number) =>
      Effect.map(jsonPageOfEvent(eventId, after, size + 1, shared), (rows) =>
        rows.length > size
          ? [rows.slice(0, size), Option.some(rows[size - 1]!.gid)] as const
          : [rows, Option.none()] as const)
    ).pipe(Stream.filter((rows) => rows.length > 0))

  /** Given guest links (removed ones included), in link order. */
  const byIds = (guestIds: ReadonlyArray<GuestRowId>) =>
    guestIds.length === 0
      ? Effect.succeed<ReadonlyArray<GuestRow>>([])
      : direct.rows(
        GuestRow,
        sql`${select} WHERE g.id IN ${d.inValues(JSON.stringify(guestIds), "integer")} ORDER BY g.id`
      )

  const where = (eventId: EventRowId, filter: GuestFilter) => {
    const base = sql`g.event_id = ${eventId} AND g.removed_at IS NULL`
    switch (filter._tag) {
      case "PersonIds":
        // through the persons' ids: each named guest is found by its (event, person) key, whatever the list's length
        return sql`${base} AND g.person_id IN (SELECT x.id FROM persons x
            WHERE x.public_id IN ${d.inValues(JSON.stringify(filter.personIds), "text")})`
      case "Email":
        return sql`${base} AND p.email_key = ${emailKeyOf(filter.email)}`
      case "Name":
        return sql`${base} AND p.name_key LIKE ${likeContains(filter.name.trim())} ESCAPE '\\'`
    }
  }

  /** The guest ids matching a search, a page of them, and how many match in all. */
  const search = (eventId: EventRowId, filter: GuestFilter, limit: number, skip: number) =>
    Effect.all([
      direct.rows(Id, sql`SELECT g.id FROM event_guests g JOIN persons p ON p.id = g.person_id
          WHERE ${where(eventId, filter)}
          ORDER BY ${filter._tag === "PersonIds" ? sql.literal("+g.id") : sql.literal("g.id")} LIMIT ${limit} OFFSET ${skip}`),
      direct.first(Total, sql`SELECT count(*) AS total FROM event_guests g JOIN persons p ON p.id = g.person_id WHERE ${where(eventId, filter)}`)
    ]).pipe(Effect.map(([rows, count]) => ({ ids: rows.map((r) => r.id), total: count?.total ?? 0 })))

  const pageWhere = (eventId: EventRowId, query: GuestPageQuery) => {
    const conditions = [sql`g.event_id = ${eventId} AND g.removed_at IS NULL`]
    if (query.rsvpStatus !== undefined) conditions.push(sql`g.rsvp_status = ${query.rsvpStatus}`)
    if (query.attendance === "none") conditions.push(sql`g.attendance_status IS NULL`)
    else if (query.attendance !== undefined) conditions.push(sql`g.attendance_status = ${query.attendance}`)
    const term = query.term?.trim() ?? ""
    if (term !== "") {
      const pattern = likeContains(term)
      conditions.push(sql`(p.name_key LIKE ${pattern} ESCAPE '\\' OR p.email_key LIKE ${pattern} ESCAPE '\\')`)
    }
    return sql.and(conditions)
  }

  /** A page of the guest ids a dashboard query selects, and how many it selects in all. */
  const page = (eventId: EventRowId, query: GuestPageQuery) => {
    const order = query.order === "name"
      ? sql`${d.nocase("p.first_name")}, ${d.nocase("p.last_name")}, g.id`
      : sql`g.id`
    return Effect.all([
      direct.rows(Id, sql`SELECT g.id FROM event_guests g JOIN persons p ON p.id = g.person_id
          WHERE ${pageWhere(eventId, query)} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.skip}`),
      direct.first(
        Total,
        sql`SELECT count(*) AS total FROM event_guests g JOIN persons p ON p.id = g.person_id WHERE ${pageWhere(eventId, query)}`
      )
    ]).pipe(Effect.map(([rows, count]) => ({ ids: rows.map((r) => r.id), total: count?.total ?? 0 })))
  }

  /** Guests on the list by RSVP status, and how many are checked in (attendance `Attended`). */
  const counts = (eventId: EventRowId) =>
    direct.rows(
      StatusCount,
      sql`SELECT rsvp_status, count(*) AS n, count(*) FILTER (WHERE attendance_status = 'Attended') AS attended FROM event_guests
          WHERE event_id = ${eventId} AND removed_at IS NULL GROUP BY rsvp_status`
    )

  /** The invite tokens the given guests have (guests without one are absent). */
  const inviteTokens = (guestIds: ReadonlyArray<GuestRowId>) =>
    guestIds.length === 0
      ? Effect.succeed(new Map<GuestRowId, string>())
      : Effect.map(
        direct.rows(
          Invite,
          sql`SELECT event_guest_id, token FROM invites
              WHERE event_guest_id IN ${d.inValues(JSON.stringify(guestIds), "integer")}`
        ),
        (rows) => new Map(rows.map((r) => [r.event_guest_id, r.token]))
      )

  /** A person's events (active links only), by event date: their `eventHistory`. */
  const eventsOfPerson = ({ organizationId, personId }: { personId: PersonRowId; organizationId: OrganizationRowId }) =>
    direct.rows(
      EventOfPerson,
      sql`SELECT g.id AS gid, e.public_id, e.name, e.slug, e.primary_date, g.rsvp_status, g.attendance_status,
            (SELECT ${sql.literal(history(apiHistory))}
               FROM rsvp_history h WHERE h.event_guest_id = g.id) AS history
          FROM event_guests g JOIN events e ON e.id = g.event_id
          WHERE g.person_id = ${personId} AND g.removed_at IS NULL AND e.organization_id = ${organizationId}
          ORDER BY e.primary_date_utc, g.id`
    )

  /** The active guest an invite token belongs to, on the event with that public slug. */
  const byInvite = (slug: string, token: string) =>
    Effect.map(
      direct.first(
        Invited,
        sql`SELECT g.id AS gid, g.event_id FROM invites i
            JOIN event_guests g ON g.id = i.event_guest_id JOIN events e ON e.id = g.event_id
            WHERE i.token = ${token} AND e.slug = ${slug} AND g.removed_at IS NULL`
      ),
      (row) => (row === undefined ? undefined : { guestId: row.gid, eventId: row.event_id })
    )

  /** Guests holding a place (Accepted), other than one. */
  const acceptedOthers = (eventId: EventRowId, guestId: GuestRowId) =>
    Effect.map(
      direct.first(
        Count,
        sql`SELECT count(*) AS n FROM event_guests
            WHERE event_id = ${eventId} AND removed_at IS NULL AND rsvp_status = 'Accepted' AND id != ${guestId}`
      ),
      (row) => row?.n ?? 0
    )

  return { jsonOfEvent, byIds, search, page, counts, inviteTokens, eventsOfPerson, byInvite, acceptedOthers } as const
}
