/**
 * Webhook messages (WebhooksRepo.ts): stored in sets as notifications are written, read by an
 * attempt, deleted by the outbox's retention. A message's body is in `payload`, or, when it is
 * large, in `webhook_message_parts` (migration 0016): written part by part as it is built, and read
 * part by part when it is sent.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type Dialect, dialectOf } from "../Db/Dialect.js"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import { WebhookType } from "./Domain.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

/**
 * What an attempt needs: where, with which secret, and which message (its body is read apart, as
 * bytes: `payload`, or `part` by part when `parts_bytes` is set).
 */
export const AttemptRow = Schema.Struct({
  webhook_id: Schema.Number,
  url: Schema.String,
  secret: Schema.String,
  /** The message's row id. */
  message_row: Schema.Number,
  /** The message's public id: the `webhook-id` header. */
  message_id: Schema.String,
  /** The body's length in bytes when it is kept in parts; null when it is in `payload`. */
  parts_bytes: Schema.NullOr(Schema.Number)
})
export type AttemptRow = typeof AttemptRow.Type

/** A message to store, its body serialized already. */
export interface NewMessage {
  readonly publicId: string
  readonly payload: string
}

/**
 * Rows per statement of `insertMessages`: a statement has room for this many (unused rows are
 * bound as NULL and skipped), so that a few statement texts serve any number of messages.
 */
const MESSAGE_ROWS: ReadonlyArray<number> = [1, 8, 64]
const MOST_MESSAGE_ROWS = 64

/**
 * The statement text for `rows` messages, with the engine's parameters (`Dialect.placeholder`) and
 * the alias a subquery in FROM needs on PostgreSQL before 16; the parameters are the organization,
 * the type, the time, then each row's public id and body.
 */
const messagesStatement = (rows: number, d: Dialect) =>
  `INSERT INTO webhook_messages (public_id, organization_id, type, payload, created_at)
   SELECT column1, ${d.placeholder(1)}, ${d.placeholder(2)}, column2, ${d.placeholder(3)} FROM (VALUES ${
    Array.from({ length: rows }, (_, i) => `(${d.placeholder(4 + 2 * i)}, ${d.placeholder(5 + 2 * i)})`).join(", ")
  }) AS v
   WHERE column1 IS NOT NULL RETURNING id, public_id`

const Inserted = Schema.Struct({ id: Schema.Number, public_id: Schema.String })
const Payload = Schema.Struct({ payload: Schema.Uint8ArrayFromSelf })
const Part = Schema.Struct({ part: Schema.Uint8ArrayFromSelf })

/** What a delivery log shows of a delivery's message. */
export const LoggedMessageRow = Schema.Struct({ id: Schema.Number, public_id: Schema.String, type: WebhookType })
export type LoggedMessageRow = typeof LoggedMessageRow.Type

export const webhookMessageStatements = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => {
  const d = dialectOf(sql)
  const messageStatements = new Map(MESSAGE_ROWS.map((rows) => [rows, messagesStatement(rows, d)]))
  /** A text column's value as UTF-8 bytes (a Buffer). */
  const asBytes = (column: string) => sql.literal(d.textBytes(column))

  /**
   * Messages of one type, their bodies serialized already, in a few set-based statements (one per
   * 64 messages, bodies bound as parameters); answers their row ids by public id. Runs in the
   * caller's transaction.
   */
  const insertMessages = (organizationId: OrganizationRowId, type: WebhookType, at: string, messages: ReadonlyArray<NewMessage>) =>
    Effect.gen(function*() {
      const ids = new Map<string, number>()
      for (let start = 0; start < messages.length;) {
        const rows = MESSAGE_ROWS.find((n) => n >= messages.length - start) ?? MOST_MESSAGE_ROWS
        const params: Array<string | number | null> = [organizationId, type, at]
        for (let i = start; i < start + rows; i++) {
          const message = messages[i]
          params.push(message?.publicId ?? null, message?.payload ?? null)
        }
        const inserted = yield* direct.rows(
          Inserted,
          sql.unsafe(messageStatements.get(rows)!, params)
        )
        for (const row of inserted) ids.set(row.public_id, Number(row.id))
        start += rows
      }
      return ids as ReadonlyMap<string, number>
    })

  /** A large message, its body to come in parts (`insertPart`, then `endParts`); answers its row id. */
  const insertPartedMessage = (row: { publicId: string; organizationId: OrganizationRowId; type: WebhookType; at: string }) =>
    direct.insert(sql`INSERT INTO webhook_messages (public_id, organization_id, type, payload, payload_bytes, created_at)
        VALUES (${row.publicId}, ${row.organizationId}, ${row.type}, '', 0, ${row.at}) RETURNING id`)

  const insertPart = (messageRow: number, seq: number, part: string) =>
    direct.run(sql`INSERT INTO webhook_message_parts (message_id, seq, part) VALUES (${messageRow}, ${seq}, ${part})`)

  const endParts = (messageRow: number, bytes: number) =>
    direct.run(sql`UPDATE webhook_messages SET payload_bytes = ${bytes} WHERE id = ${messageRow}`)

  /** What an attempt of the delivery of message `messageRow` to registration `webhookId` needs. */
  const attempt = (webhookId: number, messageRow: number) =>
    direct.first(
      AttemptRow,
      sql`SELECT w.id AS webhook_id, w.url, w.secret, m.id AS message_row, m.public_id AS message_id, m.payload_bytes AS parts_bytes
          FROM webhooks w JOIN webhook_messages m ON m.id = ${messageRow}
          WHERE w.id = ${webhookId}`
    )

  /** A message's body kept in `payload`, as UTF-8 bytes (a Buffer, outside the JS heap). */
  const payload = (messageRow: number) =>
    Effect.map(
      direct.first(Payload, sql`SELECT ${asBytes("payload")} AS payload FROM webhook_messages WHERE id = ${messageRow}`),
      (row) => row?.payload ?? new Uint8Array(0)
    )

  /** Part `seq` of a message's body kept in parts, as UTF-8 bytes; undefined past the last. */
  const part = (messageRow: number, seq: number) =>
    Effect.map(
      direct.first(
        Part,
        sql`SELECT ${asBytes("part")} AS part FROM webhook_message_parts WHERE message_id = ${messageRow} AND seq = ${seq}`
      ),
      (row) => row?.part
    )

  /** The messages of the given rows, for a delivery log. */
  const loggedMessages = SqlSchema.findAll({
    Request: Schema.Array(Schema.Number),
    Result: LoggedMessageRow,
    execute: (ids) => sql`SELECT id, public_id, type FROM webhook_messages WHERE id IN ${sql.in(ids)}`
  })

  /**
   * Deletes the messages of the given rows (and their parts), which no delivery refers to any
   * more: the outbox's retention (Outbox/Retention.ts) gives them.
   */
  const deleteMessages = (rows: ReadonlyArray<number>) =>
    Effect.gen(function*() {
      const ids = d.inValues(JSON.stringify(rows), "integer")
      yield* direct.run(sql`DELETE FROM webhook_message_parts WHERE message_id IN ${ids}`)
      yield* direct.run(sql`DELETE FROM webhook_messages WHERE id IN ${ids}`)
    })

  return { insertMessages, insertPartedMessage, insertPart, endParts, attempt, payload, part, loggedMessages, deleteMessages } as const
}
