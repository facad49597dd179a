/**
 * At-least-once delivery of the outbox, every channel alike (webhooks, emails), by a supervised,
 * bounded pool of fibers owned by a scoped layer.
 *
 * A claimer fiber takes due deliveries from the outbox, marks them claimed (a lease, so a crashed
 * process's claims are simply taken again) and hands them to `WEBHOOK_CONCURRENCY` worker fibers,
 * which give each to its channel for one attempt. It wakes when the outbox is written, when a
 * worker frees a slot, or when the next retry is due (and at least every second, which is how it
 * sees what other instances wrote).
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
 * Fairness: one destination (a webhook registration, the SMTP server) holds at most a quarter of
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
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { AppConfig } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import { type Channel, Channels } from "./Channel.js"
import { perDestination, perOrganization } from "./Fairness.js"
import { type Claimant, outboxClaimant } from "./Instances.js"
import { type AtTheirShare, type DueDelivery, type Lease, OutboxRepo } from "./OutboxRepo.js"
import { makeHandOver } from "./HandOver.js"
import { OutboxWakeups } from "./Wakeups.js"

/** How long a claim lasts beyond the attempt's own timeout. */
export const LEASE_MARGIN = Duration.seconds(30)
/** The longest the claimer sleeps without a wake-up. */
const IDLE_POLL = Duration.seconds(1)
/** Large deliveries in flight at once. */
const LARGE_LANE = 1
/**
 * After a pulse, the claimer also looks again after these delays (ms), unless woken meanwhile: a
 * pulse is given inside the writing transaction, so the first look may come before its commit
 * (on PostgreSQL, the claimer's connection sees nothing of it until then).
 */
const AFTER_PULSE: ReadonlyArray<number> = [10, 40, 150, 400]
/** How often an instance on PostgreSQL looks for the leases of instances that are gone (Outbox/Instances.ts). */
const ABANDONED_SWEEP = Duration.seconds(2)

/** A claimed delivery: its lease names the claim, and its claimant's fence stops its attempt. */
interface Claimed extends DueDelivery {
  readonly lease: Lease
  readonly claimant: Claimant
}

/** The pool over the given channels; runs until its scope closes. */
export const dispatch = (channels: ReadonlyArray<Channel>) =>
  Effect.gen(function*() {
    const { shutdownGracePeriod, webhooks } = yield* AppConfig
    const repo = yield* OutboxRepo
    const handOver = yield* makeHandOver
    const wakeups = yield* OutboxWakeups
    const claimants = yield* outboxClaimant
    const byName = new Map(channels.map((c) => [c.name, c]))
    const slots = webhooks.concurrency
    const share = perDestination(slots)
    const organizationShare = perOrganization(slots)
    const lease = Duration.toMillis(webhooks.timeout) + Duration.toMillis(LEASE_MARGIN)
    /** Attempts in flight per destination. */
    const inFlight = yield* Ref.make(HashMap.empty<string, number>())
    /** Attempts in flight per organization. */
    const inFlightByOrganization = yield* Ref.make(HashMap.empty<number, number>())
    /** Large attempts in flight. */
    const largeInFlight = yield* Ref.make(0)
    const work = yield* Queue.bounded<Claimed>(slots)
    /** The end of the last lease; each claim's is later than the one before, so with its claimant it names that claim. */
    let lastLease = 0
    /** A new lease's end: at least `until` and after the last one (one millisecond later under load). */
    const nextLease = (until: number) => {
      lastLease = Math.max(until, lastLease + 1)
      return lastLease
    }
    let lastSweep = 0

    const countOf = (map: HashMap.HashMap<string, number>) => HashMap.reduce(map, 0, (sum, n) => sum + n)
    const adjusted = <K>(map: HashMap.HashMap<K, number>, key: K, by: number) => {
      const next = Option.getOrElse(HashMap.get(map, key), () => 0) + by
      return next <= 0 ? HashMap.remove(map, key) : HashMap.set(map, key, next)
    }
    /** Counts an attempt of `item` in (1) or out (-1) of its destination's and its organization's. */
    const adjust = (item: DueDelivery, by: number) =>
      Effect.zipRight(
        Ref.update(inFlight, (map) => adjusted(map, item.destination, by)),
        Ref.update(inFlightByOrganization, (map) => adjusted(map, item.organizationId, by))
      )

    /**
     * One attempt, stopped (uncounted, its claim given back if the database answers) when its
     * claimant is fenced, and not begun once it is; one that fails unexpectedly leaves its claim to
     * run out. Nothing it does ends its worker but the worker's own interruption.
     */
    const deliver = (item: Claimed) =>
      Effect.suspend(() =>
        Deferred.isDone(item.claimant.fenced).pipe(Effect.flatMap((fenced) =>
          fenced
            ? Effect.ignore(repo.release(item.id, item.lease))
            : Effect.raceFirst(
              handOver(byName.get(item.channel)!, item.id, item.lease).pipe(
                Effect.onInterrupt(() => Effect.ignore(repo.release(item.id, item.lease)))
              ),
              Deferred.await(item.claimant.fenced)
            )
        ))
      ).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.logWarning(`Outbox delivery (${item.channel}) interrupted`, cause)
            : Effect.logError(`Outbox delivery (${item.channel}) failed unexpectedly`, cause)
        ),
        Effect.annotateLogs({ deliveryId: item.id, channel: item.channel })
      )

    const worker = Effect.forever(
      Effect.flatMap(Queue.take(work), (item) =>
        deliver(item).pipe(
          Effect.ensuring(Effect.zipRight(
            Effect.zipRight(adjust(item, -1), item.large ? Ref.update(largeInFlight, (n) => n - 1) : Effect.void),
            wakeups.wake
          ))
        ))
    )

    /** What is at its share of the attempts in flight, to be left out of the next look (OutboxRepo.AtTheirShare). */
    const atTheirShare = (destinations: ReadonlyMap<string, number>, organizations: ReadonlyMap<number, number>): AtTheirShare => ({
      destinations: [...destinations].filter(([, used]) => used >= share).map(([destination]) => destination),
      organizationIds: [...organizations].filter(([, used]) => used >= organizationShare).map(([id]) => id)
    })

    /**
     * Claims what is due and fits the free slots; returns how long to wait before looking again:
     * no time after claiming (there may be more), else until the next unclaimed delivery is due, at
     * most a second. Slots freed by workers and new outbox rows cut the wait short.
     */
    const claimDue = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      // none while this instance's heartbeat is not written (the database unreachable): it claims
      // again by itself once it is
      const claimant = yield* claimants.current
      if (claimant === undefined) return IDLE_POLL
      if (now - lastSweep >= Duration.toMillis(ABANDONED_SWEEP)) {
        lastSweep = now
        yield* claimants.releaseAbandoned
      }
      const busy = yield* Ref.get(inFlight)
      const free = slots - countOf(busy)
      if (free <= 0) return IDLE_POLL
      const perDestinationUsed = new Map(HashMap.toEntries(busy))
      const perOrganizationUsed = new Map(HashMap.toEntries(yield* Ref.get(inFlightByOrganization)))
      let largeFree = LARGE_LANE - (yield* Ref.get(largeInFlight))
      const laneFree = largeFree > 0
      // what is at its share already is not looked for
      const skip = atTheirShare(perDestinationUsed, perOrganizationUsed)
      // each channel's own oldest due deliveries (large ones only while the large lane is free),
      // then all of them oldest first
      const candidates = (yield* Effect.forEach(channels, (c) => repo.due(c.name, now, free * 4, laneFree, skip))).flat()
        .sort((a, b) => a.dueAt - b.dueAt || a.id - b.id)
      const chosen: Array<DueDelivery> = []
      for (const candidate of candidates) {
        if (chosen.length === free) break
        const used = perDestinationUsed.get(candidate.destination) ?? 0
        const organizationUsed = perOrganizationUsed.get(candidate.organizationId) ?? 0
        if (used >= share || organizationUsed >= organizationShare) continue
        if (candidate.large) {
          if (largeFree <= 0) continue
          largeFree--
        }
        perDestinationUsed.set(candidate.destination, used + 1)
        perOrganizationUsed.set(candidate.organizationId, organizationUsed + 1)
        chosen.push(candidate)
      }
      if (chosen.length > 0 && !(yield* Deferred.isDone(claimant.fenced))) {
        // another instance may have taken some of them since they were looked up: only those
        // claimed here are attempted here
        const leased: Lease = { until: nextLease(now + lease), claimant: claimant.id }
        const claimed = yield* repo.claim(chosen.map((c) => c.id), now, leased)
        for (const c of chosen) {
          if (!claimed.has(c.id)) continue
          yield* adjust(c, 1)
          if (c.large) yield* Ref.update(largeInFlight, (n) => n + 1)
          yield* Queue.offer(work, { ...c, lease: leased, claimant })
        }
        return Duration.zero
      }
      // due deliveries held back by their destination's or organization's share or the large lane
      // wait for a slot to free up (an attempt's end wakes the claimer)
      if (candidates.length > 0) return IDLE_POLL
      // nor are those left out of the look, and while the large lane is busy, the large deliveries
      // waiting for it: none of them is due yet
      const next = yield* repo.nextDue(now, laneFree, skip)
      return next === null ? IDLE_POLL : Duration.min(IDLE_POLL, Duration.millis(Math.max(1, next - now)))
    }).pipe(
      Effect.catchAllCause((cause) => Effect.as(Effect.logError("Outbox claimer failed; retrying", cause), IDLE_POLL))
    )

    /** The next of `AFTER_PULSE`'s looks due (none left at its length). */
    let afterPulse = AFTER_PULSE.length
    const claimer = Effect.forever(
      Effect.flatMap(claimDue, (wait) => {
        let ms = Duration.toMillis(wait)
        if (ms === 0) return Effect.void
        if (afterPulse < AFTER_PULSE.length) ms = Math.min(ms, AFTER_PULSE[afterPulse++]!)
        return Effect.raceFirst(
          Effect.as(wakeups.next, true),
          Effect.as(Effect.sleep(Duration.millis(ms)), false)
        ).pipe(Effect.map((woken) => {
          if (woken) afterPulse = 0
        }))
      })
    )

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
        yield* Ref.get(inFlight).pipe(
          Effect.repeat({ until: (map) => HashMap.size(map) === 0, schedule: Schedule.spaced(Duration.millis(20)) }),
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
