import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Invitations of existing users into an organization: only a hash of the link's token is stored,
 * and at most one invitation per user and organization is pending (inviting again revokes the
 * earlier one). Same as the SQLite step.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE member_invitations (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id           text NOT NULL UNIQUE,
    organization_id     bigint NOT NULL REFERENCES organizations(id),
    user_id             bigint NOT NULL REFERENCES users(id),
    role                text NOT NULL CHECK (role IN ('Super Admin', 'Admin', 'Team Member', 'Viewer')),
    token_hash          bytea NOT NULL UNIQUE,
    invited_by_user_id  bigint REFERENCES users(id),
    created_at          text NOT NULL,
    expires_at          text NOT NULL,
    accepted_at         text,
    revoked_at          text
  )`
  yield* sql`CREATE UNIQUE INDEX member_invitations_pending ON member_invitations (organization_id, user_id)
             WHERE accepted_at IS NULL AND revoked_at IS NULL`
})
