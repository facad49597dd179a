import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Webhook registrations, messages and deliveries. Same as the SQLite step; `webhook_deliveries`
 * becomes `outbox_deliveries` in 0012 on both engines. `next_attempt_at` and `claimed_until` are
 * epoch milliseconds (`bigint`).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE webhooks (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id        text NOT NULL UNIQUE,
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    url              text NOT NULL,
    type             text NOT NULL CHECK (type IN ('EventPerson', 'Event', 'GuestList')),
    secret           text NOT NULL,
    created_at       text NOT NULL,
    disabled_at      text,
    deleted_at       text
  )`
  yield* sql`CREATE UNIQUE INDEX webhooks_registration ON webhooks (organization_id, url, type) WHERE deleted_at IS NULL`
  // One notification, as it was when the change committed; delivered to each registration of that moment.
  yield* sql`CREATE TABLE webhook_messages (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id        text NOT NULL UNIQUE,
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    type             text NOT NULL,
    payload          text NOT NULL,
    created_at       text NOT NULL
  )`
  yield* sql`CREATE TABLE webhook_deliveries (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id         text NOT NULL UNIQUE,
    message_id        bigint NOT NULL REFERENCES webhook_messages(id),
    webhook_id        bigint NOT NULL REFERENCES webhooks(id),
    organization_id   bigint NOT NULL REFERENCES organizations(id),
    status            text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempts          bigint NOT NULL DEFAULT 0,
    max_attempts      bigint NOT NULL,
    next_attempt_at   bigint,
    claimed_until     bigint,
    last_status_code  bigint,
    last_error        text,
    created_at        text NOT NULL,
    updated_at        text NOT NULL
  )`
  yield* sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX webhook_deliveries_organization ON webhook_deliveries (organization_id, status, id)`
  yield* sql`CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, status)`
})
