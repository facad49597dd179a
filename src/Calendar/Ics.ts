/**
 * An event as an iCalendar file (RFC 5545): one VCALENDAR holding one VEVENT, for the calendar
 * download (`GET /event/:id/calendar.ics`), the guest's "Add to calendar" link on the RSVP page and
 * the attachment of every invitation email (docs/integrators.md#calendar-files-and-tickets).
 *
 * Written here rather than with a library: one VEVENT needs a page of code (the text rules below),
 * every rule is tested against an independent parser (test/api/calendar.test.ts, ical.js), and the
 * generators that fit Node 20 would still leave the time-zone part to us.
 *
 * Choices:
 * - Times are in UTC (`DTSTART:20300601T180000Z`): one exact instant that every calendar shows in
 *   its reader's own zone, with no VTIMEZONE rules to write (Intl gives no transition rules). The
 *   event's own zone is named in the description, with the time as the host wrote it.
 * - `DTEND` is the event's `endDate` when it has one; without one it is the start plus
 *   `DEFAULT_DURATION` (2 hours), so calendars show a block of sensible size rather than a
 *   zero-length event.
 * - `UID` is `<eventId>@<public host>`: the same for every file of one event, so importing it again
 *   (or a newer invitation) updates the entry instead of adding one; `SEQUENCE` is the event's
 *   calendar revision (it grows when anything the file shows changes, see Events.update) and
 *   `DTSTAMP`/`LAST-MODIFIED` its last change, so the same revision gives the same file.
 * - `METHOD:PUBLISH` only when asked (email attachments): iTIP's PUBLISH adds the event to the
 *   recipient's calendar without the Accept/Decline buttons of REQUEST, whose replies would go to
 *   MAIL_FROM instead of the RSVP page, the one place where guests answer.
 */
import { virtualLocationsOf } from "../Events/EventJson.js"
import type { EventRow } from "../Events/EventRow.js"
import { longDateTimeIn } from "../Domain/DateText.js"

/** How long an event without an end time (`endDate`) lasts in calendars. */
export const DEFAULT_DURATION_MS = 2 * 60 * 60 * 1000

export const CALENDAR_CONTENT_TYPE = "text/calendar; charset=utf-8"

export interface CalendarInput {
  readonly event: EventRow
  /** The host part of `UID` (`<eventId>@<uidHost>`): PUBLIC_BASE_URL's host name. */
  readonly uidHost: string
  /** The page the entry links to (`URL`, and a line of the description): the guest's RSVP page. */
  readonly url?: string | undefined
  /** The calendar revision; by default the event's own (`calendar_sequence`). */
  readonly sequence?: number | undefined
  /** Who invites, shown as the organizer (`ORGANIZER;CN=…`, needs `organizerEmail`). */
  readonly organizerName?: string | undefined
  /** The organizer's address (`mailto:`); without it there is no ORGANIZER line. */
  readonly organizerEmail?: string | undefined
  /** What the description calls `url`: "Your invitation" unless said. */
  readonly urlLabel?: string | undefined
  /** `PUBLISH` for a file sent by email (iTIP); absent for a plain download. */
  readonly method?: "PUBLISH" | undefined
}

export const CRLF = "\r\n"
const encoder = new TextEncoder()

/** Control characters are not allowed in values (RFC 5545, section 3.3.11); tabs and line breaks are kept apart. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

/** A TEXT value: backslash, semicolon and comma escaped, every line break written `\n`. */
export const escapeText = (value: string): string =>
  value
    .replace(CONTROLS, "")
    .replace(/\\/g, "\\\\")
    .replace(/;/g, "\\;")
    .replace(/,/g, "\\,")
    .replace(/\r\n|\r|\n/g, "\\n")

/** A parameter value (`CN=…`): quoted, without the quotes and line breaks it may not hold. */
const paramValue = (value: string): string => `"${value.replace(CONTROLS, "").replace(/[\r\n"]/g, " ")}"`

/**
 * A content line folded at 75 octets (RFC 5545, section 3.1): each continuation line starts with one
 * space and holds at most 74 octets more; a UTF-8 character is never split.
 */
export const foldLine = (line: string): string => {
  if (encoder.encode(line).length <= 75) return line
  const parts: Array<string> = []
  let current = ""
  let octets = 0
  let limit = 75
  for (const char of line) {
    const size = encoder.encode(char).length
    if (octets + size > limit) {
      parts.push(current)
      current = ""
      octets = 0
      limit = 74
    }
    current += char
    octets += size
  }
  parts.push(current)
  return parts.join(`${CRLF} `)
}

/** A UTC DATE-TIME in basic format: `20300601T180000Z`. */
export const utcStamp = (instant: number): string =>
  new Date(instant).toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "")

const nonEmpty = (values: ReadonlyArray<string | null>): Array<string> =>
  values.map((v) => v?.trim() ?? "").filter((v) => v !== "")

/** The place as one line: name, street, apartment, city, state, postal code, country. */
export const placeOf = (event: EventRow): string =>
  nonEmpty([
    event.location_name,
    event.location_address,
    event.location_apartment,
    event.location_city,
    event.location_state,
    event.location_postal_code,
    event.location_country
  ]).join(", ")

/** How to join online, one line per link: the URL, its password and dial-in number when given. */
export const onlineLinesOf = (event: EventRow): ReadonlyArray<string> =>
  virtualLocationsOf(event).flatMap((location) => {
    const details = nonEmpty([
      location.url,
      location.password === null || location.password.trim() === "" ? null : `password ${location.password.trim()}`,
      location.phoneNumber === null || location.phoneNumber.trim() === "" ? null : `phone ${location.phoneNumber.trim()}`
    ])
    return details.length === 0 ? [] : [details.join(" · ")]
  })

/** The event's date and time as its host wrote it: in the event's zone, the zone named. */
export const localTimeOf = (event: EventRow): string =>
  `${longDateTimeIn(event.primary_date_utc, event.timezone)} (${event.timezone} time)`

/** The description of the entry: the event's text, when in its own zone, how to join online, the page. */
const descriptionOf = (event: EventRow, url: string | undefined, urlLabel = "Your invitation"): string => {
  const text = event.rsvp_description ?? event.link_preview_description
  const online = onlineLinesOf(event)
  return [
    ...(text === null || text.trim() === "" ? [] : [text.trim(), ""]),
    `When: ${localTimeOf(event)}`,
    ...(online.length === 0 ? [] : ["", "Join online:", ...online]),
    ...(url === undefined ? [] : ["", `${urlLabel}: ${url}`])
  ].join("\n")
}

/** The VEVENT of the event: its content lines, unfolded (`eventCalendar` and the feeds of `Feed.ts` fold them). */
export const eventLines = (input: Omit<CalendarInput, "method">): ReadonlyArray<string> => {
  const { event } = input
  const start = Date.parse(event.primary_date_utc)
  const end = event.end_date === null ? start + DEFAULT_DURATION_MS : Date.parse(event.end_date)
  const revised = Date.parse(event.updated_at)
  const place = placeOf(event)
  const online = virtualLocationsOf(event).map((l) => l.url?.trim() ?? "").filter((u) => u !== "")
  const location = place !== "" ? place : online[0] ?? ""
  return [
    "BEGIN:VEVENT",
    `UID:${escapeText(`${event.public_id}@${input.uidHost}`)}`,
    `DTSTAMP:${utcStamp(revised)}`,
    `LAST-MODIFIED:${utcStamp(revised)}`,
    `SEQUENCE:${input.sequence ?? event.calendar_sequence}`,
    `DTSTART:${utcStamp(start)}`,
    `DTEND:${utcStamp(end)}`,
    `SUMMARY:${escapeText(event.name)}`,
    ...(location === "" ? [] : [`LOCATION:${escapeText(location)}`]),
    `DESCRIPTION:${escapeText(descriptionOf(event, input.url, input.urlLabel))}`,
    ...(input.url === undefined ? [] : [`URL:${input.url.replace(CONTROLS, "").replace(/[\r\n]/g, "")}`]),
    ...(input.organizerEmail === undefined
      ? []
      : [
        `ORGANIZER${input.organizerName === undefined ? "" : `;CN=${paramValue(input.organizerName)}`}:mailto:${
          input.organizerEmail.replace(/[\r\n]/g, "")
        }`
      ]),
    "STATUS:CONFIRMED",
    "TRANSP:OPAQUE",
    "END:VEVENT"
  ]
}

/** A complete VCALENDAR with one VEVENT for the event, CRLF line ends, lines folded, text escaped. */
export const eventCalendar = (input: CalendarInput): string => {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Convene//Convene events//EN",
    "CALSCALE:GREGORIAN",
    ...(input.method === undefined ? [] : [`METHOD:${input.method}`]),
    ...eventLines(input),
    "END:VCALENDAR"
  ]
  return lines.map(foldLine).join(CRLF) + CRLF
}

/** A file name for the download: the event's slug or name in safe characters. */
export const calendarFileName = (event: EventRow): string => {
  const base = (event.slug ?? event.name).normalize("NFKD").replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60)
  return `${base === "" ? "event" : base}.ics`
}
