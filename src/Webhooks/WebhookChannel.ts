/**
 * The outbox's webhook channel: one signed POST per attempt (Delivery.ts) through an HTTP agent
 * owned by the dispatcher's scope, its outcome recorded, and a `410 Gone` answer disabling the
 * registration (its pending deliveries cancelled).
 *
 * The body is read as bytes, outside the JS heap: a message kept whole (`payload`) is read once per
 * attempt, signed and sent as that one Buffer; a large one kept in parts (migration 0016) is read
 * part by part twice, once to sign it and once as the request body streams out, so that an attempt
 * holds a part or two of it, never the whole (the dispatcher runs one large attempt at a time).
 */
import * as HttpBody from "@effect/platform/HttpBody"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as Http from "node:http"
import { AppConfig } from "../Config/AppConfig.js"
import { yieldToEventLoop } from "../Csv/Chunks.js"
import { nowIso } from "../Domain/Time.js"
import type { Attempt, Channel } from "../Outbox/Channel.js"
import { Deliveries } from "../Outbox/Deliveries.js"
import type { DeliveryReferrer } from "../Outbox/Retention.js"
import { attempt, type MessageBody } from "./Delivery.js"
import { guardedLookup } from "./Destinations.js"
import { type AttemptRow, WebhooksRepo } from "./WebhooksRepo.js"

/**
 * How long a kept-alive connection may wait in the pool for its next attempt. Without a limit, each
 * receiver that never closes its end would hold a connection for good, and registrations may name
 * any number of origins.
 */
const IDLE_CONNECTION = Duration.seconds(4)

/**
 * Written after each part of a streamed body. The platform's sink writes a chunk's elements one
 * after the other, waiting for the request to drain between two of them, but not after a chunk's
 * last: each part goes out as the chunk `[part, EMPTY]`, so the next part is read only once the
 * socket has taken this one (a slow receiver holds up the reading, not the memory).
 */
const EMPTY = new Uint8Array(0)

/**
 * Node hands the socket of a `101 Switching Protocols` answer to the request's `upgrade` listener,
 * out of the agent's care; the platform's client listens but never closes that socket, so each such
 * answer would leave a connection open. Nothing here speaks another protocol: a socket the agent
 * lets go of (`agentRemove`) is destroyed.
 */
const destroyDetachedSockets = (agent: Http.Agent) =>
  Effect.sync(() => {
    const create = agent.createConnection.bind(agent)
    agent.createConnection = (options, callback) => {
      const socket = create(options, callback)
      socket?.once("agentRemove", () => socket.destroy())
      return socket
    }
  })

const make = Effect.gen(function*() {
  const { webhooks } = yield* AppConfig
  const repo = yield* WebhooksRepo
  const deliveries = yield* Deliveries
  // Keep-alive is safe with hostile receivers: the agent pools a socket only once its response was
  // parsed to the end, and an attempt that stops reading early aborts its request, destroying the
  // socket (Delivery.ts). The agent's `timeout` ends pooled sockets left idle (on a socket in use,
  // Node only emits an event nobody acts on); attempts have their own deadline.
  const agent = yield* NodeHttpClient.makeAgent({
    keepAlive: true,
    timeout: Duration.toMillis(IDLE_CONNECTION),
    lookup: guardedLookup(webhooks.allowPrivateDestinations) as never
  })
  yield* destroyDetachedSockets(agent.http)
  yield* destroyDetachedSockets(agent.https)
  const client = yield* Effect.provideService(NodeHttpClient.make, NodeHttpClient.HttpAgent, agent)

  /** The body of a message kept in parts: signed part by part, then streamed part by part. */
  const partedBody = (messageRow: number, bytes: number): MessageBody => ({
    read: (update) =>
      Effect.gen(function*() {
        for (let seq = 0;; seq++) {
          if (seq > 0) yield* yieldToEventLoop
          const part = yield* repo.part(messageRow, seq)
          if (part === undefined) return
          update(part)
        }
      }),
    http: HttpBody.stream(
      Stream.paginateChunkEffect(0, (seq) =>
        Effect.map(repo.part(messageRow, seq), (part) =>
          part === undefined
            ? [Chunk.empty<Uint8Array>(), Option.none<number>()] as const
            : [Chunk.make(part, EMPTY), Option.some(seq + 1)] as const)),
      "application/json",
      bytes
    )
  })

  /** The body of an attempt: read once when kept whole (then signed and sent as that Buffer). */
  const bodyOf = (row: AttemptRow): Effect.Effect<MessageBody, unknown> =>
    row.parts_bytes === null
      ? Effect.map(repo.payload(row.message_row), (payload): MessageBody => ({
        read: (update) => Effect.sync(() => update(payload)),
        http: HttpBody.uint8Array(payload, "application/json")
      }))
      : Effect.succeed(partedBody(row.message_row, row.parts_bytes))

  const deliver = (delivery: Attempt) =>
    Effect.gen(function*() {
      // Deleting or disabling a registration cancels its pending deliveries in the same
      // transaction, so a pending one here is either owed or was retried on request, which sends
      // it once more even to a deleted or disabled registration (docs/integrators.md#the-delivery-log).
      if (delivery.destinationRow === null || delivery.messageRow === null) return
      const row = yield* repo.attempt(delivery.destinationRow, delivery.messageRow)
      if (row === undefined) return
      const body = yield* bodyOf(row)
      const result = yield* attempt(
        client,
        { id: delivery.id, attempts: delivery.attempts, max_attempts: delivery.maxAttempts, url: row.url, secret: row.secret, message_id: row.message_id },
        body,
        { timeout: webhooks.timeout, schedule: webhooks.retrySchedule }
      )
      // The outcome is recorded whole or not at all: an interruption here leaves the claim to be
      // released. It is recorded only under this attempt's lease (a late finisher whose lease ran
      // out and was taken by another claim changes nothing, not even on a 410: its successor gets
      // the answer too). A 410's outcome, the registration disabled and its pending deliveries
      // cancelled are one transaction: nobody sees the delivery failed and the registration enabled.
      const gone = Effect.flatMap(nowIso, (at) =>
        Effect.zipRight(
          repo.disable(row.webhook_id, at),
          deliveries.cancelPendingTo(row.webhook_id, "registration disabled: the receiver answered 410 Gone", at)
        ))
      const recorded = yield* delivery.record(result.outcome, result.gone ? gone : undefined)
      if (!recorded) yield* Effect.logDebug("Webhook attempt not recorded: its delivery was cancelled or claimed again meanwhile")
    })

  return { name: "webhook", deliver } satisfies Channel
})

/** The outbox's webhook channel, for the dispatcher (src/Server.ts composes it). */
export class WebhookChannel extends Context.Tag("Convene/WebhookChannel")<WebhookChannel, Channel>() {}

/** The channel, its HTTP agent owned by the layer's scope (closed after the dispatcher's pool stops). */
export const WebhookChannelLive = Layer.scoped(WebhookChannel, make).pipe(Layer.provide([WebhooksRepo.Default, Deliveries.Default]))

/** The webhooks' share of the outbox's retention: a message goes once no delivery refers to it. */
export const webhookReferrer = Effect.map(WebhooksRepo, (repo): DeliveryReferrer => ({ unreferencedMessages: repo.deleteMessages })).pipe(
  Effect.provide(WebhooksRepo.Default)
)
