/**
 * Webhook notifications into the transactional outbox (docs/integrators.md#notification-types). Notifications are written by
 * the same transaction as the change that causes them, one message fanned out to the registrations
 * existing at that moment: a delivery of channel `webhook` each (Outbox/OutboxRepo.ts); a change
 * that rolls back leaves none, and a committed one survives crashes. Writing wakes the dispatcher
 * (Outbox/Dispatcher.ts), so the first attempt follows the commit without a polling delay.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AppConfig } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import type { EventRow } from "../Events/EventsRepo.js"
import type { GuestListChange } from "../Guests/Changes.js"
import { historyOf } from "../Guests/GuestView.js"
import { OutboxRepo } from "../Outbox/OutboxRepo.js"
import { OutboxWakeups } from "../Outbox/Wakeups.js"
import { TEST_MESSAGE_PREFIX } from "./Domain.js"
import { eventBody, eventPersonBody, type GuestSnapshot, guestListBody, type WebhookType } from "./Payloads.js"
import { WebhooksRepo } from "./WebhooksRepo.js"

export class Outbox extends Effect.Service<Outbox>()("Convene/Outbox", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const deliveries = yield* OutboxRepo
    const wakeups = yield* OutboxWakeups
    const ids = yield* Ids
    const { webhooks } = yield* AppConfig
    const maxAttempts = 1 + webhooks.retrySchedule.length

    /** Stores one message per body for every current registration of `type` (inside the caller's transaction). */
    const enqueue = (organizationId: number, type: WebhookType, bodies: ReadonlyArray<unknown>) =>
      Effect.gen(function*() {
        if (bodies.length === 0) return
        const subscribers = yield* repo.subscribers(organizationId, type)
        if (subscribers.length === 0) return
        const now = yield* Clock.currentTimeMillis
        const at = new Date(now).toISOString()
        for (const body of bodies) {
          const messageId = yield* repo.insertMessage({
            publicId: `msg_${(yield* ids.uuid).replaceAll("-", "")}`,
            organizationId,
            type,
            payload: JSON.stringify(body),
            at
          })
          for (const webhookId of subscribers) {
            yield* deliveries.insert({
              publicId: yield* ids.uuid,
              channel: "webhook",
              organizationId,
              webhook: { messageId, webhookId },
              maxAttempts,
              dueAt: now,
              at
            })
          }
        }
        yield* wakeups.wake
      })

    /**
     * A test delivery (`POST /webhook/test`): one message with `body` for one registration only, its
     * id marked with `TEST_MESSAGE_PREFIX`; from there it is delivered, retried and logged like any
     * other. Answers the delivery's public id. Runs inside the caller's transaction.
     */
    const enqueueTest = (organizationId: number, webhookId: number, type: WebhookType, body: unknown) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const at = new Date(now).toISOString()
        const messageId = yield* repo.insertMessage({
          publicId: `${TEST_MESSAGE_PREFIX}${(yield* ids.uuid).replaceAll("-", "")}`,
          organizationId,
          type,
          payload: JSON.stringify(body),
          at
        })
        const publicId = yield* ids.uuid
        yield* deliveries.insert({
          publicId,
          channel: "webhook",
          organizationId,
          webhook: { messageId, webhookId },
          maxAttempts,
          dueAt: now,
          at
        })
        yield* wakeups.wake
        return publicId
      })

    const snapshotsOf = (change: GuestListChange) => {
      const snapshots = new Map<number, GuestSnapshot>()
      change.rows.forEach((row, i) => snapshots.set(row.gid, { row, guest: change.guests[i]!, history: historyOf(row) }))
      return snapshots
    }

    /** One `EventPerson` notification per guest whose rsvpStatus or attendanceStatus really changed. */
    const eventPersonsChanged = (organizationId: number, change: GuestListChange) => {
      const snapshots = snapshotsOf(change)
      return enqueue(
        organizationId,
        "EventPerson",
        change.statusChanges.flatMap((s) => {
          const snapshot = snapshots.get(s.guestId)
          return snapshot === undefined
            ? []
            : [eventPersonBody(webhooks.payloadVariant, change.event, snapshot, s.previousStatus, change.at)]
        })
      )
    }

    /**
     * A guest-list write: one `GuestList` notification with the affected guests, and the
     * `EventPerson` notifications of the guests whose status changed.
     */
    const guestListChanged = (organizationId: number, change: GuestListChange) =>
      Effect.gen(function*() {
        if (change.affected.length === 0) return
        const snapshots = snapshotsOf(change)
        const affected = change.affected.map((gid) => snapshots.get(gid) ?? null)
        yield* enqueue(organizationId, "GuestList", [
          guestListBody(webhooks.payloadVariant, change.event, affected, {
            added: change.added,
            removed: change.removed,
            updated: change.updated
          }, change.at)
        ])
        yield* eventPersonsChanged(organizationId, change)
      })

    const eventUpdated = (organizationId: number, event: EventRow, updatedFields: ReadonlyArray<string>, at: string) =>
      updatedFields.length === 0 ? Effect.void : enqueue(organizationId, "Event", [eventBody(event, updatedFields, at)])

    return { enqueue, enqueueTest, guestListChanged, eventPersonsChanged, eventUpdated, wake: wakeups.wake, maxAttempts } as const
  }),
  dependencies: [WebhooksRepo.Default, OutboxRepo.Default, OutboxWakeups.Default, Ids.Default]
}) {}
