import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A CSV file uploaded to the dashboard's import flow (docs/integrators.md#csv-export-and-import), kept between its preview and
 * the organizer's confirmation: a browser without scripts cannot send the file again, so the
 * server keeps it. A draft belongs to one member of one organization and one kind of import
 * (contacts, a guest list); its id is random and only its creator may use it. It is deleted when
 * the import is confirmed or discarded, replaced by the same member's next upload of that kind,
 * and deleted an hour after it was made (`Web/ImportDrafts.ts`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE import_drafts (
    id               INTEGER PRIMARY KEY,
    public_id        TEXT NOT NULL UNIQUE,
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    user_id          INTEGER NOT NULL REFERENCES users(id),
    kind             TEXT NOT NULL,
    filename         TEXT NOT NULL,
    csv              TEXT NOT NULL,
    created_at       TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX import_drafts_owner ON import_drafts (user_id, organization_id, kind)`
  yield* sql`CREATE INDEX import_drafts_created ON import_drafts (created_at)`
})
