/** The event form's choices of reminders, and a reminder (an ISO 8601 duration) in words. */
import { durationSeconds } from "../../Events/Reminders.js"
import { plural } from "../Kit/Format.js"

/** The durations the form offers, shortest first. */
const COMMON = ["PT15M", "PT30M", "PT1H", "PT2H", "PT3H", "P1D", "P2D", "P3D", "P1W", "P2W"] as const

/** `P1D` as `1 day before`; a duration the form does not know as it was given. */
export const reminderInWords = (duration: string): string => {
  const seconds = durationSeconds(duration)
  if (seconds === undefined) return duration
  const units: ReadonlyArray<[number, string]> = [[604_800, "week"], [86_400, "day"], [3_600, "hour"], [60, "minute"], [1, "second"]]
  let left = seconds
  const parts: Array<string> = []
  for (const [size, unit] of units) {
    if (left >= size) {
      parts.push(plural(Math.floor(left / size), unit))
      left %= size
    }
  }
  return `${parts.join(" ")} before`
}

/** A select's options: none, the common durations, and the one it holds when the form does not offer it. */
export const reminderOptions = (current: string): ReadonlyArray<{ readonly value: string; readonly label: string }> => [
  { value: "", label: "No reminder" },
  ...(current === "" || (COMMON as ReadonlyArray<string>).includes(current) ? [] : [{ value: current, label: reminderInWords(current) }]),
  ...COMMON.map((value) => ({ value, label: reminderInWords(value) }))
]
