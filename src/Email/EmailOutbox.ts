/**
 * Emails into the transactional outbox (docs/integrators.md#email-invitations, with the webhooks' guarantees): each email is a
 * delivery of channel `email`, written by the caller's transaction with the message as it is then,
 * and sent, retried, leased and released by the same dispatcher as webhooks.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AppConfig } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import { OutboxRepo } from "../Outbox/OutboxRepo.js"
import { maxAttemptsOf } from "../Outbox/Retry.js"
import { OutboxWakeups } from "../Outbox/Wakeups.js"
import { PublicOrigin } from "../PublicOrigin.js"
import { EmailsRepo } from "./EmailsRepo.js"
import type { OutgoingEmail } from "./Mailer.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

export class EmailOutbox extends Effect.Service<EmailOutbox>()("Convene/EmailOutbox", {
  effect: Effect.gen(function*() {
    const deliveries = yield* OutboxRepo
    const emails = yield* EmailsRepo
    const wakeups = yield* OutboxWakeups
    const ids = yield* Ids
    const origin = yield* PublicOrigin
    const { webhooks } = yield* AppConfig
    const maxAttempts = maxAttemptsOf(webhooks.retrySchedule)
    const host = new URL(origin.baseUrl).hostname

    /**
     * Queues one email (inside the caller's transaction); answers its delivery's row id. The
     * dispatcher is woken: it finds the email once the transaction has committed.
     */
    const enqueue = (organizationId: OrganizationRowId, email: Omit<OutgoingEmail, "messageId">) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const at = new Date(now).toISOString()
        const publicId = yield* ids.uuid
        const deliveryId = yield* deliveries.insert({ publicId, channel: "email", organizationId, maxAttempts, dueAt: now, at })
        yield* emails.insert({ deliveryId, messageId: `${publicId}@${host}`, ...email })
        yield* wakeups.wake
        return deliveryId
      })

    return { enqueue } as const
  }),
  dependencies: [OutboxRepo.Default, EmailsRepo.Default, OutboxWakeups.Default, Ids.Default, PublicOrigin.Default]
}) {}
