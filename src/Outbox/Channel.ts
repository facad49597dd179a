/**
 * What the outbox's dispatcher asks of a channel, and what it hands it. The outbox only stores and
 * delivers; a channel is its feature's (Webhooks/WebhookChannel.ts, Email/EmailChannel.ts): it
 * keeps what it sends in its own tables, and is provided as a layer that src/Server.ts composes
 * into the dispatcher (`Channels`). Nothing here knows a channel.
 */
import type { SqlError } from "@effect/sql/SqlError"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** The channels the outbox's rows name (`outbox_deliveries.channel`). */
export type DeliveryChannel = "webhook" | "email"

export type DeliveryStatus = "pending" | "delivered" | "failed" | "cancelled"

/**
 * A delivery whose message is larger than this (in bytes) is large: the dispatcher attempts one
 * large delivery at a time (Fairness.ts). Only webhook messages are ever that large.
 */
export const LARGE_PAYLOAD_BYTES = 4 * 1024 * 1024

/** How an attempt ended, as the outbox records it. */
export interface Outcome {
  readonly deliveryId: number
  readonly status: "pending" | "delivered" | "failed"
  /** The receiver's status: an HTTP status, an SMTP reply code; null when none came. */
  readonly statusCode: number | null
  readonly error: string | null
  /** The start of the receiver's answer (null when none came). */
  readonly response: string | null
  readonly nextAttemptAt: number | null
}

/** A claimed delivery, still pending, handed to its channel for one attempt. */
export interface Attempt {
  readonly id: number
  /** Attempts made before this one. */
  readonly attempts: number
  readonly maxAttempts: number
  /**
   * The channel's own rows, which the outbox stores with the delivery and never reads: the message
   * it carries and where it goes (a webhook's message and registration); null when the channel
   * keys its message by the delivery (an email).
   */
  readonly messageRow: number | null
  readonly destinationRow: number | null
  /**
   * Records the attempt's outcome, whole or not at all, and only while the delivery still holds
   * this attempt's lease (not when it was cancelled or claimed again meanwhile); `also` runs in the
   * same transaction once the outcome is recorded. Uninterruptible. Answers whether it was recorded.
   */
  readonly record: <E = never, R = never>(outcome: Outcome, also?: Effect.Effect<void, E, R>) => Effect.Effect<boolean, SqlError | E, R>
}

/** How one channel sends: the dispatcher claims, a channel attempts and records. */
export interface Channel {
  readonly name: DeliveryChannel
  /**
   * One attempt at a claimed delivery, its outcome recorded with `attempt.record`. An interruption
   * before recording leaves the claim to be released (the attempt is not counted).
   */
  readonly deliver: (attempt: Attempt) => Effect.Effect<void, unknown>
}

/** The channels the dispatcher delivers by: given by the composition (src/Server.ts). */
export class Channels extends Context.Tag("Convene/OutboxChannels")<Channels, ReadonlyArray<Channel>>() {}
