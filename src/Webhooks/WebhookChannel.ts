/**
 * The outbox's webhook channel: one signed POST per attempt (Delivery.ts) through an HTTP agent
 * owned by the dispatcher's scope, its outcome recorded, and a `410 Gone` answer disabling the
 * registration (its pending deliveries cancelled).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Http from "node:http"
import { AppConfig } from "../Config/AppConfig.js"
import { nowIso } from "../Domain/Time.js"
import type { Channel } from "../Outbox/Dispatcher.js"
import { OutboxRepo } from "../Outbox/OutboxRepo.js"
import { attempt } from "./Delivery.js"
import { guardedLookup } from "./Destinations.js"
import { WebhooksRepo } from "./WebhooksRepo.js"

/**
 * How long a kept-alive connection may wait in the pool for its next attempt. Without a limit, each
 * receiver that never closes its end would hold a connection for good, and registrations may name
 * any number of origins.
 */
const IDLE_CONNECTION = Duration.seconds(4)

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

  const deliver = (id: number) =>
    Effect.gen(function*() {
      const row = yield* repo.attempt(id)
      // Deleting or disabling a registration cancels its pending deliveries in the same
      // transaction, so a pending one here is either owed or was retried on request, which sends
      // it once more even to a deleted or disabled registration (docs/integrators.md#the-delivery-log).
      if (Option.isNone(row) || row.value.status !== "pending") return
      const result = yield* attempt(client, row.value, { timeout: webhooks.timeout, schedule: webhooks.retrySchedule })
      // the outcome is recorded whole or not at all: an interruption here leaves the claim to be released
      yield* Effect.uninterruptible(Effect.gen(function*() {
        const at = yield* nowIso
        yield* outbox.record(result.outcome, at)
        if (result.gone) {
          yield* repo.disable(row.value.webhook_id, at)
          yield* outbox.cancelPendingOfWebhook(row.value.webhook_id, "registration disabled: the receiver answered 410 Gone", at)
        }
      }))
    })

  return { name: "webhook", deliver } satisfies Channel
})
