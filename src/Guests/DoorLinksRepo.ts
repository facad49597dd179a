/**
 * Door links in the database (`door_links`, migration 0026): a check-in link of one event, found by
 * its token's hash; listed, made and revoked by the event's admins (`DoorLinks.ts`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/DirectSql.js"
import { type EventRowId, rowIdColumn } from "../Domain/RowIds.js"

/** A link as its event's page lists it. */
export const DoorLinkRow = Schema.Struct({
  public_id: Schema.String,
  name: Schema.String,
  expires_at: Schema.String,
  created_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String)
})
export type DoorLinkRow = typeof DoorLinkRow.Type

/** A link found by its token: with its event and the event's organization. */
export const DoorLinkHolder = Schema.Struct({
  ...DoorLinkRow.fields,
  event_id: rowIdColumn.event,
  event_public_id: Schema.String,
  organization_id: rowIdColumn.organization,
  organization_slug: Schema.String
})
export type DoorLinkHolder = typeof DoorLinkHolder.Type

export class DoorLinksRepo extends Effect.Service<DoorLinksRepo>()("Convene/DoorLinksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

    const insert = (row: { publicId: string; eventId: EventRowId; name: string; tokenHash: Uint8Array; expiresAt: string; createdAt: string }) =>
      direct.run(sql`INSERT INTO door_links (public_id, event_id, name, token_hash, expires_at, created_at)
          VALUES (${row.publicId}, ${row.eventId}, ${row.name}, ${row.tokenHash}, ${row.expiresAt}, ${row.createdAt})`)

    /** The event's links, newest first. */
    const ofEvent = (eventId: EventRowId) =>
      direct.rows(
        DoorLinkRow,
        sql`SELECT public_id, name, expires_at, created_at, revoked_at FROM door_links WHERE event_id = ${eventId} ORDER BY id DESC`
      )

    /** Revokes a link of the event (a revoked one keeps its first time); false when the event has no such link. */
    const revoke = (eventId: EventRowId, publicId: string, at: string) =>
      Effect.map(
        direct.rows(
          Schema.Struct({ public_id: Schema.String }),
          sql`UPDATE door_links SET revoked_at = coalesce(revoked_at, ${at})
              WHERE event_id = ${eventId} AND public_id = ${publicId} RETURNING public_id`
        ),
        (rows) => rows.length > 0
      )

    /** The link whose token has this hash, with its event and organization, whatever its state. */
    const byTokenHash = (tokenHash: Uint8Array) =>
      direct.first(
        DoorLinkHolder,
        sql`SELECT l.public_id, l.name, l.expires_at, l.created_at, l.revoked_at, l.event_id,
              e.public_id AS event_public_id, e.organization_id, o.slug AS organization_slug
            FROM door_links l
            JOIN events e ON e.id = l.event_id
            JOIN organizations o ON o.id = e.organization_id
            WHERE l.token_hash = ${tokenHash}`
      )

    return { insert, ofEvent, revoke, byTokenHash } as const
  })
}) {}
