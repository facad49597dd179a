/**
 * Approving or declining registrations that await approval (`Pending`, CONTRACT §16 "Approval"):
 * approved guests become `Accepted` while places remain and `Waitlisted` past them, declined ones
 * `Declined`. Each is an ordinary status change by the caller (GuestListWrites.ts `update`: a
 * history entry by the member, the `EventPerson` and `GuestList` notifications, the change feed),
 * the places counted in the same transaction, so an approval never goes past the capacity.
 * Guests of the selection that no longer await approval (decided meanwhile) are left as they are.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { Caller } from "../Domain/Caller.js"
import { Events } from "../Events/Events.js"
import type { Guest } from "./Domain.js"
import { GuestListWrites } from "./GuestListWrites.js"
import { GuestsRepo } from "./GuestsRepo.js"
import { approvedStatuses } from "./Waitlist.js"
import { limitsPlaces } from "./WaitlistPromotion.js"

export type Decision = "approve" | "decline"

/** What a decision did: the guests it changed, with their new status; how many of those named were not awaiting approval. */
export interface Decided {
  readonly guests: ReadonlyArray<Guest>
  readonly skipped: number
}

export class Approvals extends Effect.Service<Approvals>()("Convene/Approvals", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* GuestsRepo
    const events = yield* Events
    const writes = yield* GuestListWrites

    /** Approves or declines the named guests that await approval, in the order named, in one transaction. */
    const decide = Effect.fn("Approvals.decide")(function*(caller: Caller, eventId: string, personIds: ReadonlyArray<string>, decision: Decision) {
      const event = yield* events.find(caller, eventId)
      const named = [...new Set(personIds)]
      return yield* Effect.gen(function*() {
        const links = yield* repo.activeLinks(event.id, caller.organizationId, named)
        const pending = named.filter((personId) => links.get(personId)?.rsvp_status === "Pending")
        if (pending.length === 0) return { guests: [], skipped: named.length } satisfies Decided
        const places = {
          capacityEnabled: limitsPlaces(event),
          capacity: event.capacity,
          accepted: limitsPlaces(event) ? yield* repo.acceptedCount(event.id) : 0
        }
        const statuses = decision === "decline" ? pending.map(() => "Declined" as const) : approvedStatuses(places, pending.length)
        const change = yield* writes.update(caller, eventId, pending.map((personId, i) => ({ personId, rsvpStatus: statuses[i]! })))
        return { guests: change.guests, skipped: named.length - pending.length } satisfies Decided
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", (error) => Effect.die(error)))
    })

    return { decide } as const
  }),
  dependencies: [GuestsRepo.Default, Events.Default, GuestListWrites.Default]
}) {}
