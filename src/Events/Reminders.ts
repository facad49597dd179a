/**
 * An event's reminders (CONTRACT §6): at most three ISO 8601 durations before its start, such as
 * `P1D` or `PT2H`. Weeks, days, hours, minutes and seconds only: years and months have no fixed
 * length. Each is longer than zero, and no two are the same length of time (`P1D` and `PT24H` are).
 */
import * as Schema from "effect/Schema"

export const MAX_REMINDERS = 3

const DURATION = /^P(?:(\d{1,6})W|(?:(\d{1,6})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,6})M)?(?:(\d{1,6})S)?)?)$/

/** The seconds a duration lasts; undefined when it is not one this field takes. */
export const durationSeconds = (value: string): number | undefined => {
  const match = DURATION.exec(value)
  if (match === null || value === "P" || value.endsWith("T")) return undefined
  const [weeks, days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number]
  return (((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds
}

const REMINDER_DESCRIPTION = "How long before the event's start: an ISO 8601 duration in weeks, days, hours, minutes or seconds, such as P1D, PT2H or P1W (no years or months), longer than zero."

export const Reminder = Schema.Trim.pipe(
  Schema.filter((value) => durationSeconds(value) !== undefined, {
    message: () => "must be an ISO 8601 duration such as P1D, PT2H or P1W (weeks, days, hours, minutes or seconds; no years or months)"
  }),
  Schema.filter((value) => (durationSeconds(value) ?? 0) > 0, { message: () => "must be longer than zero" })
).annotations({
  identifier: "Reminder",
  description: REMINDER_DESCRIPTION,
  jsonSchema: { type: "string", description: REMINDER_DESCRIPTION, examples: ["P1D", "PT2H"] }
})

export const Reminders = Schema.Array(Reminder).pipe(
  Schema.maxItems(MAX_REMINDERS, { message: () => `must hold at most ${MAX_REMINDERS} reminders` }),
  Schema.filter((reminders) => {
    const seen = new Map<number, number>()
    for (const [i, reminder] of reminders.entries()) {
      const seconds = durationSeconds(reminder)!
      const earlier = seen.get(seconds)
      if (earlier !== undefined) return { path: [i], message: `is the same time as reminder ${earlier + 1}` }
      seen.set(seconds, i)
    }
    return true
  })
).annotations({ identifier: "Reminders" })
