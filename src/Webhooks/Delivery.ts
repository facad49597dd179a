/**
 * One delivery attempt: a signed POST (Standard Webhooks headers, made afresh per attempt, the
 * `webhook-id` stable). Any 2xx is delivered; anything else is retried on `WEBHOOK_RETRY_SCHEDULE`
 * with ±10% jitter until the attempts run out.
 *
 * Whatever the receiver does costs a bounded amount, so that no receiver can crash or stall the
 * service: the whole exchange (connect, headers, body) ends at `WEBHOOK_TIMEOUT`, and at most `RESPONSE_BODY_LIMIT` bytes of the body are
 * read. Reading stops there and the request is aborted, which destroys its socket: Node's agent
 * hands a keep-alive socket back to its pool only once a response was parsed to its end, so a
 * connection with unread bytes is never reused (and never drained).
 *
 * The body itself is given as bytes (`MessageBody`, see WebhookChannel.ts): it is signed as it is
 * read (the HMAC takes it where it lies) and sent as it is, never turned into a string or copied.
 */
import type * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Outcome } from "../Outbox/Channel.js"
import { afterFailure } from "../Outbox/Retry.js"
import type { AttemptRow } from "./WebhooksRepo.js"
import { signer } from "./Signing.js"

/** The most of a response body ever read. */
export const RESPONSE_BODY_LIMIT = 64 * 1024
/** The most of it kept in the delivery log, in characters (UTF-16 code units, as the API counts them). */
export const RESPONSE_EXCERPT_LENGTH = 1024

/** A message's body as an attempt sends it. */
export interface MessageBody {
  /** Feeds the body, in order, to `update` (the signature). */
  readonly read: (update: (piece: Uint8Array) => void) => Effect.Effect<void, unknown>
  /** The same bytes as the request's body. */
  readonly http: HttpBody.HttpBody
}

export interface AttemptResult {
  readonly outcome: Outcome
  /** The receiver answered 410 Gone: the registration is to be disabled. */
  readonly gone: boolean
}

/** What came back from one exchange, however it ended. */
interface Answer {
  /** Null when no status line arrived (no connection, no headers in time, not HTTP). */
  readonly status: number | null
  /** The body as far as it was read (at most `RESPONSE_BODY_LIMIT` bytes); null without a status. */
  readonly body: Uint8Array | null
  /** Why the exchange did not finish; null when the body was read to its end or to the limit. */
  readonly failure: string | null
}

/** The innermost cause's message, with its code (ECONNRESET, HPE_INVALID_CONSTANT, ...) when it has one. */
const describeFailure = (error: unknown): string => {
  let cause: unknown = error
  for (let depth = 0; depth < 5 && typeof cause === "object" && cause !== null && "cause" in cause && cause.cause; depth++) {
    cause = cause.cause
  }
  const message = cause instanceof Error ? cause.message : String(cause)
  const code = typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : ""
  return (code === "" || message.includes(code) ? message : `${message} (${code})`).slice(0, 500)
}

/**
 * The first characters of the body as text, invalid UTF-8 replaced. A character (code unit) takes at
 * most three bytes, so four bytes per character are plenty to decode, even with an incomplete
 * sequence held back at the end; a surrogate pair cut by the length is dropped whole.
 */
const excerptOf = (body: Uint8Array): string => {
  const text = new TextDecoder("utf-8").decode(body.subarray(0, RESPONSE_EXCERPT_LENGTH * 4), { stream: true })
  const excerpt = text.slice(0, RESPONSE_EXCERPT_LENGTH)
  const last = excerpt.charCodeAt(excerpt.length - 1)
  return last >= 0xd800 && last <= 0xdbff ? excerpt.slice(0, -1) : excerpt
}

/**
 * Sends the request and reads the answer, all within `timeout`. What arrived is kept outside the
 * timed part, so an exchange cut by the deadline or a reset still reports its status and body start.
 * Ending the body stream early (the limit, the deadline) aborts the request and destroys the socket.
 */
const exchange = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  timeout: Duration.Duration
): Effect.Effect<Answer> =>
  Effect.suspend(() => {
    let status: number | null = null
    const chunks: Array<Uint8Array> = []
    let bytes = 0
    const read = Effect.gen(function*() {
      const response = yield* client.execute(request)
      status = response.status
      yield* Stream.runForEachWhile(response.stream, (chunk) =>
        Effect.sync(() => {
          const kept = chunk.subarray(0, RESPONSE_BODY_LIMIT - bytes)
          chunks.push(kept)
          bytes += kept.length
          return bytes < RESPONSE_BODY_LIMIT
        }))
    })
    return read.pipe(
      Effect.timeout(timeout),
      Effect.either,
      Effect.map((result): Answer => {
        const body = status === null ? null : Buffer.concat(chunks)
        if (result._tag === "Right") return { status, body, failure: null }
        const within = Duration.format(timeout)
        if (Cause.isTimeoutException(result.left)) {
          return {
            status,
            body,
            failure: status === null
              ? `no response within ${within}`
              : `the response body was not finished within ${within} (${bytes} bytes read)`
          }
        }
        const reason = describeFailure(result.left)
        return { status, body, failure: status === null ? reason : `the connection failed while reading the response body: ${reason}` }
      })
    )
  })

/**
 * One attempt: the body read and signed, then sent. Fails only when the body cannot be read (the
 * database); whatever the receiver does is an outcome.
 */
export const attempt = (
  client: HttpClient.HttpClient,
  row: { readonly id: number; readonly attempts: number; readonly max_attempts: number } & Pick<AttemptRow, "url" | "secret" | "message_id">,
  payload: MessageBody,
  options: { readonly timeout: Duration.Duration; readonly schedule: ReadonlyArray<Duration.Duration> }
): Effect.Effect<AttemptResult, unknown> =>
  Effect.gen(function*() {
    const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const signing = signer(row.secret, row.message_id, timestamp)
    yield* payload.read(signing.update)
    const request = HttpClientRequest.post(row.url).pipe(
      HttpClientRequest.setHeaders({
        "webhook-id": row.message_id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signing.signature(),
        "user-agent": "Convene-Webhooks/1.0"
      }),
      HttpClientRequest.setBody(payload.http)
    )
    const { body, failure, status } = yield* exchange(client, request, options.timeout)
    const response = body === null ? null : excerptOf(body)
    // A 2xx counts once its answer was read (to its end or to the limit): a 2xx whose body was cut
    // by a reset or the deadline is retried (at least once; receivers deduplicate by webhook-id).
    if (status !== null && status >= 200 && status < 300 && failure === null) {
      return {
        outcome: { deliveryId: row.id, status: "delivered", statusCode: status, error: null, response, nextAttemptAt: null },
        gone: false
      }
    }
    // A 410 is honoured even when its body was cut: stopping is what the receiver asked for.
    const gone = status === 410
    const error = gone
      ? "410 Gone: the receiver asked to stop; the registration is disabled"
      : status === null
      ? failure!
      : failure === null
      ? `HTTP ${status}`
      : `HTTP ${status}, then ${failure}`
    const next = yield* afterFailure(row, options.schedule, gone)
    return {
      outcome: { deliveryId: row.id, status: next.status, statusCode: status, error, response, nextAttemptAt: next.nextAttemptAt },
      gone
    }
  })
