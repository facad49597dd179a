/**
 * Emails into the transactional outbox (docs/integrators.md#email-invitations, with the webhooks' guarantees): each email is a
 * delivery of channel `email`, written by the caller's transaction with the message as it is then,
 * and sent, retried, leased and released by the same dispatcher as webhooks. Every email the
 * service sends is queued here, through the organization's daily quota (EmailQuota.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AppConfig } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import { Deliveries } from "../Outbox/Deliveries.js"
import { maxAttemptsOf } from "../Outbox/Retry.js"
import { OutboxWakeups } from "../Outbox/Wakeups.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { EmailQuota } from "./EmailQuota.js"
import { EmailsRepo } from "./EmailsRepo.js"
import type { OutgoingEmail } from "./Mailer.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import type { SqlError } from "@effect/sql/SqlError"

export class EmailOutbox extends Effect.Service<EmailOutbox>()("Convene/EmailOutbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const quota = yield* EmailQuota
    const deliveries = yield* Deliveries
    const emails = yield* EmailsRepo
    const wakeups = yield* OutboxWakeups
    const ids = yield* Ids
    const origin = yield* PublicOrigin
    const { webhooks } = yield* AppConfig
    const maxAttempts = maxAttemptsOf(webhooks.retrySchedule)
    const host = new URL(origin.baseUrl).hostname

    /** Queues one email (inside the batch's transaction); answers its delivery's row id. */
    const insert = (organizationId: OrganizationRowId, email: Omit<OutgoingEmail, "messageId">) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const at = new Date(now).toISOString()
        const publicId = yield* ids.uuid
        const deliveryId = yield* deliveries.insert({ publicId, channel: "email", organizationId, maxAttempts, dueAt: now, at })
        yield* emails.insert({ deliveryId, messageId: `${publicId}@${host}`, ...email })
        yield* wakeups.wake
        return deliveryId
      })

    /**
     * Queues up to `count` emails of one organization, all or none: takes `count` from its daily
     * quota (or fails with 429 `RateLimited`, queueing nothing), then runs `queue`, which is given
     * the function that queues one email and answers its delivery's row id. One write transaction
     * holds the count and the emails (the caller's, when it runs in one: then all of it commits or
     * none). The dispatcher is woken: it finds the emails once the transaction has committed.
     *
     * A request that sends emails (invitations) answers the 429 to its caller. A system email
     * (a confirmation, a reminder, a status email) past the quota is not sent: its sender catches
     * `RateLimited` and goes on without it; the dashboard says the limit is reached.
     */
    const batch = <A, E, R>(
      organizationId: OrganizationRowId,
      count: number,
      queue: (enqueue: (email: Omit<OutgoingEmail, "messageId">) => Effect.Effect<number, SqlError>) => Effect.Effect<A, E, R>
    ) => {
      let left = count
      const enqueue = (email: Omit<OutgoingEmail, "messageId">) =>
        left-- > 0 ? insert(organizationId, email) : Effect.dieMessage(`EmailOutbox.batch: more than the ${count} emails taken from the quota`)
      return sql.withTransaction(Effect.zipRight(quota.take(organizationId, count), Effect.suspend(() => queue(enqueue))))
    }

    return { batch } as const
  }),
  dependencies: [EmailQuota.Default, Deliveries.Default, EmailsRepo.Default, OutboxWakeups.Default, Ids.Default, PublicOrigin.Default]
}) {}
