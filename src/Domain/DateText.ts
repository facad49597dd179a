/** Dates in words for people (guests' pages, emails, calendar files): in the event's time zone. */

const longFormatters = new Map<string, Intl.DateTimeFormat>()

/** An instant in words, for guests: `Sunday, June 1, 2031 at 12:00 PM EDT`. */
export const longDateTimeIn = (iso: string, timeZone: string): string => {
  let long = longFormatters.get(timeZone)
  if (long === undefined) {
    long = new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "long",
      year: "numeric",
      month: "long",
      day: "numeric",
      hour: "numeric",
      minute: "2-digit",
      timeZoneName: "short"
    })
    longFormatters.set(timeZone, long)
  }
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : long.format(date)
}
