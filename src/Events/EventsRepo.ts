/** Events and their hosts in SQLite; every read is scoped to one organization. */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { EventRowId, type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"
import { likeContains } from "../Db/SearchKeys.js"
import { type EventColumns, EventRow } from "./EventRow.js"

/** A LIKE pattern for text contained in a name, as typed (`%`, `_` and `\` match themselves). */
const likeAsTyped = (value: string) => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

const HostRow = Schema.Struct({ event_id: rowIdColumn.event, public_id: Schema.String })
const Total = Schema.Struct({ total: Schema.Number })
const Timezone = Schema.Struct({ timezone: Schema.String })
const Taken = Schema.Struct({ taken: Schema.Literal(1) })

export class EventsRepo extends Effect.Service<EventsRepo>()("Convene/EventsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)
    const one = (statement: Statement.Statement<unknown>) => Effect.map(direct.first(EventRow, statement), Option.fromNullable)

    const byPublicId = ({ organizationId, publicId }: { organizationId: OrganizationRowId; publicId: string }) =>
      one(sql`SELECT * FROM events WHERE public_id = ${publicId} AND organization_id = ${organizationId}`)

    const byId = (id: EventRowId) => one(sql`SELECT * FROM events WHERE id = ${id}`)

    const bySlug = (slug: string) => one(sql`SELECT * FROM events WHERE slug = ${slug}`)

    const list = ({ from, hostUserId, limit, organizationId, skip }: {
      organizationId: OrganizationRowId
      hostUserId: number | null
      from: string | null
      limit: number
      skip: number
    }) =>
      direct.rows(
        EventRow,
        sql`SELECT e.* FROM events e
            WHERE e.organization_id = ${organizationId}
            ${from === null ? sql.literal("") : sql`AND e.primary_date_utc >= ${from}`}
            ${
          hostUserId === null
            ? sql.literal("")
            : sql`AND EXISTS (SELECT 1 FROM event_hosts h WHERE h.event_id = e.id AND h.user_id = ${hostUserId})`
        }
            ORDER BY e.primary_date_utc, e.id LIMIT ${limit} OFFSET ${skip}`
      )

    /** The dashboard's browse: upcoming (from `now`) or past events of an organization, by name. */
    interface Browse {
      readonly organizationId: OrganizationRowId
      readonly now: string
      readonly past: boolean
      readonly name: string
    }
    const browseWhere = ({ name, now, organizationId, past }: Browse) =>
      sql`WHERE e.organization_id = ${organizationId}
          AND ${past ? sql`e.primary_date_utc < ${now}` : sql`e.primary_date_utc >= ${now}`}
          ${
        name === ""
          ? sql.literal("")
          // SQLite folds only ASCII letters: the text as typed also matches non-ASCII letters exactly
          // (PostgreSQL's LIKE folds nothing, its ILIKE what its locale folds, ASCII letters at least)
          : sql`AND (lower(e.name) LIKE ${likeContains(name)} ESCAPE '\\' OR e.name ${d.caseInsensitiveLike} ${likeAsTyped(name)} ESCAPE '\\')`
      }`

    /** Upcoming events soonest first, past ones most recent first. */
    const browse = (filter: Browse & { readonly limit: number; readonly skip: number }) =>
      direct.rows(
        EventRow,
        sql`SELECT e.* FROM events e ${browseWhere(filter)}
            ORDER BY ${sql.literal(filter.past ? "e.primary_date_utc DESC, e.id DESC" : "e.primary_date_utc, e.id")}
            LIMIT ${filter.limit} OFFSET ${filter.skip}`
      )

    const countBrowse = (filter: Browse) =>
      Effect.map(direct.first(Total, sql`SELECT count(*) AS total FROM events e ${browseWhere(filter)}`), (row) => row?.total ?? 0)

    /** The time zone most of an organization's events are in, if it has any. */
    const usualTimezone = (organizationId: OrganizationRowId) =>
      Effect.map(
        direct.first(
          Timezone,
          sql`SELECT timezone FROM events WHERE organization_id = ${organizationId}
              GROUP BY timezone ORDER BY count(*) DESC, max(id) DESC LIMIT 1`
        ),
        (row) => Option.fromNullable(row?.timezone)
      )

    const slugTaken = (slug: string) =>
      Effect.map(direct.first(Taken, sql`SELECT 1 AS taken FROM events WHERE slug = ${slug}`), (row) => row !== undefined)

    const insert = (row: EventColumns & { publicId: string; organizationId: OrganizationRowId; createdBy: number | null; at: string }) => {
      const { at, createdBy, organizationId, publicId, ...columns } = row
      return sql`INSERT INTO events ${
        sql.insert({
          ...columns,
          public_id: publicId,
          organization_id: organizationId,
          created_by_user_id: createdBy,
          created_at: at,
          updated_at: at
        })
      } RETURNING id`.pipe(Effect.map((rows) => EventRowId(Number(rows[0]!["id"]))))
    }

    const update = (id: EventRowId, changes: Partial<EventColumns>, at: string) =>
      sql`UPDATE events SET ${sql.update({ ...changes, updated_at: at })} WHERE id = ${id}`

    /** One more calendar revision: what calendars show of the event changed. */
    const reviseCalendar = (id: EventRowId) => sql`UPDATE events SET calendar_sequence = calendar_sequence + 1 WHERE id = ${id}`

    const hosts = (eventIds: ReadonlyArray<EventRowId>) =>
      eventIds.length === 0
        ? Effect.succeed<ReadonlyArray<typeof HostRow.Type>>([])
        : direct.rows(
          HostRow,
          sql`SELECT h.event_id, u.public_id FROM event_hosts h JOIN users u ON u.id = h.user_id
              WHERE h.event_id IN ${d.inValues(JSON.stringify(eventIds), "integer")} ORDER BY h.event_id, u.id`
        )

    /** Replaces an event's hosts. */
    const setHosts = (eventId: EventRowId, userIds: ReadonlyArray<number>) =>
      Effect.zipRight(
        sql`DELETE FROM event_hosts WHERE event_id = ${eventId}`,
        Effect.forEach(userIds, (userId) => sql`INSERT INTO event_hosts (event_id, user_id) VALUES (${eventId}, ${userId})`, {
          discard: true
        })
      )

    /** Members of the organization by public user id. */
    const memberIds = (organizationId: OrganizationRowId, publicIds: ReadonlyArray<string>) =>
      publicIds.length === 0
        ? Effect.succeed(new Map<string, number>())
        : sql`SELECT u.id, u.public_id FROM users u JOIN memberships m ON m.user_id = u.id
              WHERE m.organization_id = ${organizationId} AND u.public_id IN ${sql.in(publicIds)}`.pipe(
          Effect.map((rows) => new Map(rows.map((r) => [String(r["public_id"]), Number(r["id"])])))
        )

    return { byPublicId, byId, bySlug, list, browse, countBrowse, usualTimezone, slugTaken, insert, update, reviseCalendar, hosts, setHosts, memberIds } as const
  })
}) {}
