/**
 * The retry policy of every channel (webhooks and emails alike): a delivery gets 1 + schedule length
 * attempts; after a failed one comes another after the next delay of `WEBHOOK_RETRY_SCHEDULE` with
 * ±10% jitter, or `failed` once the attempts run out or when the failure is permanent (a 410 Gone,
 * an SMTP 5xx).
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"

/** The attempts a delivery gets: a first one, then one after each delay of the schedule. */
export const maxAttemptsOf = (schedule: ReadonlyArray<Duration.Duration>) => 1 + schedule.length

export type NextStep =
  | { readonly status: "failed"; readonly nextAttemptAt: null }
  | { readonly status: "pending"; readonly nextAttemptAt: number }

/** What follows a failed attempt of `row`: its next attempt's time, or `failed`. */
export const afterFailure = (
  row: { readonly attempts: number; readonly max_attempts: number },
  schedule: ReadonlyArray<Duration.Duration>,
  permanent: boolean
): Effect.Effect<NextStep> =>
  Effect.gen(function*() {
    if (permanent || row.attempts + 1 >= row.max_attempts) return { status: "failed", nextAttemptAt: null } as const
    const delay = schedule[Math.min(row.attempts, schedule.length - 1)]!
    const jitter = yield* Random.nextRange(0.9, 1.1)
    const now = yield* Clock.currentTimeMillis
    return { status: "pending", nextAttemptAt: now + Math.round(Duration.toMillis(delay) * jitter) } as const
  })
