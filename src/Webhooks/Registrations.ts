/** Webhook registrations (docs/integrators.md#registering-a-webhook) and the delivery log (docs/integrators.md#the-delivery-log). */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "../Config/AppConfig.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest, NotFound } from "../Domain/Errors.js"
import { OutboxRepo } from "../Outbox/OutboxRepo.js"
import { OutboxWakeups } from "../Outbox/Wakeups.js"
import { onUniqueViolation, orDieOnStorage } from "../Db/SqlErrors.js"
import { refusalOf } from "./Destinations.js"
import { type Delivery, type Registration, TEST_MESSAGE_PREFIX } from "./Domain.js"
import { Outbox } from "./Outbox.js"
import { sampleEventPerson, sampleOf } from "./Sample.js"
import { SECRET_PREFIX } from "./Signing.js"
import { type DeliveryListRow, WebhooksRepo } from "./WebhooksRepo.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

/** A registration as the operator (admin CLI) and the dashboard see it. */
export interface RegistrationSummary {
  readonly id: string
  readonly url: string
  readonly type: Registration["type"]
  readonly createdAt: string
  readonly state: "active" | "disabled"
  /** Its deliveries still owed. */
  readonly pending: number
  /** Its deliveries given up. */
  readonly failed: number
}

/** A delivery as the log shows it (`GET /webhook/deliveries`, the dashboard). */
const deliveryView = (row: DeliveryListRow): Delivery => ({
  deliveryId: row.public_id,
  webhookId: row.message_id,
  type: row.type,
  webhook: row.url,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  lastResponse: row.last_response,
  createdAt: row.created_at,
  nextAttemptAt: row.status === "pending" && row.next_attempt_at !== null ? new Date(row.next_attempt_at).toISOString() : null,
  registration: row.deleted_at !== null ? "deleted" : row.disabled_at !== null ? "disabled" : "active",
  test: row.message_id.startsWith(TEST_MESSAGE_PREFIX)
})

/**
 * Registrations of one type per organization: each notification is written once for each of them,
 * in the transaction of the change that makes it, so their number multiplies every write's work.
 */
export const MAX_REGISTRATIONS_PER_TYPE = 25

export class Registrations extends Effect.Service<Registrations>()("Convene/Registrations", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* WebhooksRepo
    const outboxRepo = yield* OutboxRepo
    const outbox = yield* Outbox
    const wakeups = yield* OutboxWakeups
    const ids = yield* Ids
    const { webhooks } = yield* AppConfig

    /** Registers (or finds) the URL and type; registering twice is one registration with one secret. */
    const register = Effect.fn("Registrations.register")(function*(caller: Caller, input: Registration) {
      const refusal = refusalOf(input.webhook, webhooks.allowPrivateDestinations)
      if (refusal !== undefined) return yield* InvalidRequest.at("webhook", refusal)
      const secret = `${SECRET_PREFIX}${Buffer.from(yield* ids.secret(32), "base64url").toString("base64")}`
      const publicId = yield* ids.uuid
      const at = yield* nowIso
      return yield* Effect.gen(function*() {
        const key = { organizationId: caller.organizationId, url: input.webhook, type: input.type }
        const existing = yield* repo.active(key)
        if (Option.isSome(existing)) {
          if (existing.value.disabled_at !== null) yield* repo.enable(existing.value.id)
          return { success: true as const, secret: existing.value.secret }
        }
        if ((yield* repo.countOfType(caller.organizationId, input.type)) >= MAX_REGISTRATIONS_PER_TYPE) {
          return yield* new Conflict({
            message: `An organization has at most ${MAX_REGISTRATIONS_PER_TYPE} webhooks of one type: delete one first`
          })
        }
        yield* repo.insert({ ...key, publicId, secret, at })
        return { success: true as const, secret }
      }).pipe(sql.withTransaction, onUniqueViolation(() => new Conflict({ message: "Registered concurrently; retry" })))
    })

    /** Soft-deletes a registration and cancels its pending deliveries; answers how many were cancelled. */
    const softDelete = (webhookId: number, at: string) =>
      Effect.gen(function*() {
        const cancelled = yield* repo.countPending(webhookId)
        yield* repo.softDelete(webhookId, at)
        yield* outboxRepo.cancelPendingOfWebhook(webhookId, "registration deleted", at)
        return cancelled
      })

    /** Deletes a registration and cancels its pending deliveries. */
    const unregister = Effect.fn("Registrations.unregister")(function*(caller: Caller, input: Registration) {
      const at = yield* nowIso
      return yield* Effect.gen(function*() {
        const existing = yield* repo.active({ organizationId: caller.organizationId, url: input.webhook, type: input.type })
        if (Option.isNone(existing)) return yield* new NotFound({ message: "No such webhook registration" })
        yield* softDelete(existing.value.id, at)
        return { success: true as const }
      }).pipe(sql.withTransaction, orDieOnStorage)
    })

    /** An organization's registrations, oldest first, for the operator (admin CLI) and the dashboard. */
    const summaries = Effect.fn("Registrations.summaries")(function*(organizationId: OrganizationRowId) {
      const rows = yield* repo.summaries(organizationId).pipe(Effect.orDie)
      return rows.map((row): RegistrationSummary => ({
        id: row.public_id,
        url: row.url,
        type: row.type,
        createdAt: row.created_at,
        state: row.disabled_at === null ? "active" : "disabled",
        pending: row.pending,
        failed: row.failed
      }))
    })

    /** A registration of the organization by its id, in a transaction with `use`; another's is unknown. */
    const withRegistration = <A>(
      organizationId: OrganizationRowId,
      registrationId: string,
      use: (webhookId: number, at: string) => Effect.Effect<A, SqlError>
    ) =>
      Effect.gen(function*() {
        const at = yield* nowIso
        const found = yield* repo.byRegistrationId({ organizationId, publicId: registrationId })
        if (Option.isNone(found)) return yield* new NotFound({ message: `Webhook registration ${registrationId} not found` })
        return yield* use(found.value.id, at)
      }).pipe(sql.withTransaction, orDieOnStorage)

    /**
     * The operator's way out of a stuck registration (admin CLI): disabling stops deliveries to it
     * and cancels those pending, as a 410 Gone answer does; enabling lets new notifications reach it
     * again. Answers how many deliveries were cancelled.
     */
    const setState = Effect.fn("Registrations.setState")(function*(
      organizationId: OrganizationRowId,
      registrationId: string,
      state: "active" | "disabled"
    ) {
      return yield* withRegistration(organizationId, registrationId, (webhookId, at) =>
        state === "active"
          ? Effect.as(repo.enable(webhookId), 0)
          : Effect.gen(function*() {
            const cancelled = yield* repo.countPending(webhookId)
            yield* repo.disable(webhookId, at)
            yield* outboxRepo.cancelPendingOfWebhook(webhookId, "registration disabled by the operator", at)
            return cancelled
          }))
    })

    /** Deletes a registration by its id, as `DELETE /webhook` does (admin CLI); answers how many deliveries were cancelled. */
    const remove = Effect.fn("Registrations.remove")(function*(organizationId: OrganizationRowId, registrationId: string) {
      return yield* withRegistration(organizationId, registrationId, softDelete)
    })

    /** `contacts` is an EventPerson body: in the records variant that body is itself the array of one guest. */
    const sample = Effect.sync(() => {
      const body = sampleEventPerson(webhooks.payloadVariant)
      return { contacts: Array.isArray(body) ? body : [body] }
    })

    /** The signing secret of a registration of the caller's organization; another's is unknown. */
    const secret = Effect.fn("Registrations.secret")(function*(caller: Caller, registrationId: string) {
      const found = yield* repo.byRegistrationId({ organizationId: caller.organizationId, publicId: registrationId }).pipe(Effect.orDie)
      if (Option.isNone(found)) return yield* new NotFound({ message: `Webhook registration ${registrationId} not found` })
      return found.value.secret
    })

    /**
     * A test delivery (`POST /webhook/test`): a sample notification of the registration's type, in
     * the configured variant, sent to that registration alone through the outbox, so it is signed,
     * retried, bounded and logged like any other (marked `test`). Only an active registration of the
     * caller's organization gets one; a disabled one is enabled again by registering it again.
     */
    const sendTest = Effect.fn("Registrations.sendTest")(function*(caller: Caller, input: Registration) {
      return yield* Effect.gen(function*() {
        const found = yield* repo.active({ organizationId: caller.organizationId, url: input.webhook, type: input.type })
        if (Option.isNone(found)) {
          return yield* new NotFound({ message: `No webhook registration of ${input.type} for ${input.webhook}` })
        }
        if (found.value.disabled_at !== null) {
          return yield* new NotFound({
            message: `The ${input.type} registration for ${input.webhook} is disabled; register it again to enable it`
          })
        }
        const body = sampleOf(input.type, webhooks.payloadVariant)
        const deliveryId = yield* outbox.enqueueTest(caller.organizationId, found.value.id, input.type, body)
        return { success: true as const, deliveryId }
      }).pipe(sql.withTransaction, orDieOnStorage)
    })

    /** One delivery of the caller's organization, as the log shows it; another's is unknown. */
    const delivery = Effect.fn("Registrations.delivery")(function*(caller: Caller, deliveryId: string) {
      const row = yield* repo.one({ organizationId: caller.organizationId, publicId: deliveryId }).pipe(Effect.orDie)
      if (Option.isNone(row)) return yield* new NotFound({ message: `Delivery ${deliveryId} not found` })
      return deliveryView(row.value)
    })

    const deliveries = Effect.fn("Registrations.deliveries")(function*(caller: Caller, params: {
      readonly status?: "pending" | "delivered" | "failed" | "cancelled" | undefined
      readonly limit?: number | undefined
      readonly skip?: number | undefined
    }) {
      const limit = params.limit ?? 50
      const skip = params.skip ?? 0
      const status = params.status ?? null
      const [rows, total] = yield* Effect.all([
        repo.list({ organizationId: caller.organizationId, status, limit, skip }),
        repo.count(caller.organizationId, status)
      ]).pipe(Effect.orDie)
      return { deliveries: rows.map(deliveryView), total, limit, skip }
    })

    /** One more attempt, now, for a failed or cancelled delivery. */
    const retry = Effect.fn("Registrations.retry")(function*(caller: Caller, deliveryId: string) {
      const now = yield* Clock.currentTimeMillis
      const found = yield* repo.byPublicId(caller.organizationId, deliveryId).pipe(Effect.orDie)
      if (found === undefined) return yield* new NotFound({ message: `Delivery ${deliveryId} not found` })
      if (found.status !== "failed" && found.status !== "cancelled") {
        return yield* new Conflict({ message: `The delivery is ${found.status}; only failed or cancelled deliveries are retried` })
      }
      yield* outboxRepo.retry(found.id, now, new Date(now).toISOString()).pipe(Effect.orDie)
      yield* wakeups.wake
      return { success: true as const }
    })

    return { register, unregister, summaries, setState, remove, sample, secret, sendTest, delivery, deliveries, retry } as const
  }),
  dependencies: [WebhooksRepo.Default, OutboxRepo.Default, Outbox.Default, OutboxWakeups.Default, Ids.Default]
}) {}
