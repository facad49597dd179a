import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE purchases (
    id              INTEGER PRIMARY KEY,
    public_id       TEXT NOT NULL UNIQUE,
    event_id        INTEGER NOT NULL REFERENCES events(id),
    invoice_number  TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    disputed_at     TEXT
  ) STRICT`
  yield* sql`CREATE INDEX purchases_event ON purchases (event_id, id)`
  yield* sql`CREATE TABLE purchase_items (
    id           INTEGER PRIMARY KEY,
    public_id    TEXT NOT NULL UNIQUE,
    purchase_id  INTEGER NOT NULL REFERENCES purchases(id),
    person_id    INTEGER NOT NULL REFERENCES persons(id),
    type         TEXT NOT NULL,
    subtotal     INTEGER NOT NULL CHECK (subtotal >= 0),
    tax          INTEGER NOT NULL CHECK (tax >= 0),
    service_fee  INTEGER NOT NULL CHECK (service_fee >= 0),
    total        INTEGER NOT NULL,
    promo_code   TEXT
  ) STRICT`
  yield* sql`CREATE INDEX purchase_items_purchase ON purchase_items (purchase_id, id)`
  yield* sql`CREATE INDEX purchase_items_person ON purchase_items (person_id)`
  yield* sql`CREATE TABLE refunds (
    id           INTEGER PRIMARY KEY,
    public_id    TEXT NOT NULL UNIQUE,
    purchase_id  INTEGER NOT NULL REFERENCES purchases(id),
    item_id      INTEGER REFERENCES purchase_items(id),
    amount       INTEGER NOT NULL CHECK (amount > 0),
    created_at   TEXT NOT NULL
  ) STRICT`
  yield* sql`CREATE INDEX refunds_purchase ON refunds (purchase_id, id)`
})
