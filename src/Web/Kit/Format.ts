/** How the dashboard writes dates and numbers: in the event's time zone, or in UTC for records. */

const formatters = new Map<string, Intl.DateTimeFormat>()

const formatter = (timeZone: string, withWeekday: boolean) => {
  const key = `${timeZone}|${withWeekday}`
  let existing = formatters.get(key)
  if (existing === undefined) {
    existing = new Intl.DateTimeFormat("en-US", {
      timeZone,
      ...(withWeekday ? { weekday: "short" } : {}),
      year: "numeric",
      month: "short",
      day: "numeric",
      hour: "numeric",
      minute: "2-digit",
      timeZoneName: "short"
    })
    formatters.set(key, existing)
  }
  return existing
}

/** An instant in a time zone: `Sat, Jun 1, 2031, 6:00 PM EDT`. */
export const dateTimeIn = (iso: string, timeZone: string, withWeekday = true): string => {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : formatter(timeZone, withWeekday).format(date)
}

/** A record's time (created, last used), in UTC; the page's script shows it in the reader's zone. */
export const recordTime = (iso: string): string => dateTimeIn(iso, "UTC", false)

export const count = (n: number): string => n.toLocaleString("en-US")

export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`

/** A wait of `seconds` in words, rounded up to the minute: `5 minutes`, `23 hours 50 minutes`. */
export const waitInWords = (seconds: number): string => {
  const minutes = Math.ceil(seconds / 60)
  if (minutes < 60) return plural(minutes, "minute")
  return `${plural(Math.floor(minutes / 60), "hour")}${minutes % 60 === 0 ? "" : ` ${plural(minutes % 60, "minute")}`}`
}

/** The offset of a time zone at an instant, in minutes east of UTC. */
const offsetMinutes = (instant: number, timeZone: string): number => {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit"
  }).formatToParts(new Date(instant))
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"))
  return Math.round((asUtc - instant) / 60_000)
}

const pad = (n: number) => String(n).padStart(2, "0")

/**
 * A wall-clock time typed into a form (`2031-06-01T18:00`, as `<input type=datetime-local>` sends
 * it) in an event's time zone, as ISO 8601 with that zone's offset at that moment
 * (`2031-06-01T18:00:00-04:00`); undefined when it is not a time. A time inside a daylight-saving
 * gap (which no clock shows) gets the offset after the change.
 */
export const wallTimeToIso = (local: string, timeZone: string): string | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local.trim())
  if (match === null) return undefined
  const [y, mo, d, h, mi, s] = match.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number]
  const naive = Date.UTC(y, mo - 1, d, h, mi, s)
  const check = new Date(naive)
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23) return undefined
  // the offset at the guessed instant, corrected once for a change of offset in between
  let offset = offsetMinutes(naive, timeZone)
  offset = offsetMinutes(naive - offset * 60_000, timeZone)
  const sign = offset < 0 ? "-" : "+"
  const abs = Math.abs(offset)
  return `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/** An instant as the wall-clock time of a zone, for `<input type=datetime-local>` (`2031-06-01T18:00`). */
export const isoToWallTime = (iso: string, timeZone: string): string => {
  const instant = Date.parse(iso)
  if (Number.isNaN(instant)) return ""
  const local = new Date(instant + offsetMinutes(instant, timeZone) * 60_000)
  return `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}`
}

/** Where an event happens, in a few words: its place and city, and whether it is online too ("Online" alone; never the link). */
export const placeInWords = (parts: ReadonlyArray<string | null>, online: boolean): string | null => {
  const place = parts.filter((s) => s !== null && s !== "").join(", ")
  return place === "" ? (online ? "Online" : null) : online ? `${place} · and online` : place
}
