/**
 * What a tap, an undo or a scan at the door does (CONTRACT §17), for the member's door page and a
 * door link's alike: attendance `Attended` (or none) through the guest-list update the API's PUT
 * makes, after the door's rules (`Guests/DoorRules.ts`): a guest checked in already is said so and
 * not checked in again; one whose RSVP is not `Accepted` only once confirmed.
 */
import * as Effect from "effect/Effect"
import type { Caller } from "../../Domain/Caller.js"
import type { Guest } from "../../Guests/Domain.js"
import { type DoorEntry, verdictOf } from "../../Guests/DoorRules.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import { formatCode, Tickets } from "../../Guests/Tickets.js"
import { alreadyIn } from "./Words.js"

export type DoorOutcome =
  | { readonly _tag: "CheckedIn" | "Undone" | "NotIn" | "NeedsConfirmation"; readonly guest: DoorEntry }
  | { readonly _tag: "AlreadyIn"; readonly guest: DoorEntry; readonly since: string | null }
  | { readonly _tag: "Removed"; readonly name: string }
  | { readonly _tag: "Invalid"; readonly input: string }
  | { readonly _tag: "Unknown"; readonly code: string }
  | { readonly _tag: "OtherEvent"; readonly code: string; readonly eventName: string }

/** How the door shows an outcome: done, waiting for a confirmation, or refused. */
export const toneOf = (outcome: DoorOutcome): "done" | "confirm" | "refused" =>
  outcome._tag === "CheckedIn" || outcome._tag === "Undone" ? "done" : outcome._tag === "NeedsConfirmation" ? "confirm" : "refused"

/** What the door says of an outcome; `others`: whether it may name another event (a door link may not). */
export const messageOf = (outcome: DoorOutcome, zone: string, others: boolean): string => {
  switch (outcome._tag) {
    case "CheckedIn":
      return `${outcome.guest.name} checked in.${outcome.guest.rsvp === "Accepted" ? "" : ` Their RSVP is ${outcome.guest.rsvp}.`}`
    case "Undone":
      return `Check-in of ${outcome.guest.name} undone.`
    case "NotIn":
      return `${outcome.guest.name} was not checked in. Nothing was changed.`
    case "AlreadyIn":
      return alreadyIn(outcome.guest.name, outcome.since, zone)
    case "NeedsConfirmation":
      if (outcome.guest.rsvp === "Accepted") return `Ticket of ${outcome.guest.name} (RSVP Accepted), not checked in yet.`
      return `${outcome.guest.name} answered ${outcome.guest.rsvp}, not Accepted. Check them in anyway?`
    case "Removed":
      return `${outcome.name} is no longer on this event's guest list. Nothing was changed.`
    case "Invalid":
      return `“${outcome.input.slice(0, 40)}” is not a ticket code: codes have 10 letters and digits, like K7QXM-3M9PD. Nothing was changed.`
    case "Unknown":
      return `Unknown ticket ${formatCode(outcome.code)}. Nothing was changed.`
    case "OtherEvent":
      return others
        ? `This ticket is for ${outcome.eventName}, not this event. Nothing was changed.`
        : `Ticket ${formatCode(outcome.code)} is another event's. Nothing was changed.`
  }
}

/** A guest as the door's list holds them. */
export const entryOf = (guest: Guest, withEmail: boolean, code: string | null = null): DoorEntry => ({
  id: guest.personId,
  name: guest.name,
  ...(withEmail ? { email: guest.email } : {}),
  rsvp: guest.rsvpStatus,
  in: guest.attendanceStatus === "Attended",
  code
})

/** The door's writes for one caller at one event's door. */
export const doorTaps = Effect.gen(function*() {
  const guestLists = yield* GuestLists
  const tickets = yield* Tickets

  const attend = (caller: Caller, eventId: string, guest: Guest, undo: boolean, withEmail: boolean, code: string | null) =>
    guestLists.update(caller, eventId, [{ personId: guest.personId, attendanceStatus: undo ? null : "Attended" }]).pipe(
      Effect.map((change): DoorOutcome => ({ _tag: undo ? "Undone" : "CheckedIn", guest: entryOf(change.guests[0] ?? guest, withEmail, code) })),
      Effect.catchTag("InvalidRequest", () => Effect.succeed<DoorOutcome>({ _tag: "Removed", name: guest.name })),
      // an attendance change adds no RSVP history, so it never finds a full one
      Effect.catchTag("Conflict", (conflict) => Effect.die(conflict))
    )

  /** A tap on a guest (`undo`: its undo); `confirmed`: the door staff read the status and confirmed. */
  const tap = (caller: Caller, eventId: string, personId: string, options: { undo: boolean; confirmed: boolean; withEmail: boolean }) =>
    Effect.gen(function*() {
      const found = yield* guestLists.guest(caller, eventId, personId).pipe(
        Effect.map((f) => f.guest),
        Effect.catchTag("NotFound", () => Effect.succeed(undefined))
      )
      // the event itself exists (an unknown one failed above with its own NotFound)
      if (found === undefined) return { _tag: "Removed", name: "This guest" } satisfies DoorOutcome
      const entry = entryOf(found, options.withEmail)
      if (options.undo) return entry.in ? yield* attend(caller, eventId, found, true, options.withEmail, null) : ({ _tag: "NotIn", guest: entry } satisfies DoorOutcome)
      switch (verdictOf(entry, options.confirmed)) {
        case "AlreadyIn":
          return { _tag: "AlreadyIn", guest: entry, since: null } satisfies DoorOutcome
        case "NeedsConfirmation":
          return { _tag: "NeedsConfirmation", guest: entry } satisfies DoorOutcome
        case "CheckIn":
          return yield* attend(caller, eventId, found, false, options.withEmail, null)
      }
    })

  /** A ticket's code typed, pasted or scanned: its guest, as by a tap (`dryRun`: nobody is checked in, a guest to let in needs a confirmation). */
  const scan = (caller: Caller, eventId: string, input: string, options: { confirmed: boolean; withEmail: boolean; dryRun: boolean }) =>
    Effect.gen(function*() {
      const found = yield* tickets.lookup(caller, eventId, input)
      if (found._tag === "Invalid") return { _tag: "Invalid", input } satisfies DoorOutcome
      if (found._tag !== "Found") return found._tag === "Removed" ? ({ _tag: "Removed", name: `The guest of ticket ${formatCode(found.code)}` } satisfies DoorOutcome) : found
      const entry = entryOf(found.guest, options.withEmail, found.code)
      switch (verdictOf(entry, options.confirmed && !options.dryRun)) {
        case "AlreadyIn":
          return { _tag: "AlreadyIn", guest: entry, since: found.since } satisfies DoorOutcome
        case "NeedsConfirmation":
          return { _tag: "NeedsConfirmation", guest: entry } satisfies DoorOutcome
        case "CheckIn":
          if (options.dryRun) return { _tag: "NeedsConfirmation", guest: entry } satisfies DoorOutcome
          return yield* attend(caller, eventId, found.guest, false, options.withEmail, found.code)
      }
    })

  return { tap, scan } as const
})
