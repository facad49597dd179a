import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Invitations of existing users into an organization (docs/integrators.md#members-and-invitations): an organization may not set
 * the credentials of a user who exists already, so it invites them and they accept signed in to
 * their own account. The link is the only way to an invitation (it is found by its token, never
 * listed for the account), and only a hash of its token is stored. At most one invitation per user
 * and organization is pending: inviting again revokes the earlier one.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE member_invitations (
    id                  INTEGER PRIMARY KEY,
    public_id           TEXT NOT NULL UNIQUE,
    organization_id     INTEGER NOT NULL REFERENCES organizations(id),
    user_id             INTEGER NOT NULL REFERENCES users(id),
    role                TEXT NOT NULL CHECK (role IN ('Super Admin', 'Admin', 'Team Member', 'Viewer')),
    token_hash          BLOB NOT NULL UNIQUE,
    invited_by_user_id  INTEGER REFERENCES users(id),
    created_at          TEXT NOT NULL,
    expires_at          TEXT NOT NULL,
    accepted_at         TEXT,
    revoked_at          TEXT
  ) STRICT`
  yield* sql`CREATE UNIQUE INDEX member_invitations_pending ON member_invitations (organization_id, user_id)
             WHERE accepted_at IS NULL AND revoked_at IS NULL`
})
