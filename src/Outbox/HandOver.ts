/**
 * A claimed delivery handed to its channel for one attempt (Dispatcher.ts): only if it is still
 * pending (deleting or disabling a webhook registration cancels its pending deliveries meanwhile),
 * with what the channel needs of it and the recording of its outcome under the claim's lease
 * (Channel.ts, `Attempt`); timed, counted by outcome and traced (Telemetry/Deliveries.ts).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { nowIso } from "../Domain/Time.js"
import { observedAttempt, recordedOutcome } from "../Telemetry/Deliveries.js"
import type { Attempt, Channel, Outcome } from "./Channel.js"
import { type Lease, OutboxRepo } from "./OutboxRepo.js"

export const makeHandOver = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* OutboxRepo
  return (channel: Channel, id: number, lease: Lease): Effect.Effect<void, unknown> =>
    Effect.flatMap(repo.state(id), (found) => {
      if (Option.isNone(found) || found.value.status !== "pending") return Effect.void
      const row = found.value
      const record = <E, R>(outcome: Outcome, also?: Effect.Effect<void, E, R>) => {
        const recorded = Effect.flatMap(nowIso, (at) => repo.record(outcome, lease, at))
        return Effect.uninterruptible(
          also === undefined
            ? recorded
            : sql.withTransaction(Effect.flatMap(recorded, (done) => done ? Effect.as(also, true) : Effect.succeed(false)))
        ).pipe(Effect.tap(recordedOutcome(channel.name, outcome.status)))
      }
      const attempt: Attempt = {
        id,
        attempts: row.attempts,
        maxAttempts: row.max_attempts,
        messageRow: row.message_id,
        destinationRow: row.webhook_id,
        record
      }
      return observedAttempt(channel.name, id, row.attempts)(channel.deliver(attempt))
    })
})
