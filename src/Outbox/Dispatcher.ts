/**
 * At-least-once delivery of the outbox, every channel alike (webhooks, emails), by a supervised,
 * bounded pool of fibers owned by a scoped layer.
 *
 * A claimer fiber (Claimer.ts) takes due deliveries from the outbox, marks them claimed (a lease,
 * so a crashed process's claims are simply taken again) and hands them to `WEBHOOK_CONCURRENCY`
 * worker fibers (Worker.ts), which give each to its channel for one attempt. It wakes when the
 * outbox is written, when a worker frees a slot, or when the next retry is due (and at least every
 * second, which is how it sees what other instances wrote).
 *
 * Several instances (PostgreSQL, CONTRACT §15): each runs its own pool on the one outbox. A claim
 * takes a row only while nobody holds its lease, in one statement (OutboxRepo.claim says what it
 * guarantees on each engine), so each attempt runs on one instance at a time; an outcome is only
 * recorded under the lease it was claimed with (its end and its claimant), and a shut-down instance
 * gives back the leases it holds. Nothing is kept in a database session between statements: a
 * claim names its claimant, whose heartbeat says it is alive (Outbox/Instances.ts). A killed or
 * cut-off instance's leases are released once its heartbeat is stale (`STALE_AFTER`, looked at
 * every `ABANDONED_SWEEP` by every instance), or run out after `WEBHOOK_TIMEOUT` + `LEASE_MARGIN`
 * at the latest; an instance that cannot write its heartbeat stops its attempts before that, and
 * claims again by itself once the database answers (a restart, a failover, a network cut).
 *
 * Fairness (Fairness.ts): one destination (a webhook registration, the SMTP server) holds at most a quarter of
 * the slots, and one organization at most half, so that neither a slow or dead receiver nor one
 * organization's many receivers can starve the others. A look for due deliveries leaves out those
 * whose destination or organization is at its share, so that their backlog, however old, never
 * hides anyone else's; and each channel's due deliveries are looked up on their own. On shutdown,
 * attempts in flight finish within the grace period or are released, uncounted, to be attempted
 * again.
 *
 * Memory: a large delivery (a message over `LARGE_PAYLOAD_BYTES`, such as the GuestList
 * notification of a big guest-list import) is attempted only when no other large one is in flight,
 * whatever its destination: N registrations × M large messages never have more than one large body
 * on its way at once. The others wait unclaimed (their leases do not run), and while the large lane
 * is busy, the small deliveries behind them are looked up without them.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import { type Channel, Channels } from "./Channel.js"
import { type Claimed, makeClaimer } from "./Claimer.js"
import { makeInFlight } from "./Fairness.js"
import { outboxClaimant } from "./Instances.js"
import { OutboxRepo } from "./OutboxRepo.js"
import { OutboxWakeups } from "./Wakeups.js"
import { makeWorker } from "./Worker.js"

/** How long a claim lasts beyond the attempt's own timeout. */
export const LEASE_MARGIN = Duration.seconds(30)

/** The pool over the given channels; runs until its scope closes. */
export const dispatch = (channels: ReadonlyArray<Channel>) =>
  Effect.gen(function*() {
    const { shutdownGracePeriod, webhooks } = yield* AppConfig
    const repo = yield* OutboxRepo
    const claimants = yield* outboxClaimant
    const slots = webhooks.concurrency
    const inFlight = yield* makeInFlight(slots)
    const work = yield* Queue.bounded<Claimed>(slots)
    const lease = Duration.toMillis(webhooks.timeout) + Duration.toMillis(LEASE_MARGIN)
    const worker = yield* makeWorker(channels, work, inFlight)
    const claimer = yield* makeClaimer({ channels, claimants, inFlight, work, lease })

    // SQLite: claims from before this start belong to attempts that died with their process.
    // (PostgreSQL: those of instances that are gone are released by the first sweep.)
    yield* claimants.atStart.pipe(Effect.orDie)

    // Claimed, but not yet taken by a worker when the workers stop (closed after them): given back.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Queue.takeAll(work), (left) => Effect.forEach(left, (item) => Effect.ignore(repo.release(item.id, item.lease)), { discard: true }))
    )
    const workers = yield* FiberSet.make()
    for (let i = 0; i < slots; i++) yield* FiberSet.run(workers, worker)
    const claiming = yield* Effect.forkScoped(claimer)

    // Shutdown: stop claiming, let attempts in flight finish within the grace period, then
    // interrupt the rest (their claims are released, their attempts not counted), so that another
    // instance takes them at once rather than when their lease runs out.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Fiber.interrupt(claiming)
        yield* inFlight.idle.pipe(
          Effect.repeat({ until: (idle) => idle, schedule: Schedule.spaced(Duration.millis(20)) }),
          // finalizers run uninterruptibly: without this, the timeout could not cut the wait short
          Effect.interruptible,
          Effect.timeout(shutdownGracePeriod),
          Effect.ignore
        )
      })
    )
  })

/**
 * The dispatcher of the service, over the channels the composition gives it (`Channels`: webhooks
 * and emails, src/Server.ts). The channels' own resources (the HTTP agent, the SMTP connections)
 * are their layers', closed after the pool stops.
 */
export const DispatcherLive = Layer.scopedDiscard(Effect.flatMap(Channels, dispatch)).pipe(
  Layer.provide([OutboxRepo.Default, OutboxWakeups.Default, Ids.Default])
)
