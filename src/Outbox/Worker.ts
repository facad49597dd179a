/**
 * The dispatcher's workers (Dispatcher.ts): each takes a claimed delivery from the queue, hands it
 * to its channel for one attempt (HandOver.ts), then counts it out of the attempts in flight and
 * wakes the claimer, whose slot it freed.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type { Channel } from "./Channel.js"
import type { Claimed } from "./Claimer.js"
import type { InFlight } from "./Fairness.js"
import { makeHandOver } from "./HandOver.js"
import { OutboxRepo } from "./OutboxRepo.js"
import { OutboxWakeups } from "./Wakeups.js"

/** A worker over the given channels, taking its deliveries from `work`; runs until interrupted. */
export const makeWorker = (channels: ReadonlyArray<Channel>, work: Queue.Dequeue<Claimed>, inFlight: InFlight) =>
  Effect.gen(function*() {
    const repo = yield* OutboxRepo
    const handOver = yield* makeHandOver
    const wakeups = yield* OutboxWakeups
    const byName = new Map(channels.map((c) => [c.name, c]))

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

    return Effect.forever(
      Effect.flatMap(Queue.take(work), (item) => deliver(item).pipe(Effect.ensuring(Effect.zipRight(inFlight.count(item, -1), wakeups.wake))))
    )
  })
