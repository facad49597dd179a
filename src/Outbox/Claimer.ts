/**
 * The dispatcher's claimer (Dispatcher.ts): it looks for due deliveries that fit the free slots and
 * the shares (Fairness.ts), claims them under a lease in its claimant's name (OutboxRepo.claim,
 * Instances.ts) and queues those it got for the workers. It looks again at once after a claim,
 * else when the outbox is written, a worker frees a slot or the next retry is due, and at least
 * every `IDLE_POLL` (which is how it sees what other instances wrote).
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type { Channel } from "./Channel.js"
import type { InFlight } from "./Fairness.js"
import type { Claimant, outboxClaimant } from "./Instances.js"
import { type DueDelivery, type Lease, OutboxRepo } from "./OutboxRepo.js"
import { OutboxWakeups } from "./Wakeups.js"

/** The longest the claimer sleeps without a wake-up. */
const IDLE_POLL = Duration.seconds(1)
/**
 * After a pulse, the claimer also looks again after these delays (ms), unless woken meanwhile: a
 * pulse is given inside the writing transaction, so the first look may come before its commit
 * (on PostgreSQL, the claimer's connection sees nothing of it until then).
 */
const AFTER_PULSE: ReadonlyArray<number> = [10, 40, 150, 400]
/** How often an instance on PostgreSQL looks for the leases of instances that are gone (Outbox/Instances.ts). */
const ABANDONED_SWEEP = Duration.seconds(2)

/** A claimed delivery: its lease names the claim, and its claimant's fence stops its attempt. */
export interface Claimed extends DueDelivery {
  readonly lease: Lease
  readonly claimant: Claimant
}

/** What the claimer works with: the channels, its claimants, the attempts in flight, the workers' queue, a lease's length (ms). */
export interface ClaimerOptions {
  readonly channels: ReadonlyArray<Channel>
  readonly claimants: Effect.Effect.Success<typeof outboxClaimant>
  readonly inFlight: InFlight
  readonly work: Queue.Enqueue<Claimed>
  readonly lease: number
}

/** The claimer; runs until interrupted. */
export const makeClaimer = ({ channels, claimants, inFlight, lease, work }: ClaimerOptions) =>
  Effect.gen(function*() {
    const repo = yield* OutboxRepo
    const wakeups = yield* OutboxWakeups
    /** The end of the last lease; each claim's is later than the one before, so with its claimant it names that claim. */
    let lastLease = 0
    /** A new lease's end: at least `until` and after the last one (one millisecond later under load). */
    const nextLease = (until: number) => {
      lastLease = Math.max(until, lastLease + 1)
      return lastLease
    }
    let lastSweep = 0

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
      const { choose, free, laneFree, skip } = yield* inFlight.look
      if (free <= 0) return IDLE_POLL
      // each channel's own oldest due deliveries (large ones only while the large lane is free),
      // then all of them oldest first; what is at its share already is not looked for
      const candidates = (yield* Effect.forEach(channels, (c) => repo.due(c.name, now, free * 4, laneFree, skip))).flat()
        .sort((a, b) => a.dueAt - b.dueAt || a.id - b.id)
      const chosen = choose(candidates)
      if (chosen.length > 0 && !(yield* Deferred.isDone(claimant.fenced))) {
        // another instance may have taken some of them since they were looked up: only those
        // claimed here are attempted here
        const leased: Lease = { until: nextLease(now + lease), claimant: claimant.id }
        const claimed = yield* repo.claim(chosen.map((c) => c.id), now, leased)
        for (const c of chosen) {
          if (!claimed.has(c.id)) continue
          yield* inFlight.count(c, 1)
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
    return Effect.forever(
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
  })
