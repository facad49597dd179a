/**
 * One delivery attempt: a signed POST (Standard Webhooks headers, made afresh per attempt, the
 * `webhook-id` stable), bounded by `WEBHOOK_TIMEOUT`. Any 2xx is delivered; anything else is
 * retried on `WEBHOOK_RETRY_SCHEDULE` with ±10% jitter until the attempts run out.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import type { AttemptRow, Outcome } from "./WebhooksRepo.js"
import { sign } from "./Signing.js"

export interface AttemptResult {
  readonly outcome: Outcome
  /** The receiver answered 410 Gone: the registration is to be disabled. */
  readonly gone: boolean
}

const describeFailure = (error: unknown): string => {
  let cause: unknown = error
  for (let depth = 0; depth < 5 && typeof cause === "object" && cause !== null && "cause" in cause && cause.cause; depth++) {
    cause = cause.cause
  }
  const message = cause instanceof Error ? cause.message : String(cause)
  return message.slice(0, 500)
}

export const attempt = (
  client: HttpClient.HttpClient,
  row: AttemptRow,
  options: { readonly timeout: Duration.Duration; readonly schedule: ReadonlyArray<Duration.Duration> }
): Effect.Effect<AttemptResult> =>
  Effect.gen(function*() {
    const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const request = HttpClientRequest.post(row.url).pipe(
      HttpClientRequest.setHeaders({
        "webhook-id": row.message_id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": sign(row.secret, row.message_id, timestamp, row.payload),
        "user-agent": "Convene-Webhooks/1.0"
      }),
      HttpClientRequest.bodyText(row.payload, "application/json")
    )
    const response = yield* client.execute(request).pipe(
      Effect.flatMap((r) => Effect.as(Effect.ignore(r.text), r.status)),
      Effect.scoped,
      Effect.timeoutFail({
        duration: options.timeout,
        onTimeout: () => new Error(`no answer within ${Duration.format(options.timeout)}`)
      }),
      Effect.either
    )
    const status = response._tag === "Right" ? response.right : null
    if (status !== null && status >= 200 && status < 300) {
      return {
        outcome: { deliveryId: row.id, status: "delivered", statusCode: status, error: null, nextAttemptAt: null },
        gone: false
      }
    }
    const error = response._tag === "Left"
      ? describeFailure(response.left)
      : status === 410
      ? "410 Gone: the receiver asked to stop; the registration is disabled"
      : `HTTP ${status}`
    const attemptsMade = row.attempts + 1
    const gone = status === 410
    if (gone || attemptsMade >= row.max_attempts) {
      return { outcome: { deliveryId: row.id, status: "failed", statusCode: status, error, nextAttemptAt: null }, gone }
    }
    const delay = options.schedule[Math.min(row.attempts, options.schedule.length - 1)]!
    const jitter = yield* Random.nextRange(0.9, 1.1)
    const now = yield* Clock.currentTimeMillis
    return {
      outcome: {
        deliveryId: row.id,
        status: "pending",
        statusCode: status,
        error,
        nextAttemptAt: now + Math.round(Duration.toMillis(delay) * jitter)
      },
      gone: false
    }
  })
