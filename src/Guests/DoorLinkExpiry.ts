/**
 * When a door link ends unless its admin says otherwise: at the end of the event's day in the
 * event's time zone (the day of its end when it has one, else of its start), as a UTC instant.
 */

/** The local calendar date (year, month, day) of an instant in a time zone. */
const localDate = (millis: number, timeZone: string) => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "numeric", day: "numeric" }).formatToParts(millis)
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  return { year: part("year"), month: part("month"), day: part("day") }
}

/** How far the zone's wall clock is ahead of UTC at an instant, in milliseconds. */
const offsetAt = (millis: number, timeZone: string) => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric"
  }).formatToParts(millis)
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  const wall = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second"))
  return wall - Math.floor(millis / 1000) * 1000
}

/**
 * The first instant of the day after the one `iso` falls on in `timeZone` (midnight there), in
 * UTC ISO 8601. A zone's midnight that a clock change skips is taken at its offset after the change.
 */
export const endOfDayIn = (iso: string, timeZone: string): string => {
  const { day, month, year } = localDate(Date.parse(iso), timeZone)
  return endOfLocalDay(year, month, day, timeZone)
}

/** The first instant after the local day `year-month-day` in `timeZone`, in UTC ISO 8601. */
export const endOfLocalDay = (year: number, month: number, day: number, timeZone: string): string => {
  const wallMidnight = Date.UTC(year, month - 1, day + 1)
  let guess = wallMidnight - offsetAt(wallMidnight, timeZone)
  guess = wallMidnight - offsetAt(guess, timeZone)
  return new Date(guess).toISOString()
}

/** A door link's default end for an event: the end of its last day in its own zone. */
export const defaultExpiry = (event: { readonly primary_date: string; readonly end_date: string | null; readonly timezone: string }): string =>
  endOfDayIn(event.end_date ?? event.primary_date, event.timezone)
