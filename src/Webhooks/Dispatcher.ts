/**
 * At-least-once delivery by a supervised, bounded pool of fibers owned by a scoped layer.
 *
 * A claimer fiber takes due deliveries from the outbox, marks them claimed (a lease, so a crashed
 * process's claims are simply taken again) and hands them to `WEBHOOK_CONCURRENCY` worker fibers.
 * It wakes when the outbox is written, when a worker frees a slot, or when the next retry is due.
 * One destination holds at most a quarter of the slots, so a slow or dead receiver cannot starve
 * the others. On shutdown, attempts in flight finish within the grace period or are released,
 * uncounted, to be attempted again.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type * as Http from "node:http"
import { AppConfig } from "../Config/AppConfig.js"
import { nowIso } from "../Domain/Time.js"
import { attempt } from "./Delivery.js"
import { guardedLookup } from "./Destinations.js"
import { Outbox } from "./Outbox.js"
import { WebhooksRepo } from "./WebhooksRepo.js"

/** How long a claim lasts beyond the attempt's own timeout. */
const LEASE_MARGIN = Duration.seconds(30)
/** The longest the claimer sleeps without a wake-up. */
const IDLE_POLL = Duration.seconds(1)
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

export const DispatcherLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { shutdownGracePeriod, webhooks } = yield* AppConfig
  const repo = yield* WebhooksRepo
  const outbox = yield* Outbox
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
  const slots = webhooks.concurrency
  const perDestination = Math.max(1, Math.ceil(slots / 4))
  const lease = Duration.toMillis(webhooks.timeout) + Duration.toMillis(LEASE_MARGIN)
  const inFlight = yield* Ref.make(HashMap.empty<number, number>())
  const work = yield* Queue.bounded<{ readonly id: number; readonly webhookId: number }>(slots)

  const countOf = (map: HashMap.HashMap<number, number>) => HashMap.reduce(map, 0, (sum, n) => sum + n)
  const adjust = (webhookId: number, by: number) =>
    Ref.update(inFlight, (map) => {
      const next = Option.getOrElse(HashMap.get(map, webhookId), () => 0) + by
      return next <= 0 ? HashMap.remove(map, webhookId) : HashMap.set(map, webhookId, next)
    })

  const deliver = (id: number) =>
    Effect.gen(function*() {
      const row = yield* repo.attempt(id)
      // Deleting or disabling a registration cancels its pending deliveries in the same
      // transaction, so a pending one here is either owed or was retried on request, which sends
      // it once more even to a deleted or disabled registration (CONTRACT §8).
      if (Option.isNone(row) || row.value.status !== "pending") return
      const result = yield* attempt(client, row.value, { timeout: webhooks.timeout, schedule: webhooks.retrySchedule })
      // the outcome is recorded whole or not at all: an interruption here leaves the claim to be released
      yield* Effect.uninterruptible(Effect.gen(function*() {
        const at = yield* nowIso
        yield* repo.record(result.outcome, at)
        if (result.gone) {
          yield* repo.disable(row.value.webhook_id, at)
          yield* repo.cancelPending(row.value.webhook_id, "registration disabled: the receiver answered 410 Gone", at)
        }
      }))
    }).pipe(
      Effect.onInterrupt(() => Effect.ignore(repo.release(id))),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("Webhook delivery failed unexpectedly", cause)
      ),
      Effect.annotateLogs({ deliveryId: id })
    )

  const worker = Effect.forever(
    Effect.flatMap(Queue.take(work), ({ id, webhookId }) =>
      deliver(id).pipe(
        Effect.ensuring(Effect.zipRight(adjust(webhookId, -1), Queue.offer(outbox.wakeups, undefined)))
      ))
  )

  /**
   * Claims what is due and fits the free slots; returns how long to wait before looking again:
   * no time after claiming (there may be more), else until the next unclaimed delivery is due, at
   * most a second. Slots freed by workers and new outbox rows cut the wait short.
   */
  const claimDue = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const busy = yield* Ref.get(inFlight)
    const free = slots - countOf(busy)
    if (free <= 0) return IDLE_POLL
    const perWebhook = new Map(HashMap.toEntries(busy))
    const candidates = yield* repo.due(now, free * 4)
    const chosen: Array<{ id: number; webhookId: number }> = []
    for (const candidate of candidates) {
      if (chosen.length === free) break
      const used = perWebhook.get(candidate.webhookId) ?? 0
      if (used >= perDestination) continue
      perWebhook.set(candidate.webhookId, used + 1)
      chosen.push(candidate)
    }
    if (chosen.length > 0) {
      yield* repo.claim(chosen.map((c) => c.id), now + lease)
      for (const c of chosen) {
        yield* adjust(c.webhookId, 1)
        yield* Queue.offer(work, c)
      }
      return Duration.zero
    }
    // due deliveries held back by their destination's share wait for a slot to free up
    if (candidates.length > 0) return IDLE_POLL
    const next = yield* repo.nextDue(now)
    return next === null ? IDLE_POLL : Duration.min(IDLE_POLL, Duration.millis(Math.max(1, next - now)))
  }).pipe(
    Effect.catchAllCause((cause) => Effect.as(Effect.logError("Webhook claimer failed; retrying", cause), IDLE_POLL))
  )

  const claimer = Effect.forever(
    Effect.flatMap(claimDue, (wait) =>
      Duration.toMillis(wait) === 0
        ? Effect.void
        : Effect.raceFirst(Queue.take(outbox.wakeups), Effect.sleep(wait)))
  )

  // Claims from before this start belong to attempts that died with their process.
  yield* repo.releaseAllClaims.pipe(Effect.orDie)

  const workers = yield* FiberSet.make()
  for (let i = 0; i < slots; i++) yield* FiberSet.run(workers, worker)
  const claiming = yield* Effect.forkScoped(claimer)

  // Shutdown: stop claiming, let attempts in flight finish within the grace period, then
  // interrupt the rest (their claims are released, their attempts not counted).
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      yield* Fiber.interrupt(claiming)
      yield* Ref.get(inFlight).pipe(
        Effect.repeat({ until: (map) => HashMap.size(map) === 0, schedule: Schedule.spaced(Duration.millis(20)) }),
        Effect.timeout(shutdownGracePeriod),
        Effect.ignore
      )
    })
  )
})).pipe(Layer.provide([Outbox.Default, WebhooksRepo.Default]))
