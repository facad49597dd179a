import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * One outbox for every channel: webhook deliveries and emails are rows of `outbox_deliveries`; a
 * webhook row names its registration and message, an email row has its message in
 * `outbox_emails`; invitations (an email to a guest about an event) point at theirs.
 *
 * The same steps as the SQLite one: `webhook_deliveries` is copied into `outbox_deliveries` with
 * the same ids (so public ids, order and history are kept; `OVERRIDING SYSTEM VALUE` writes ids
 * into the identity column, whose sequence then continues after the highest), dropped, and its
 * name stays as a view of the webhook rows for operators' own queries. SQLite's view is read-only;
 * this PostgreSQL view, over one table, is automatically updatable: the service never writes
 * through it. `events.calendar_sequence` is the iCalendar `SEQUENCE` of the event's calendar files.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE events ADD COLUMN calendar_sequence bigint NOT NULL DEFAULT 0`

  yield* sql`CREATE TABLE outbox_deliveries (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id         text NOT NULL UNIQUE,
    channel           text NOT NULL CHECK (channel IN ('webhook', 'email')),
    organization_id   bigint NOT NULL REFERENCES organizations(id),
    message_id        bigint REFERENCES webhook_messages(id),
    webhook_id        bigint REFERENCES webhooks(id),
    status            text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
    attempts          bigint NOT NULL DEFAULT 0,
    max_attempts      bigint NOT NULL,
    next_attempt_at   bigint,
    claimed_until     bigint,
    last_status_code  bigint,
    last_error        text,
    last_response     text,
    delivered_at      text,
    created_at        text NOT NULL,
    updated_at        text NOT NULL,
    CHECK ((channel = 'webhook') = (message_id IS NOT NULL AND webhook_id IS NOT NULL))
  )`
  yield* sql`INSERT INTO outbox_deliveries
      (id, public_id, channel, organization_id, message_id, webhook_id, status, attempts, max_attempts, next_attempt_at,
       claimed_until, last_status_code, last_error, last_response, delivered_at, created_at, updated_at)
    OVERRIDING SYSTEM VALUE
    SELECT id, public_id, 'webhook', organization_id, message_id, webhook_id, status, attempts, max_attempts, next_attempt_at,
       claimed_until, last_status_code, last_error, last_response,
       CASE WHEN status = 'delivered' THEN updated_at END, created_at, updated_at
    FROM webhook_deliveries`
  // the identity continues after the copied ids (no-op on an empty table: setval of NULL is NULL)
  yield* sql`SELECT setval(pg_get_serial_sequence('outbox_deliveries', 'id'), (SELECT max(id) FROM outbox_deliveries))`
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
  // Its key is its delivery's id, not picked by the database: a plain bigint primary key.
  yield* sql`CREATE TABLE outbox_emails (
    delivery_id  bigint PRIMARY KEY REFERENCES outbox_deliveries(id),
    message_id   text NOT NULL,
    recipient    text NOT NULL,
    subject      text NOT NULL,
    text_body    text NOT NULL,
    html_body    text NOT NULL,
    attachments  text NOT NULL DEFAULT '[]'
  )`

  yield* sql`CREATE TABLE invitations (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id        text NOT NULL UNIQUE,
    organization_id  bigint NOT NULL REFERENCES organizations(id),
    event_id         bigint NOT NULL REFERENCES events(id),
    person_id        bigint NOT NULL REFERENCES persons(id),
    delivery_id      bigint NOT NULL UNIQUE REFERENCES outbox_deliveries(id),
    created_at       text NOT NULL
  )`
  yield* sql`CREATE INDEX invitations_event ON invitations (event_id, id)`
})
