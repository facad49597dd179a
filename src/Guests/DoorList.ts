/**
 * The door's list (CONTRACT §17): an event's guests as the door page and its script search, scan
 * and count them, in one read. For a door link, without emails.
 */
import * as Effect from "effect/Effect"
import type { Caller } from "../Domain/Caller.js"
import { Events } from "../Events/Events.js"
import { DoorListRepo } from "./DoorListRepo.js"
import { byName, doorCounts, type DoorEntry, doorName } from "./DoorRules.js"

export class DoorList extends Effect.Service<DoorList>()("Convene/DoorList", {
  effect: Effect.gen(function*() {
    const repo = yield* DoorListRepo
    const events = yield* Events

    /** Every guest of the event's list, by name; `withEmail` false: names, status and attendance only. */
    const entries = Effect.fn("DoorList.entries")(function*(caller: Caller, eventId: string, withEmail: boolean) {
      const event = yield* events.find(caller, eventId)
      const rows = yield* repo.ofEvent(event.id).pipe(Effect.orDie)
      const list = rows.map((row): DoorEntry => ({
        id: row.public_id,
        name: doorName(row.first_name, row.last_name),
        ...(withEmail ? { email: row.email } : {}),
        rsvp: row.rsvp_status,
        in: row.attendance_status === "Attended",
        code: row.code
      }))
      list.sort(byName)
      return { event, entries: list, counts: doorCounts(list) }
    })

    return { entries } as const
  }),
  dependencies: [DoorListRepo.Default, Events.Default]
}) {}
