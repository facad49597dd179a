/**
 * When an event's reminders are due (CONTRACT §17), pure: a reminder of offset `d` is due from
 * `start - d` until the event starts, never after. One that came due while no instance ran is
 * still due when one runs again (late, but before the start).
 *
 * Several due at once (the server was down across two offsets, or a guest accepted after the
 * first): the guest gets one email, for the nearest offset (the smallest), and every due offset
 * is marked sent with it, so no second email follows for the older one.
 *
 * A reminder sent stays sent: the marks are per event, person and offset length (seconds), not
 * per start date. Moving the event's start does not send an offset again; an offset added, or a
 * start moved earlier past an offset not yet sent, makes that offset due (at once when its time
 * has passed). Removing an offset stops it; a guest who is no longer `Accepted` (declined, removed)
 * when it comes due gets none.
 */
import { durationSeconds } from "../Events/Reminders.js"

export interface DueReminders {
  /** The offset the guest's email is for: the smallest due (seconds). */
  readonly nearest: number
  /** Every due offset (seconds), marked sent with the email. */
  readonly offsets: ReadonlyArray<number>
}

/** The event's reminder offsets in seconds, each once, from the stored JSON array (bad entries left out). */
export const offsetsOf = (reminders: string): ReadonlyArray<number> => {
  let values: unknown
  try {
    values = JSON.parse(reminders)
  } catch {
    return []
  }
  if (!Array.isArray(values)) return []
  const seconds = values.flatMap((value) => typeof value === "string" ? [durationSeconds(value)] : []).filter((s): s is number => s !== undefined && s > 0)
  return [...new Set(seconds)].sort((a, b) => a - b)
}

/** The reminders of an event starting at `startMillis` that are due at `nowMillis`; undefined when none is. */
export const dueAt = (startMillis: number, offsets: ReadonlyArray<number>, nowMillis: number): DueReminders | undefined => {
  if (Number.isNaN(startMillis) || nowMillis >= startMillis) return undefined
  const due = offsets.filter((seconds) => startMillis - seconds * 1000 <= nowMillis)
  return due.length === 0 ? undefined : { nearest: Math.min(...due), offsets: due }
}

/** When the next of the event's reminders comes due after `nowMillis` (ms), if one still will before its start. */
export const nextDueAt = (startMillis: number, offsets: ReadonlyArray<number>, nowMillis: number): number | undefined => {
  const later = offsets.map((seconds) => startMillis - seconds * 1000).filter((at) => at > nowMillis)
  return later.length === 0 ? undefined : Math.min(...later)
}
