import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE webhooks (
    id               INTEGER PRIMARY KEY,
    public_id        TEXT NOT NULL UNIQUE,
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    url              TEXT NOT NULL,
    type             TEXT NOT NULL CHECK (type IN ('EventPerson', 'Event', 'GuestList')),
    secret           TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    disabled_at      TEXT,
    deleted_at       TEXT
  ) STRICT`
  yield* sql`CREATE UNIQUE INDEX webhooks_registration ON webhooks (organization_id, url, type) WHERE deleted_at IS NULL`
  // One notification, as it was when the change committed; delivered to each registration of that moment.
  yield* sql`CREATE TABLE webhook_messages (
    id               INTEGER PRIMARY KEY,
    public_id        TEXT NOT NULL UNIQUE,
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    type             TEXT NOT NULL,
    payload          TEXT NOT NULL,
    created_at       TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE TABLE webhook_deliveries (
    id                INTEGER PRIMARY KEY,
    public_id         TEXT NOT NULL UNIQUE,
    message_id        INTEGER NOT NULL REFERENCES webhook_messages(id),
    webhook_id        INTEGER NOT NULL REFERENCES webhooks(id),
    organization_id   INTEGER NOT NULL REFERENCES organizations(id),
    status            TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL,
    next_attempt_at   INTEGER,
    claimed_until     INTEGER,
    last_status_code  INTEGER,
    last_error        TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX webhook_deliveries_organization ON webhook_deliveries (organization_id, status, id)`
  yield* sql`CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, status)`
})
