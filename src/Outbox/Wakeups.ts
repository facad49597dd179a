import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"

/**
 * Pulses for the dispatcher: something new may be due. Whatever writes the outbox (a notification,
 * an email, a retry on request) pulses, so the first attempt follows the commit without a polling
 * delay; a sliding queue of one keeps pulses from piling up.
 */
export class OutboxWakeups extends Effect.Service<OutboxWakeups>()("Convene/OutboxWakeups", {
  effect: Effect.gen(function*() {
    const queue = yield* Queue.sliding<void>(1)
    return { wake: Queue.offer(queue, undefined), next: Queue.take(queue) } as const
  })
}) {}
