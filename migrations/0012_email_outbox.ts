import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * One outbox for every channel (docs/integrators.md#delivery-and-retries, docs/integrators.md#email-invitations): webhook deliveries and emails are rows of
 * `outbox_deliveries`, claimed, leased, retried and released by the same dispatcher. A row's
 * `channel` says how it leaves; a webhook row names its registration and message, an email row has
 * its message in `outbox_emails`. Invitations (an email to a guest about an event) point at theirs.
 *
 * `webhook_deliveries` becomes `outbox_deliveries` (same ids, so public ids, order and history are
 * kept); the old name stays as a read-only view of the webhook rows for operators' own queries.
 * `events.calendar_sequence` is the iCalendar `SEQUENCE` of the event's calendar files.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE events ADD COLUMN calendar_sequence INTEGER NOT NULL DEFAULT 0`

  yield* sql`CREATE TABLE outbox_deliveries (
    id                INTEGER PRIMARY KEY,
    public_id         TEXT NOT NULL UNIQUE,
    channel           TEXT NOT NULL CHECK (channel IN ('webhook', 'email')),
    organization_id   INTEGER NOT NULL REFERENCES organizations(id),
    message_id        INTEGER REFERENCES webhook_messages(id),
    webhook_id        INTEGER REFERENCES webhooks(id),
    status            TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempts          INTEGER NOT NULL DEFAULT 0,
    max_attempts      INTEGER NOT NULL,
    next_attempt_at   INTEGER,
    claimed_until     INTEGER,
    last_status_code  INTEGER,
    last_error        TEXT,
    last_response     TEXT,
    delivered_at      TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    CHECK ((channel = 'webhook') = (message_id IS NOT NULL AND webhook_id IS NOT NULL))
  ) STRICT`
  yield* sql`INSERT INTO outbox_deliveries
      (id, public_id, channel, organization_id, message_id, webhook_id, status, attempts, max_attempts, next_attempt_at,
       claimed_until, last_status_code, last_error, last_response, delivered_at, created_at, updated_at)
    SELECT id, public_id, 'webhook', organization_id, message_id, webhook_id, status, attempts, max_attempts, next_attempt_at,
       claimed_until, last_status_code, last_error, last_response,
       CASE WHEN status = 'delivered' THEN updated_at END, created_at, updated_at
    FROM webhook_deliveries`
  yield* sql`DROP TABLE webhook_deliveries`
  yield* sql`CREATE INDEX outbox_deliveries_due ON outbox_deliveries (channel, next_attempt_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX outbox_deliveries_organization ON outbox_deliveries (organization_id, channel, status, id)`
  yield* sql`CREATE INDEX outbox_deliveries_webhook ON outbox_deliveries (webhook_id, status) WHERE webhook_id IS NOT NULL`
  yield* sql`CREATE VIEW webhook_deliveries AS
    SELECT id, public_id, message_id, webhook_id, organization_id, status, attempts, max_attempts, next_attempt_at,
      claimed_until, last_status_code, last_error, created_at, updated_at, last_response
    FROM outbox_deliveries WHERE channel = 'webhook'`

  // An email as it was when its cause committed; `message_id` is its Message-ID header, the same
  // for every attempt, so a copy sent twice (a crash mid-send) is recognizably the same message.
  yield* sql`CREATE TABLE outbox_emails (
    delivery_id  INTEGER PRIMARY KEY REFERENCES outbox_deliveries(id),
    message_id   TEXT NOT NULL,
    recipient    TEXT NOT NULL,
    subject      TEXT NOT NULL,
    text_body    TEXT NOT NULL,
    html_body    TEXT NOT NULL,
    attachments  TEXT NOT NULL DEFAULT '[]'
  ) STRICT`

  yield* sql`CREATE TABLE invitations (
    id               INTEGER PRIMARY KEY,
    public_id        TEXT NOT NULL UNIQUE,
    organization_id  INTEGER NOT NULL REFERENCES organizations(id),
    event_id         INTEGER NOT NULL REFERENCES events(id),
    person_id        INTEGER NOT NULL REFERENCES persons(id),
    delivery_id      INTEGER NOT NULL UNIQUE REFERENCES outbox_deliveries(id),
    created_at       TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX invitations_event ON invitations (event_id, id)`
})
