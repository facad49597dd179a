/**
 * The webhook delivery log (docs/integrators.md#the-delivery-log): the outbox's deliveries of
 * channel `webhook` (Outbox/Deliveries.ts), each shown with its message and registration (read
 * here, by their rows), and a retry on request.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Caller } from "../Domain/Caller.js"
import { Conflict, NotFound } from "../Domain/Errors.js"
import type { DeliveryStatus } from "../Outbox/Channel.js"
import { Deliveries, type LoggedDelivery } from "../Outbox/Deliveries.js"
import { OutboxWakeups } from "../Outbox/Wakeups.js"
import { type Delivery, TEST_MESSAGE_PREFIX } from "./Domain.js"
import { type LoggedMessageRow, type LoggedRegistrationRow, WebhooksRepo } from "./WebhooksRepo.js"

/** A delivery as the log shows it (`GET /webhook/deliveries`, the dashboard). */
const deliveryView = (
  row: LoggedDelivery,
  message: LoggedMessageRow,
  registration: LoggedRegistrationRow
): Delivery => ({
  deliveryId: row.public_id,
  webhookId: message.public_id,
  type: message.type,
  webhook: registration.url,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  lastResponse: row.last_response,
  createdAt: row.created_at,
  nextAttemptAt: row.status === "pending" && row.next_attempt_at !== null ? new Date(row.next_attempt_at).toISOString() : null,
  registration: registration.deleted_at !== null ? "deleted" : registration.disabled_at !== null ? "disabled" : "active",
  test: message.public_id.startsWith(TEST_MESSAGE_PREFIX)
})

export class DeliveryLog extends Effect.Service<DeliveryLog>()("Convene/DeliveryLog", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const outbox = yield* Deliveries
    const wakeups = yield* OutboxWakeups

    /** The log's entries of the given deliveries, in their order, with their messages and registrations. */
    const views = (rows: ReadonlyArray<LoggedDelivery>) =>
      Effect.gen(function*() {
        if (rows.length === 0) return []
        const rowsOf = (pick: (row: LoggedDelivery) => number | null) => [...new Set(rows.map((row) => pick(row)!))]
        const [messages, registrations] = yield* Effect.all([
          repo.loggedMessages(rowsOf((row) => row.message_row)),
          repo.loggedRegistrations(rowsOf((row) => row.destination_row))
        ])
        const messageOf = new Map(messages.map((m) => [m.id, m]))
        const registrationOf = new Map(registrations.map((r) => [r.id, r]))
        return rows.map((row) => deliveryView(row, messageOf.get(row.message_row!)!, registrationOf.get(row.destination_row!)!))
      })

    /** One delivery of the caller's organization, as the log shows it; another's is unknown. */
    const delivery = Effect.fn("DeliveryLog.delivery")(function*(caller: Caller, deliveryId: string) {
      const row = yield* outbox.logged({ organizationId: caller.organizationId, channel: "webhook", publicId: deliveryId }).pipe(
        Effect.orDie
      )
      if (Option.isNone(row)) return yield* new NotFound({ message: `Delivery ${deliveryId} not found` })
      const [view] = yield* views([row.value]).pipe(Effect.orDie)
      return view!
    })

    const deliveries = Effect.fn("DeliveryLog.deliveries")(function*(caller: Caller, params: {
      readonly status?: DeliveryStatus | undefined
      readonly limit?: number | undefined
      readonly skip?: number | undefined
    }) {
      const limit = params.limit ?? 50
      const skip = params.skip ?? 0
      const status = params.status ?? null
      const organizationId = caller.organizationId
      const [rows, total] = yield* Effect.all([
        Effect.flatMap(outbox.log({ organizationId, channel: "webhook", status, limit, skip }), views),
        outbox.count(organizationId, "webhook", status)
      ]).pipe(Effect.orDie)
      return { deliveries: rows, total, limit, skip }
    })

    /** One more attempt, now, for a failed or cancelled delivery. */
    const retry = Effect.fn("DeliveryLog.retry")(function*(caller: Caller, deliveryId: string) {
      const now = yield* Clock.currentTimeMillis
      const row = yield* outbox.byPublicId({ organizationId: caller.organizationId, channel: "webhook", publicId: deliveryId }).pipe(
        Effect.orDie
      )
      if (Option.isNone(row)) return yield* new NotFound({ message: `Delivery ${deliveryId} not found` })
      const found = row.value
      if (found.status !== "failed" && found.status !== "cancelled") {
        return yield* new Conflict({ message: `The delivery is ${found.status}; only failed or cancelled deliveries are retried` })
      }
      yield* outbox.retry(found.id, now, new Date(now).toISOString()).pipe(Effect.orDie)
      yield* wakeups.wake
      return { success: true as const }
    })

    return { delivery, deliveries, retry } as const
  }),
  dependencies: [WebhooksRepo.Default, Deliveries.Default, OutboxWakeups.Default]
}) {}
