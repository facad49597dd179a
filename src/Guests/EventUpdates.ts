/**
 * A change of an event that its guest list answers to (CONTRACT §16): a raised or disabled
 * capacity hands the free places to the waitlist (WaitlistPromotion.ts) in the transaction of the
 * change. Events sit below Guests and know nothing of guests, so the update's callers above both
 * (the `PATCH /event/:id` handler, Events/Http.ts) ask this service rather than Events' own
 * `update`: it runs that update and the promotion in one transaction (Events' own transaction
 * nested in it), ARCHITECTURE.md ("When a lower part needs a higher one").
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { Caller } from "../Domain/Caller.js"
import type { UpdateEvent } from "../Events/Domain.js"
import { Events } from "../Events/Events.js"
import { WaitlistPromotion } from "./WaitlistPromotion.js"

/** The event fields whose change may free places. */
const CAPACITY_FIELDS: ReadonlySet<string> = new Set(["capacity", "capacityEnabled"])

export class EventUpdates extends Effect.Service<EventUpdates>()("Convene/EventUpdates", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const events = yield* Events
    const waitlist = yield* WaitlistPromotion

    /** Events' `update`, and the waitlist's promotion when the capacity changed, in one transaction. */
    const update = (caller: Caller, id: string, input: UpdateEvent) =>
      Effect.gen(function*() {
        const updated = yield* events.update(caller, id, input)
        if (updated.updatedFields.some((field) => CAPACITY_FIELDS.has(field))) yield* waitlist.fill(updated.row, updated.at)
        return updated
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", (error) => Effect.die(error)))

    return { update } as const
  }),
  dependencies: [Events.Default, WaitlistPromotion.Default]
}) {}
