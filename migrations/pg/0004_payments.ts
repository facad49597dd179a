import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Purchases of an event, their items and refunds; amounts in the currency's minor unit (cents), so
 * `bigint`, never floating point. Same as the SQLite step.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE purchases (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id       text NOT NULL UNIQUE,
    event_id        bigint NOT NULL REFERENCES events(id),
    invoice_number  text NOT NULL,
    created_at      text NOT NULL,
    updated_at      text NOT NULL,
    disputed_at     text
  )`
  yield* sql`CREATE INDEX purchases_event ON purchases (event_id, id)`
  yield* sql`CREATE TABLE purchase_items (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id    text NOT NULL UNIQUE,
    purchase_id  bigint NOT NULL REFERENCES purchases(id),
    person_id    bigint NOT NULL REFERENCES persons(id),
    type         text NOT NULL,
    subtotal     bigint NOT NULL CHECK (subtotal >= 0),
    tax          bigint NOT NULL CHECK (tax >= 0),
    service_fee  bigint NOT NULL CHECK (service_fee >= 0),
    total        bigint NOT NULL,
    promo_code   text
  )`
  yield* sql`CREATE INDEX purchase_items_purchase ON purchase_items (purchase_id, id)`
  yield* sql`CREATE INDEX purchase_items_person ON purchase_items (person_id)`
  yield* sql`CREATE TABLE refunds (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id    text NOT NULL UNIQUE,
    purchase_id  bigint NOT NULL REFERENCES purchases(id),
    item_id      bigint REFERENCES purchase_items(id),
    amount       bigint NOT NULL CHECK (amount > 0),
    created_at   text NOT NULL
  )`
  yield* sql`CREATE INDEX refunds_purchase ON refunds (purchase_id, id)`
})
