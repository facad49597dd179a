/** Guest lists in SQLite, read in set-based queries: one query gives guests with their histories. */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { dialectOf, type JsonFields } from "../Db/Dialect.js"
import { guestJsonSql } from "./GuestJson.js"
import { DirectSql } from "../Db/DirectSql.js"
import { AttendanceStatus, SmsConsent } from "./Domain.js"
import { likeContains } from "../Db/SearchKeys.js"
import { emailKeyOf } from "../Domain/Fields.js"
import { type EventRowId, GuestRowId, type OrganizationRowId, PersonRowId, rowIdColumn } from "../Domain/RowIds.js"

const text = Schema.NullOr(Schema.String)

/**
 * A guest as the list reads it. Columns with a CHECK constraint (migrations 0002 and 0003) have its
 * values as their type: `attendance_status` and the phone's `consent`.
 */
export const GuestRow = Schema.Struct({
  gid: rowIdColumn.guest,
  person_id: rowIdColumn.person,
  public_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  company: text,
  position: text,
  rsvp_status: Schema.String,
  attendance_status: Schema.NullOr(AttendanceStatus),
  dietary_restrictions: text,
  rsvp_note: text,
  custom_columns: text,
  rsvp_question_responses: Schema.String,
  phone: text,
  consent: Schema.NullOr(SmsConsent.fields.consent),
  consent_source: text,
  token: text,
  removed_at: text,
  /** The RSVP history, oldest first, as a JSON array (aggregated by the query). */
  history: Schema.String
})
export type GuestRow = typeof GuestRow.Type

/** A guest of the list as its JSON text (GuestJson.ts `guestJsonSql`), with its link's and person's ids. */
export interface GuestJsonRow {
  readonly gid: GuestRowId
  readonly person_id: PersonRowId
  readonly json: string
}

/** What every guest's JSON text of one answer shares (GuestJson.ts): its event's RSVP link, open, and its tail. */
export interface ListJsonShared {
  readonly linkOpen: string | null
  readonly tail: string
}

export const LinkRow = Schema.Struct({
  id: rowIdColumn.guest,
  person_id: rowIdColumn.person,
  rsvp_status: Schema.String,
  attendance_status: text,
  dietary_restrictions: text,
  rsvp_note: text,
  custom_columns: text,
  removed_at: text,
  /** Its RSVP history's entries (Domain.ts `MAX_HISTORY_ENTRIES`). */
  history_entries: Schema.Number
})
export type LinkRow = typeof LinkRow.Type


/** What the dashboard's guest list and door page ask for: a filtered, searched page of the list. */
export interface GuestPageQuery {
  /** Only guests with this RSVP status. */
  readonly rsvpStatus?: string | undefined
  /** Only guests with this attendance; `none` = not checked in. */
  readonly attendance?: "Attended" | "No Show" | "none" | undefined
  /** A case-insensitive part of the name (first, last or full) or of the email. */
  readonly term?: string | undefined
  /** `added`: the list's own order (as the API's); `name`: by first and last name, for the door. */
  readonly order: "added" | "name"
  readonly limit: number
  readonly skip: number
}

/** A guest as the CSV export writes it: the person's fields and the guest's, without the history. */
export interface ExportGuestRow {
  readonly gid: GuestRowId
  readonly person_id: PersonRowId
  readonly public_id: string
  readonly first_name: string
  readonly last_name: string
  readonly email: string
  readonly phone: string | null
  readonly company: string | null
  readonly position: string | null
  readonly rsvp_status: string
  readonly attendance_status: string | null
  readonly dietary_restrictions: string | null
  readonly rsvp_note: string | null
  readonly custom_columns: string | null
  readonly rsvp_question_responses: string
}

/** A guest's values as an import reads and writes them (`event_guests` columns, JSON as stored). */
export interface GuestValues {
  readonly rsvp_status: string
  readonly attendance_status: string | null
  readonly dietary_restrictions: string | null
  readonly rsvp_note: string | null
  readonly custom_columns: string | null
}

/** A guest link an import found, with the state its writes expect to find again. */
export interface ImportLinkRow extends GuestValues {
  readonly id: GuestRowId
  readonly person_id: PersonRowId
  readonly removed_at: string | null
  /** Its RSVP history's entries (Domain.ts `MAX_HISTORY_ENTRIES`). */
  readonly history_entries: number
}

/** Rows of one set-based statement of an import, serialized ahead as the JSON array `json_each` reads. */
export interface LinkBatch<_Row> {
  readonly size: number
  readonly json: string
}

const valuesOf = (v: GuestValues) => [v.rsvp_status, v.attendance_status, v.dietary_restrictions, v.rsvp_note, v.custom_columns]

/** A guest link to create for the active person with this email key, with its values. */
export interface NewLink {
  readonly emailKey: string
  readonly values: GuestValues
}

export const newLinksBatch = (links: ReadonlyArray<NewLink>): LinkBatch<NewLink> => ({
  size: links.length,
  json: JSON.stringify(links.map((l) => [l.emailKey, ...valuesOf(l.values)]))
})

/**
 * New values for an existing link (on the list again when it was removed), written only if the
 * link is still as the import found it (`expected`, `removedAt` included).
 */
export interface LinkUpdate {
  readonly id: GuestRowId
  readonly expected: GuestValues
  readonly removedAt: string | null
  readonly values: GuestValues
}

export const linkUpdatesBatch = (updates: ReadonlyArray<LinkUpdate>): LinkBatch<LinkUpdate> => ({
  size: updates.length,
  json: JSON.stringify(updates.map((u) => [u.id, ...valuesOf(u.expected), u.removedAt, ...valuesOf(u.values)]))
})

/** A link the import records history for without changing it: it must still be as found. */
export interface LinkCheck {
  readonly id: GuestRowId
  readonly expected: GuestValues
}

export const linkChecksBatch = (checks: ReadonlyArray<LinkCheck>): LinkBatch<LinkCheck> => ({
  size: checks.length,
  json: JSON.stringify(checks.map((c) => [c.id, ...valuesOf(c.expected)]))
})

/** An RSVP history entry for the guest of the active person with this email key. */
export interface NewHistory {
  readonly emailKey: string
  readonly status: string
  readonly actionType: "added" | "updated"
}

export const historyBatch = (entries: ReadonlyArray<NewHistory>): LinkBatch<NewHistory> => ({
  size: entries.length,
  json: JSON.stringify(entries.map((e) => [e.emailKey, e.status, e.actionType]))
})

export type GuestFilter =
  | { readonly _tag: "PersonIds"; readonly personIds: ReadonlyArray<string> }
  | { readonly _tag: "Email"; readonly email: string }
  | { readonly _tag: "Name"; readonly name: string }

export class GuestsRepo extends Effect.Service<GuestsRepo>()("Convene/GuestsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)
    // SQLite's CROSS JOIN is an inner join that keeps the written order (from the JSON array to the
    // table, by index); PostgreSQL's takes no ON, and its planner chooses the order itself (a hash
    // join, even with the statistics of tables an import is filling: measured at 20-30 ms a batch
    // of 2,000 against 50,000 persons)
    const crossJoin = sql.literal(d.name === "pg" ? "JOIN" : "CROSS JOIN")
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
        : direct.unchecked.rows<GuestRow>(
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
        direct.unchecked.rows<{ id: GuestRowId }>(sql`SELECT g.id FROM event_guests g JOIN persons p ON p.id = g.person_id
            WHERE ${where(eventId, filter)}
            ORDER BY ${filter._tag === "PersonIds" ? sql.literal("+g.id") : sql.literal("g.id")} LIMIT ${limit} OFFSET ${skip}`),
        direct.unchecked.first<{ total: number }>(
          sql`SELECT count(*) AS total FROM event_guests g JOIN persons p ON p.id = g.person_id WHERE ${where(eventId, filter)}`
        )
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
        direct.unchecked.rows<{ id: GuestRowId }>(sql`SELECT g.id FROM event_guests g JOIN persons p ON p.id = g.person_id
            WHERE ${pageWhere(eventId, query)} ORDER BY ${order} LIMIT ${query.limit} OFFSET ${query.skip}`),
        direct.unchecked.first<{ total: number }>(
          sql`SELECT count(*) AS total FROM event_guests g JOIN persons p ON p.id = g.person_id WHERE ${pageWhere(eventId, query)}`
        )
      ]).pipe(Effect.map(([rows, count]) => ({ ids: rows.map((r) => r.id), total: count?.total ?? 0 })))
    }

    /** Guests on the list by RSVP status, and how many are checked in (attendance `Attended`). */
    const attended = sql.literal(d.name === "pg"
      ? "count(*) FILTER (WHERE attendance_status = 'Attended')"
      : "sum(attendance_status = 'Attended')")
    const counts = (eventId: EventRowId) =>
      direct.unchecked.rows<{ readonly rsvp_status: string; readonly n: number; readonly attended: number }>(
        sql`SELECT rsvp_status, count(*) AS n, ${attended} AS attended FROM event_guests
            WHERE event_id = ${eventId} AND removed_at IS NULL GROUP BY rsvp_status`
      )

    /** A link's history entries, counted on the `(event_guest_id, …)` index (`g` the link). */
    const historyEntries = sql.literal("(SELECT count(*) FROM rsvp_history h WHERE h.event_guest_id = g.id) AS history_entries")

    const link = ({ eventId, personId }: { eventId: EventRowId; personId: PersonRowId }) =>
      Effect.map(
        direct.unchecked.first<LinkRow>(
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
        (statement) => direct.unchecked.rows<LinkRow & { readonly public_id: string }>(statement),
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
      actorType: string
      actorId: string
      actionType: "added" | "updated"
      at: string
    }) =>
      direct.run(sql`INSERT INTO rsvp_history (event_guest_id, status, actor_type, actor_id, action_type, created_at)
          VALUES (${row.guestId}, ${row.status}, ${row.actorType}, ${row.actorId}, ${row.actionType}, ${row.at})`)

    const addInvite = (guestId: GuestRowId, token: string, at: string) =>
      direct.run(sql`INSERT INTO invites (event_guest_id, token, created_at) VALUES (${guestId}, ${token}, ${at})
          ON CONFLICT (event_guest_id) DO NOTHING`)

    /** The invite tokens the given guests have (guests without one are absent). */
    const inviteTokens = (guestIds: ReadonlyArray<GuestRowId>) =>
      guestIds.length === 0
        ? Effect.succeed(new Map<GuestRowId, string>())
        : Effect.map(
          direct.unchecked.rows<{ event_guest_id: GuestRowId; token: string }>(
            sql`SELECT event_guest_id, token FROM invites
                WHERE event_guest_id IN ${d.inValues(JSON.stringify(guestIds), "integer")}`
          ),
          (rows) => new Map(rows.map((r) => [r.event_guest_id, r.token]))
        )

    /** A person's events (active links only), by event date: their `eventHistory`. */
    const eventsOfPerson = ({ organizationId, personId }: { personId: PersonRowId; organizationId: OrganizationRowId }) =>
      direct.unchecked.rows<{
        readonly gid: GuestRowId
        readonly public_id: string
        readonly name: string
        readonly slug: string | null
        readonly primary_date: string
        readonly rsvp_status: string
        readonly attendance_status: string | null
        readonly history: string
      }>(
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
        direct.unchecked.first<{ gid: GuestRowId; event_id: EventRowId }>(
          sql`SELECT g.id AS gid, g.event_id FROM invites i
              JOIN event_guests g ON g.id = i.event_guest_id JOIN events e ON e.id = g.event_id
              WHERE i.token = ${token} AND e.slug = ${slug} AND g.removed_at IS NULL`
        ),
        (row) => (row === undefined ? undefined : { guestId: row.gid, eventId: row.event_id })
      )

    /** Guests holding a place (Accepted), other than one. */
    const acceptedOthers = (eventId: EventRowId, guestId: GuestRowId) =>
      Effect.map(
        direct.unchecked.first<{ n: number }>(
          sql`SELECT count(*) AS n FROM event_guests
              WHERE event_id = ${eventId} AND removed_at IS NULL AND rsvp_status = 'Accepted' AND id != ${guestId}`
        ),
        (row) => row?.n ?? 0
      )

    const exportSelect = sql.literal(`SELECT g.id AS gid, g.person_id, p.public_id, p.first_name, p.last_name, p.email,
        (SELECT x.number FROM phones x WHERE x.person_id = g.person_id ORDER BY x.is_preferred DESC, x.id LIMIT 1) AS phone,
        p.company, p.position, g.rsvp_status, g.attendance_status, g.dietary_restrictions, g.rsvp_note,
        g.custom_columns, g.rsvp_question_responses
      FROM event_guests g JOIN persons p ON p.id = g.person_id`)

    /**
     * Every guest on the list as the CSV export reads them (no history, consent or invite), in
     * keyset batches of up to `size` in link order, like `ofEvent`; run it in `StreamSlots.snapshot`.
     */
    const exportOfEvent = (eventId: EventRowId, size: number): Stream.Stream<ReadonlyArray<ExportGuestRow>, SqlError> =>
      Stream.paginateEffect(0, (after: number) =>
        Effect.map(
          direct.unchecked.rows<ExportGuestRow>(
            sql`${exportSelect} WHERE g.event_id = ${eventId} AND g.removed_at IS NULL AND g.id > ${after} ORDER BY g.id LIMIT ${size}`
          ),
          (rows) => [rows, rows.length < size ? Option.none() : Option.some(rows[rows.length - 1]!.gid)] as const
        )
      ).pipe(Stream.filter((rows) => rows.length > 0))

    /** The links (active or removed) of these persons on an event. */
    const linksOfPersons = (eventId: EventRowId, personIds: ReadonlyArray<PersonRowId>) =>
      personIds.length === 0
        ? Effect.succeed<ReadonlyArray<ImportLinkRow>>([])
        : direct.unchecked.rows<ImportLinkRow>(sql`SELECT g.id, g.person_id, g.rsvp_status, g.attendance_status, g.dietary_restrictions,
              g.rsvp_note, g.custom_columns, g.removed_at, ${historyEntries}
            FROM ${d.values(JSON.stringify(personIds), "integer")}
            ${crossJoin} event_guests g ON g.event_id = ${eventId} AND g.person_id = j.value`)

    /** The guest ids of the active persons with these email keys on an event. */
    const guestIdsByEmailKeys = (eventId: EventRowId, organizationId: OrganizationRowId, emailKeys: ReadonlyArray<string>) =>
      emailKeys.length === 0
        ? Effect.succeed<ReadonlyArray<{ readonly email_key: string; readonly id: GuestRowId }>>([])
        : direct.unchecked.rows<{ readonly email_key: string; readonly id: GuestRowId }>(sql`SELECT p.email_key, g.id
            FROM ${d.values(JSON.stringify(emailKeys), "text")}
            ${crossJoin} persons p ON p.organization_id = ${organizationId} AND p.email_key = j.value AND p.archived_at IS NULL
            JOIN event_guests g ON g.event_id = ${eventId} AND g.person_id = p.id`)

    /** `column` equals field `index` of the row `j.value`, NULL equal to NULL. */
    const same = (column: string, index: number) => d.same(sql.literal(column), d.at(index))

    /** How many rows a statement with `RETURNING 1` touched. */
    const touched = (statement: Statement.Statement<unknown>) => Effect.map(direct.unchecked.rows(statement), (rows) => rows.length)

    /**
     * Puts the active persons of these email keys on the list, with their values, in one statement.
     * Answers how many it put there: fewer than given means a person was archived meanwhile. A
     * person put on the list meanwhile fails it with a unique-key violation.
     */
    const insertLinksMany = (eventId: EventRowId, organizationId: OrganizationRowId, links: LinkBatch<NewLink>, at: string) =>
      links.size === 0
        ? Effect.succeed(0)
        : touched(sql`INSERT INTO event_guests (event_id, person_id, rsvp_status, attendance_status, dietary_restrictions,
              rsvp_note, custom_columns, created_at, updated_at)
            SELECT ${eventId}, p.id, ${d.at(1)}, ${d.at(2)}, ${d.at(3)}, ${d.at(4)}, ${d.at(5)}, ${at}, ${at}
            FROM ${d.rows(links.json)}
            ${crossJoin} persons p ON p.organization_id = ${organizationId} AND p.email_key = ${d.at(0)} AND p.archived_at IS NULL
            ORDER BY j.key
            RETURNING 1`)

    /**
     * Writes new values on existing links (a removed one comes back on the list), each only if it
     * is still as the import found it. Answers how many it wrote: fewer than given means another
     * write changed one of them meanwhile.
     */
    const updateLinksMany = (updates: LinkBatch<LinkUpdate>, at: string) =>
      updates.size === 0
        ? Effect.succeed(0)
        : touched(sql`UPDATE event_guests SET rsvp_status = ${d.at(7)}, attendance_status = ${d.at(8)},
              dietary_restrictions = ${d.at(9)}, rsvp_note = ${d.at(10)}, custom_columns = ${d.at(11)},
              removed_at = NULL, updated_at = ${at}
            FROM ${d.rows(updates.json)}
            WHERE event_guests.id = ${d.at(0, "integer")} AND event_guests.rsvp_status = ${d.at(1)}
              AND ${same("event_guests.attendance_status", 2)} AND ${same("event_guests.dietary_restrictions", 3)}
              AND ${same("event_guests.rsvp_note", 4)} AND ${same("event_guests.custom_columns", 5)}
              AND ${same("event_guests.removed_at", 6)}
            RETURNING 1`)

    /** How many of these active links are still as the import found them. */
    const unchangedLinks = (checks: LinkBatch<LinkCheck>) =>
      checks.size === 0
        ? Effect.succeed(0)
        : Effect.map(
          direct.unchecked.first<{ readonly n: number }>(sql`SELECT count(*) AS n FROM ${d.rows(checks.json)}
              ${crossJoin} event_guests g ON g.id = ${d.at(0, "integer")}
            WHERE g.removed_at IS NULL AND g.rsvp_status = ${d.at(1)} AND ${same("g.attendance_status", 2)}
              AND ${same("g.dietary_restrictions", 3)} AND ${same("g.rsvp_note", 4)} AND ${same("g.custom_columns", 5)}`),
          (row) => row?.n ?? 0
        )

    /**
     * RSVP history entries by one actor, in the given order, for the guests (on this event) of the
     * active persons with these email keys. Answers how many it wrote.
     */
    const addHistoryMany = (
      eventId: EventRowId,
      organizationId: OrganizationRowId,
      actor: { readonly type: string; readonly id: string },
      entries: LinkBatch<NewHistory>,
      at: string
    ) =>
      entries.size === 0
        ? Effect.succeed(0)
        : touched(sql`INSERT INTO rsvp_history (event_guest_id, status, actor_type, actor_id, action_type, created_at)
            SELECT g.id, ${d.at(1)}, ${actor.type}, ${actor.id}, ${d.at(2)}, ${at}
            FROM ${d.rows(entries.json)}
            ${crossJoin} persons p ON p.organization_id = ${organizationId} AND p.email_key = ${d.at(0)} AND p.archived_at IS NULL
            JOIN event_guests g ON g.event_id = ${eventId} AND g.person_id = p.id
            ORDER BY j.key
            RETURNING 1`)

    return {
      jsonOfEvent,
      exportOfEvent,
      linksOfPersons,
      guestIdsByEmailKeys,
      insertLinksMany,
      updateLinksMany,
      unchangedLinks,
      addHistoryMany,
      counts,
      eventsOfPerson,
      byInvite,
      acceptedOthers,
      byIds,
      search,
      page,
      link,
      activeLinks,
      insertLink,
      readd,
      update,
      remove,
      addHistory,
      addInvite,
      inviteTokens
    } as const
  })
}) {}
