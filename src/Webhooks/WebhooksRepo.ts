/**
 * Webhook registrations and their messages (the messages' statements: WebhookMessagesRepo.ts),
 * as one service. The deliveries of the messages are the outbox's (Outbox/Deliveries.ts), which
 * keeps each one's registration and message rows and never reads these tables; nor are the
 * outbox's read here.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/DirectSql.js"
import { WebhookType } from "./Domain.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"
import { webhookMessageStatements } from "./WebhookMessagesRepo.js"

export { AttemptRow, LoggedMessageRow, type NewMessage } from "./WebhookMessagesRepo.js"

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

const Subscriber = Schema.Struct({ id: Schema.Number, type: WebhookType })

export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("Convene/WebhooksRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql

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
        direct.rows(
          Subscriber,
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

    /** The registrations of the given rows (deleted ones included), for a delivery log. */
    const loggedRegistrations = SqlSchema.findAll({
      Request: Schema.Array(Schema.Number),
      Result: LoggedRegistrationRow,
      execute: (ids) => sql`SELECT id, url, disabled_at, deleted_at FROM webhooks WHERE id IN ${sql.in(ids)}`
    })

    return {
      ...webhookMessageStatements(sql, direct),
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
      loggedRegistrations
    } as const
  })
}) {}
