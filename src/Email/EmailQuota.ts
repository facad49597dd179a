/**
 * The daily email quota (CONTRACT §18, docs/integrators.md#email-invitations): an organization
 * sends at most `EMAIL_DAILY_LIMIT` emails in any 24 hours, whatever they are (invitations, and
 * every other email the service sends). Each email counts from when it is queued, sent or not.
 *
 * Counted in the database, not in memory, so the count is exact across instances: `take` counts the
 * organization's emails of the last 24 hours and the caller then inserts its own, in one write
 * transaction (EmailOutbox.batch). That is safe because write transactions run one at a time on
 * both engines: SQLite's single writer (BEGIN IMMEDIATE), and on PostgreSQL the one global advisory
 * write lock every write transaction takes first (Db/Postgres.ts `WRITE_LOCK`), so no other
 * instance's emails can be queued between the count and the insert.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { AppConfig } from "../Config/AppConfig.js"
import { Issue, RateLimited } from "../Domain/Errors.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"
import { Deliveries } from "../Outbox/Deliveries.js"

/** The quota's rolling window. */
export const QUOTA_WINDOW = Duration.hours(24)
const windowMillis = Duration.toMillis(QUOTA_WINDOW)

/** An organization's quota as it stands (the dashboard's "812 of 1,000 emails left today"). */
export interface QuotaState {
  readonly limit: number
  /** Emails queued in the last 24 hours. */
  readonly used: number
  readonly left: number
  /** When the oldest of them leaves the window and one more email may go (ms since the epoch); null when none counts. */
  readonly nextFreeAt: number | null
}

export class EmailQuota extends Effect.Service<EmailQuota>()("Convene/EmailQuota", {
  effect: Effect.gen(function*() {
    const deliveries = yield* Deliveries
    const { emailDailyLimit: limit } = yield* AppConfig

    const state = Effect.fn("EmailQuota.state")(function*(organizationId: OrganizationRowId) {
      const now = yield* Clock.currentTimeMillis
      const since = new Date(now - windowMillis).toISOString()
      const used = yield* deliveries.queuedSince(organizationId, "email", since)
      const oldest = used === 0 ? undefined : yield* deliveries.nthQueuedSince(organizationId, "email", since, 1)
      return {
        limit,
        used,
        left: Math.max(0, limit - used),
        nextFreeAt: oldest === undefined ? null : Date.parse(oldest) + windowMillis
      } satisfies QuotaState
    })

    /**
     * Takes `count` emails from the organization's quota, or fails with 429 `RateLimited` and takes
     * nothing: its `retryAfter` is the seconds until enough of the last 24 hours' emails have left
     * the window for all `count` to go. A request for more emails than the limit itself can never
     * go: it is refused the same way, with the whole window as `retryAfter` and an issue that says
     * to send in parts.
     *
     * Must run in the write transaction that then queues the emails (see the top); EmailOutbox.batch
     * is the one caller.
     */
    const take = Effect.fn("EmailQuota.take")(function*(organizationId: OrganizationRowId, count: number) {
      if (count === 0) return
      const now = yield* Clock.currentTimeMillis
      const since = new Date(now - windowMillis).toISOString()
      const used = yield* deliveries.queuedSince(organizationId, "email", since)
      if (used + count <= limit) return
      if (count > limit) {
        const seconds = Math.ceil(windowMillis / 1000)
        return yield* new RateLimited({
          message: `Too Many Requests. Retry after ${seconds} seconds.`,
          retryAfter: seconds,
          issues: [
            new Issue({
              path: "",
              message: `needs ${count} emails, more than this organization may send in 24 hours (EMAIL_DAILY_LIMIT, ${limit}): send in parts`
            })
          ]
        })
      }
      // the emails that must leave the window first: the oldest `used + count - limit`
      const freeing = yield* deliveries.nthQueuedSince(organizationId, "email", since, used + count - limit)
      const freeAt = freeing === undefined ? now : Date.parse(freeing) + windowMillis
      return yield* RateLimited.after(Math.max(1, Math.ceil((freeAt - now) / 1000)))
    })

    return { limit, state, take } as const
  }),
  dependencies: [Deliveries.Default]
}) {}
