/** What the guest pages say more than once. */
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
