/** What the guest pages say more than once. */
import type { Decided } from "../../Guests/Approvals.js"
import { MAX_HISTORY_ENTRIES } from "../../Guests/Domain.js"
import { dateTimeIn, plural } from "../Kit/Format.js"
import type { AttendanceChoice } from "./State.js"

/** The most guests one form may name: a guest-list batch (1 to 500). */
export const MAX_BATCH = 500

/** The names of at most a few guests, for a flash message. */
export const someNames = (names: ReadonlyArray<string>) =>
  names.length <= 3 ? names.join(", ") : `${names.slice(0, 3).join(", ")} and ${plural(names.length - 3, "other")}`

/** Why a change that would add to a full RSVP history (Guests/Domain.ts) was refused, for `who`. */
export const historyFull = (who: string) =>
  `${who} has ${MAX_HISTORY_ENTRIES.toLocaleString("en-US")} RSVP history entries already, the most a guest keeps. Nothing was changed.`

/** "… is already checked in since …", in the event's time zone. */
export const alreadyIn = (name: string, since: string | null, zone: string) =>
  since === null ? `${name} is already checked in. Nothing was changed.` : `${name} is already checked in since ${dateTimeIn(since, zone, false)}. Nothing was changed.`

/** An attendance choice as the API sets it (`none`: not checked in, null). */
export const attendanceValue = (choice: AttendanceChoice) => (choice === "none" ? null : choice)

/** What an approval or a decline of registrations did (Guests/Approvals.ts), for a flash message; undefined when it did nothing. */
export const decidedMessage = (decision: "approve" | "decline", decided: Decided): string | undefined => {
  if (decided.guests.length === 0) return undefined
  const names = (status: string) => decided.guests.filter((g) => g.rsvpStatus === status).map((g) => g.name)
  const skipped = decided.skipped === 0
    ? ""
    : ` ${plural(decided.skipped, "other selected guest")} ${decided.skipped === 1 ? "was" : "were"} not awaiting approval and stayed as ${decided.skipped === 1 ? "it was" : "they were"}.`
  if (decision === "decline") return `Declined ${plural(decided.guests.length, "registration")}: ${someNames(names("Declined"))}.${skipped}`
  const accepted = names("Accepted")
  const waitlisted = names("Waitlisted")
  const approved = accepted.length === 0 ? "" : `Approved ${plural(accepted.length, "guest")}, now coming: ${someNames(accepted)}.`
  const waiting = waitlisted.length === 0
    ? ""
    : `${approved === "" ? "" : " "}The event is full: ${someNames(waitlisted)} ${waitlisted.length === 1 ? "is" : "are"} on the waitlist, and will get a place when one frees up.`
  return `${approved}${waiting}${skipped}`
}

/** The flash message when nothing of a selection awaited approval. */
export const NOTHING_PENDING = "None of the selected guests is awaiting approval (a colleague may have decided already). Nothing was changed."
