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
import * as SqlClient from "@effect/sql/SqlClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as Http from "node:http"
import { AppConfig } from "../Config/AppConfig.js"
import { yieldToEventLoop } from "../Csv/Chunks.js"
import { nowIso } from "../Domain/Time.js"
import type { Channel } from "../Outbox/Dispatcher.js"
import { type Lease, OutboxRepo } from "../Outbox/OutboxRepo.js"
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

export const webhookChannel = Effect.gen(function*() {
  const { webhooks } = yield* AppConfig
  const repo = yield* WebhooksRepo
  const outbox = yield* OutboxRepo
  const sql = yield* SqlClient.SqlClient
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

  const deliver = (id: number, lease: Lease) =>
    Effect.gen(function*() {
      const row = yield* repo.attempt(id)
      // Deleting or disabling a registration cancels its pending deliveries in the same
      // transaction, so a pending one here is either owed or was retried on request, which sends
      // it once more even to a deleted or disabled registration (docs/integrators.md#the-delivery-log).
      if (row === undefined || row.status !== "pending") return
      const body = yield* bodyOf(row)
      const result = yield* attempt(client, row, body, { timeout: webhooks.timeout, schedule: webhooks.retrySchedule })
      // The outcome is recorded whole or not at all: an interruption here leaves the claim to be
      // released. It is recorded only under this attempt's lease (a late finisher whose lease ran
      // out and was taken by another claim changes nothing, not even on a 410: its successor gets
      // the answer too). A 410's outcome, the registration disabled and its pending deliveries
      // cancelled are one transaction: nobody sees the delivery failed and the registration enabled.
      const record = Effect.gen(function*() {
        const at = yield* nowIso
        const recorded = yield* outbox.record(result.outcome, lease, at)
        if (!recorded) return yield* Effect.logDebug("Webhook attempt not recorded: its delivery was cancelled or claimed again meanwhile")
        if (result.gone) {
          yield* repo.disable(row.webhook_id, at)
          yield* outbox.cancelPendingOfWebhook(row.webhook_id, "registration disabled: the receiver answered 410 Gone", at)
        }
      })
      yield* Effect.uninterruptible(result.gone ? sql.withTransaction(record) : record)
    })

  return { name: "webhook", deliver } satisfies Channel
})
