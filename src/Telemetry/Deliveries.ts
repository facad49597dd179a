/**
 * An outbox delivery attempt, timed for `/metrics` by channel (Metrics.ts) and, with tracing on
 * (Tracing.ts), traced as a span of its own (`outbox.deliver webhook`), the root of its trace: the
 * webhook's POST is its child, and carries its trace to the receiver in `traceparent`
 * (`@effect/platform`'s HTTP client). Tracing off, no span is made at all.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import { countDelivery, timeAttempt } from "./Metrics.js"

/** `attempt` (a channel's `deliver`) observed: `attempts` is how many were made before it. */
export const observedAttempt = (channel: string, deliveryId: number, attempts: number) =>
<A, E, R>(attempt: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const started = clock.unsafeCurrentTimeNanos()
    const timed = Effect.onExit(attempt, (exit) =>
      Effect.sync(() => {
        // an attempt interrupted (its instance stopping, its claimant fenced) is not counted
        if (Exit.isSuccess(exit) || !Exit.isInterrupted(exit)) timeAttempt(channel, Number(clock.unsafeCurrentTimeNanos() - started) / 1e9)
      }))
    if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) return timed
    return Effect.withSpan(timed, `outbox.deliver ${channel}`, {
      kind: "consumer",
      root: true,
      captureStackTrace: false,
      attributes: { "convene.outbox.channel": channel, "convene.outbox.delivery_id": deliveryId, "convene.outbox.attempt": attempts + 1 }
    })
  })

/** An attempt's outcome, counted once it is recorded (`recorded` false: it was not, the delivery cancelled or claimed again). */
export const recordedOutcome = (channel: string, status: "pending" | "delivered" | "failed") => (recorded: boolean) =>
  Effect.sync(() => {
    if (recorded) countDelivery(channel, status)
  })
