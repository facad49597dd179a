/**
 * An organization's upcoming public events in the database (CONTRACT §16, "The organization's
 * public face"): one statement for the whole list, each event with its `Accepted` count (the places
 * taken), in date order on the events' `(organization_id, primary_date_utc, id)` index.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Schema from "effect/Schema"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { EventRow } from "../Events/EventRow.js"

/** The most events a listing shows: the page, its calendar feed and its JSON stay small. */
export const LISTING_LIMIT = 200

export const ListedRow = Schema.extend(EventRow, Schema.Struct({ accepted: Schema.Number }))
export type ListedRow = typeof ListedRow.Type

export const organizationListingStatements = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => ({
  /** The organization's public events with a page address starting at `fromUtc` or later, soonest first. */
  upcoming: (organizationId: OrganizationRowId, fromUtc: string) =>
    direct.rows(
      ListedRow,
      sql`SELECT e.*,
            (SELECT count(*) FROM event_guests g
             WHERE g.event_id = e.id AND g.removed_at IS NULL AND g.rsvp_status = 'Accepted') AS accepted
          FROM events e
          WHERE e.organization_id = ${organizationId} AND e.is_public = 1 AND e.slug IS NOT NULL
            AND e.primary_date_utc >= ${fromUtc}
          ORDER BY e.primary_date_utc, e.id
          LIMIT ${LISTING_LIMIT}`
    )
})
