/**
 * Webhook registrations and their messages. The deliveries of the messages are the outbox's
 * (Outbox/Deliveries.ts), which keeps each one's registration and message rows and never reads
 * these tables; nor are the outbox's read here.
 *
 * A message's body is in `payload`, or, when it is large, in `webhook_message_parts` (migration
 * 0016): written part by part as it is built, and read part by part when it is sent.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { WebhookType } from "./Domain.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"

export const RegistrationRow = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  url: Schema.String,
  type: WebhookType,
  secret: Schema.String,
  disabled_at: Schema.NullOr(Schema.String),
  deleted_at: Schema.NullOr(Schema.String)
})
export type RegistrationRow = typeof RegistrationRow.Type

/**
 * What an attempt needs: where, with which secret, and which message (its body is read apart, as
 * bytes: `payload`, or `part` by part when `parts_bytes` is set).
 */
export interface AttemptRow {
  readonly webhook_id: number
  readonly url: string
  readonly secret: string
  /** The message's row id. */
  readonly message_row: number
  /** The message's public id: the `webhook-id` header. */
  readonly message_id: string
  /** The body's length in bytes when it is kept in parts; null when it is in `payload`. */
  readonly parts_bytes: number | null
}

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
 * The statement text for `rows` messages, on SQLite (`?` parameters) or PostgreSQL (`$n`
 * parameters, and the alias a subquery in FROM needs before PostgreSQL 16); the parameters are
 * the organization, the type, the time, then each row's public id and body.
 */
const messagesStatement = (rows: number, pg: boolean) =>
  pg
    ? `INSERT INTO webhook_messages (public_id, organization_id, type, payload, created_at)
   SELECT column1, $1, $2, column2, $3 FROM (VALUES ${
      Array.from({ length: rows }, (_, i) => `($${4 + 2 * i}, $${5 + 2 * i})`).join(", ")
    }) AS v
   WHERE column1 IS NOT NULL RETURNING id, public_id`
    : `INSERT INTO webhook_messages (public_id, organization_id, type, payload, created_at)
   SELECT column1, ?, ?, column2, ? FROM (VALUES ${Array.from({ length: rows }, () => "(?, ?)").join(", ")})
   WHERE column1 IS NOT NULL RETURNING id, public_id`

/** What a delivery log shows of a delivery's message. */
export const LoggedMessageRow = Schema.Struct({ id: Schema.Number, public_id: Schema.String, type: WebhookType })
export type LoggedMessageRow = typeof LoggedMessageRow.Type

/** What a delivery log shows of a delivery's registration. */
export const LoggedRegistrationRow = Schema.Struct({
  id: Schema.Number,
  url: Schema.String,
  disabled_at: Schema.NullOr(Schema.String),
  deleted_at: Schema.NullOr(Schema.String)
})
export type LoggedRegistrationRow = typeof LoggedRegistrationRow.Type

/** A registration as the operator (admin CLI) and the dashboard see it (with its deliveries' counts: Registrations.ts). */
export const RegistrationSummaryRow = Schema.Struct({
  id: Schema.Number,
  public_id: Schema.String,
  url: Schema.String,
  type: WebhookType,
  created_at: Schema.String,
  disabled_at: Schema.NullOr(Schema.String)
})
export type RegistrationSummaryRow = typeof RegistrationSummaryRow.Type

export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("Convene/WebhooksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)
    const onPg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
    const messageStatements = new Map(MESSAGE_ROWS.map((rows) => [rows, messagesStatement(rows, onPg)]))
    /** A text column's value as UTF-8 bytes (a Buffer). */
    const asBytes = (column: string) => sql.literal(onPg ? `convert_to(${column}, 'UTF8')` : `CAST(${column} AS BLOB)`)

    const active = SqlSchema.findOne({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, url: Schema.String, type: WebhookType }),
      Result: RegistrationRow,
      execute: ({ organizationId, type, url }) =>
        sql`SELECT id, public_id, url, type, secret, disabled_at, deleted_at FROM webhooks
            WHERE organization_id = ${organizationId} AND url = ${url} AND type = ${type} AND deleted_at IS NULL`
    })

    const byRegistrationId = SqlSchema.findOne({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, publicId: Schema.String }),
      Result: RegistrationRow,
      execute: ({ organizationId, publicId }) =>
        sql`SELECT id, public_id, url, type, secret, disabled_at, deleted_at FROM webhooks
            WHERE organization_id = ${organizationId} AND public_id = ${publicId} AND deleted_at IS NULL`
    })

    const summaries = SqlSchema.findAll({
      Request: Schema.Number,
      Result: RegistrationSummaryRow,
      execute: (organizationId) =>
        sql`SELECT w.id, w.public_id, w.url, w.type, w.created_at, w.disabled_at
            FROM webhooks w WHERE w.organization_id = ${organizationId} AND w.deleted_at IS NULL ORDER BY w.id`
    })

    /** How many registrations (not deleted, disabled ones included) the organization has of a type. */
    const countOfType = (organizationId: OrganizationRowId, type: WebhookType) =>
      sql`SELECT count(*) AS n FROM webhooks WHERE organization_id = ${organizationId} AND type = ${type} AND deleted_at IS NULL`.pipe(
        Effect.map((rows) => Number(rows[0]!["n"]))
      )

    const insert = (row: { publicId: string; organizationId: OrganizationRowId; url: string; type: WebhookType; secret: string; at: string }) =>
      sql`INSERT INTO webhooks (public_id, organization_id, url, type, secret, created_at)
          VALUES (${row.publicId}, ${row.organizationId}, ${row.url}, ${row.type}, ${row.secret}, ${row.at})`

    const enable = (id: number) => sql`UPDATE webhooks SET disabled_at = NULL WHERE id = ${id}`

    const disable = (id: number, at: string) =>
      sql`UPDATE webhooks SET disabled_at = coalesce(disabled_at, ${at}) WHERE id = ${id}`

    const softDelete = (id: number, at: string) => sql`UPDATE webhooks SET deleted_at = ${at} WHERE id = ${id}`

    /**
     * The registrations a new notification fans out to, those existing (and enabled) right now, of
     * each of `types` in one statement (a guest-list write notifies `GuestList` and `EventPerson`).
     */
    const subscribersByType = (organizationId: OrganizationRowId, types: ReadonlyArray<WebhookType>) =>
      Effect.map(
        direct.unchecked.rows<{ id: number; type: WebhookType }>(
          sql`SELECT id, type FROM webhooks
              WHERE organization_id = ${organizationId} AND type IN ${sql.in(types)} AND deleted_at IS NULL AND disabled_at IS NULL`
        ),
        (rows) => {
          const byType = new Map<WebhookType, Array<number>>()
          for (const row of rows) {
            const ids = byType.get(row.type)
            if (ids === undefined) byType.set(row.type, [row.id])
            else ids.push(row.id)
          }
          return byType as ReadonlyMap<WebhookType, ReadonlyArray<number>>
        }
      )

    /** `subscribersByType` of one type. */
    const subscribers = (organizationId: OrganizationRowId, type: WebhookType) =>
      Effect.map(subscribersByType(organizationId, [type]), (byType) => byType.get(type) ?? [])

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
          const inserted = yield* direct.unchecked.rows<{ readonly id: number; readonly public_id: string }>(
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
      direct.unchecked.first<AttemptRow>(
        sql`SELECT w.id AS webhook_id, w.url, w.secret, m.id AS message_row, m.public_id AS message_id, m.payload_bytes AS parts_bytes
            FROM webhooks w JOIN webhook_messages m ON m.id = ${messageRow}
            WHERE w.id = ${webhookId}`
      )

    /** A message's body kept in `payload`, as UTF-8 bytes (a Buffer, outside the JS heap). */
    const payload = (messageRow: number) =>
      Effect.map(
        direct.unchecked.first<{ payload: Uint8Array }>(sql`SELECT ${asBytes("payload")} AS payload FROM webhook_messages WHERE id = ${messageRow}`),
        (row) => row?.payload ?? new Uint8Array(0)
      )

    /** Part `seq` of a message's body kept in parts, as UTF-8 bytes; undefined past the last. */
    const part = (messageRow: number, seq: number) =>
      Effect.map(
        direct.unchecked.first<{ part: Uint8Array }>(
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

    /** The registrations of the given rows (deleted ones included), for a delivery log. */
    const loggedRegistrations = SqlSchema.findAll({
      Request: Schema.Array(Schema.Number),
      Result: LoggedRegistrationRow,
      execute: (ids) => sql`SELECT id, url, disabled_at, deleted_at FROM webhooks WHERE id IN ${sql.in(ids)}`
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

    return {
      active,
      byRegistrationId,
      summaries,
      countOfType,
      insert,
      enable,
      disable,
      softDelete,
      subscribers,
      subscribersByType,
      insertMessages,
      insertPartedMessage,
      insertPart,
      endParts,
      attempt,
      payload,
      part,
      loggedMessages,
      loggedRegistrations,
      deleteMessages
    } as const
  })
}) {}
