/**
 * Webhook registrations, their messages, and the delivery log: the webhook rows of the outbox
 * (`outbox_deliveries` of channel `webhook`, written by OutboxRepo) with what they carry.
 *
 * A message's body is in `payload`, or, when it is large, in `webhook_message_parts` (migration
 * 0016): written part by part as it is built, and read part by part when it is sent.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/DirectSql.js"
import { DeliveryStatus, WebhookType } from "./Domain.js"
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
  readonly id: number
  readonly status: string
  readonly attempts: number
  readonly max_attempts: number
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
   WHERE column1 IS NOT NULL`
    : `INSERT INTO webhook_messages (public_id, organization_id, type, payload, created_at)
   SELECT column1, ?, ?, column2, ? FROM (VALUES ${Array.from({ length: rows }, () => "(?, ?)").join(", ")})
   WHERE column1 IS NOT NULL`

export const DeliveryListRow = Schema.Struct({
  public_id: Schema.String,
  message_id: Schema.String,
  type: WebhookType,
  url: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Number,
  last_status_code: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  last_response: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  next_attempt_at: Schema.NullOr(Schema.Number),
  disabled_at: Schema.NullOr(Schema.String),
  deleted_at: Schema.NullOr(Schema.String)
})
export type DeliveryListRow = typeof DeliveryListRow.Type

/** A registration as the operator (admin CLI) and the dashboard see it, with its deliveries still owed and given up. */
export const RegistrationSummaryRow = Schema.Struct({
  public_id: Schema.String,
  url: Schema.String,
  type: WebhookType,
  created_at: Schema.String,
  disabled_at: Schema.NullOr(Schema.String),
  pending: Schema.Number,
  failed: Schema.Number
})
export type RegistrationSummaryRow = typeof RegistrationSummaryRow.Type

export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("Convene/WebhooksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
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
        sql`SELECT w.public_id, w.url, w.type, w.created_at, w.disabled_at,
              (SELECT count(*) FROM outbox_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending') AS pending,
              (SELECT count(*) FROM outbox_deliveries d WHERE d.webhook_id = w.id AND d.status = 'failed') AS failed
            FROM webhooks w WHERE w.organization_id = ${organizationId} AND w.deleted_at IS NULL ORDER BY w.id`
    })

    /** How many registrations (not deleted, disabled ones included) the organization has of a type. */
    const countOfType = (organizationId: OrganizationRowId, type: WebhookType) =>
      sql`SELECT count(*) AS n FROM webhooks WHERE organization_id = ${organizationId} AND type = ${type} AND deleted_at IS NULL`.pipe(
        Effect.map((rows) => Number(rows[0]!["n"]))
      )

    const countPending = (webhookId: number) =>
      sql`SELECT count(*) AS n FROM outbox_deliveries WHERE webhook_id = ${webhookId} AND status = 'pending'`.pipe(
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
        direct.rows<{ id: number; type: WebhookType }>(
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
     * 64 messages, bodies bound as parameters). Runs in the caller's transaction.
     */
    const insertMessages = (organizationId: OrganizationRowId, type: WebhookType, at: string, messages: ReadonlyArray<NewMessage>) =>
      Effect.gen(function*() {
        for (let start = 0; start < messages.length;) {
          const rows = MESSAGE_ROWS.find((n) => n >= messages.length - start) ?? MOST_MESSAGE_ROWS
          const params: Array<string | number | null> = [organizationId, type, at]
          for (let i = start; i < start + rows; i++) {
            const message = messages[i]
            params.push(message?.publicId ?? null, message?.payload ?? null)
          }
          yield* direct.run(sql.unsafe(messageStatements.get(rows)!, params))
          start += rows
        }
      })

    /** A large message, its body to come in parts (`insertPart`, then `endParts`); answers its row id. */
    const insertPartedMessage = (row: { publicId: string; organizationId: OrganizationRowId; type: WebhookType; at: string }) =>
      direct.insert(sql`INSERT INTO webhook_messages (public_id, organization_id, type, payload, payload_bytes, created_at)
          VALUES (${row.publicId}, ${row.organizationId}, ${row.type}, '', 0, ${row.at}) RETURNING id`)

    const insertPart = (messageRow: number, seq: number, part: string) =>
      direct.run(sql`INSERT INTO webhook_message_parts (message_id, seq, part) VALUES (${messageRow}, ${seq}, ${part})`)

    const endParts = (messageRow: number, bytes: number) =>
      direct.run(sql`UPDATE webhook_messages SET payload_bytes = ${bytes} WHERE id = ${messageRow}`)

    const attempt = (id: number) =>
      direct.first<AttemptRow>(
        sql`SELECT d.id, d.status, d.attempts, d.max_attempts, d.webhook_id, w.url, w.secret,
              m.id AS message_row, m.public_id AS message_id, m.payload_bytes AS parts_bytes
            FROM outbox_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_messages m ON m.id = d.message_id
            WHERE d.id = ${id}`
      )

    /** A message's body kept in `payload`, as UTF-8 bytes (a Buffer, outside the JS heap). */
    const payload = (messageRow: number) =>
      Effect.map(
        direct.first<{ payload: Uint8Array }>(sql`SELECT ${asBytes("payload")} AS payload FROM webhook_messages WHERE id = ${messageRow}`),
        (row) => row?.payload ?? new Uint8Array(0)
      )

    /** Part `seq` of a message's body kept in parts, as UTF-8 bytes; undefined past the last. */
    const part = (messageRow: number, seq: number) =>
      Effect.map(
        direct.first<{ part: Uint8Array }>(
          sql`SELECT ${asBytes("part")} AS part FROM webhook_message_parts WHERE message_id = ${messageRow} AND seq = ${seq}`
        ),
        (row) => row?.part
      )

    const deliveryColumns = sql.literal(`d.public_id, m.public_id AS message_id, m.type, w.url, d.status, d.attempts,
      d.last_status_code, d.last_error, d.last_response, d.created_at, d.next_attempt_at, w.disabled_at, w.deleted_at`)

    const list = SqlSchema.findAll({
      Request: Schema.Struct({
        organizationId: rowIdColumn.organization,
        status: Schema.NullOr(DeliveryStatus),
        limit: Schema.Number,
        skip: Schema.Number
      }),
      Result: DeliveryListRow,
      execute: ({ limit, organizationId, skip, status }) =>
        sql`SELECT ${deliveryColumns}
            FROM outbox_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_messages m ON m.id = d.message_id
            WHERE d.organization_id = ${organizationId} AND d.channel = 'webhook' ${status === null ? sql.literal("") : sql`AND d.status = ${status}`}
            ORDER BY d.id DESC LIMIT ${limit} OFFSET ${skip}`
    })

    /** One delivery of the organization, as the log lists it. */
    const one = SqlSchema.findOne({
      Request: Schema.Struct({ organizationId: rowIdColumn.organization, publicId: Schema.String }),
      Result: DeliveryListRow,
      execute: ({ organizationId, publicId }) =>
        sql`SELECT ${deliveryColumns}
            FROM outbox_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_messages m ON m.id = d.message_id
            WHERE d.organization_id = ${organizationId} AND d.channel = 'webhook' AND d.public_id = ${publicId}`
    })

    const count = (organizationId: OrganizationRowId, status: typeof DeliveryStatus.Type | null) =>
      sql`SELECT count(*) AS n FROM outbox_deliveries
          WHERE organization_id = ${organizationId} AND channel = 'webhook' ${status === null ? sql.literal("") : sql`AND status = ${status}`}`.pipe(
        Effect.map((rows) => Number(rows[0]!["n"]))
      )

    const byPublicId = (organizationId: OrganizationRowId, publicId: string) =>
      sql`SELECT id, status FROM outbox_deliveries
          WHERE organization_id = ${organizationId} AND channel = 'webhook' AND public_id = ${publicId}`.pipe(
        Effect.map((rows) => (rows.length === 0 ? undefined : { id: Number(rows[0]!["id"]), status: String(rows[0]!["status"]) }))
      )

    return {
      active,
      byRegistrationId,
      summaries,
      countOfType,
      countPending,
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
      list,
      one,
      count,
      byPublicId
    } as const
  })
}) {}
