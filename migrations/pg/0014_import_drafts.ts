import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A CSV file uploaded to the dashboard's import flow, kept between its preview and the organizer's
 * confirmation; it belongs to one member of one organization and one kind of import, and is
 * deleted when confirmed, discarded, replaced, or an hour after it was made. Same as the SQLite step.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE import_drafts (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id        text NOT NULL UNIQUE,
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    user_id          bigint NOT NULL REFERENCES users(id),
    kind             text NOT NULL,
    filename         text NOT NULL,
    csv              text NOT NULL,
    created_at       text NOT NULL
  )`
  yield* sql`CREATE INDEX import_drafts_owner ON import_drafts (user_id, organization_id, kind)`
  yield* sql`CREATE INDEX import_drafts_created ON import_drafts (created_at)`
})
