/**
 * A calendar feed (RFC 5545): one VCALENDAR holding a VEVENT for each event, which calendar apps
 * subscribe to by its address and read again now and then (`GET /o/<orgSlug>/events.ics`, CONTRACT
 * §16). Each VEVENT is the one every calendar file of the event holds (Ics.ts `eventLines`): the
 * same `UID`, so an entry once imported from an invitation and then seen in the feed is one entry.
 *
 * A feed is public: its entries never hold the events' online links, passwords or dial-in numbers
 * (a guest's own invitation does), as the public page never shows them.
 *
 * The calendar is named (`NAME` of RFC 7986 and the `X-WR-CALNAME` most apps read) and says how
 * often to read it again (`REFRESH-INTERVAL`, and `X-PUBLISHED-TTL` for the apps that read that).
 */
import type { EventRow } from "../Events/EventRow.js"
import { CRLF, escapeText, eventLines, foldLine } from "./Ics.js"

/** How often subscribers are asked to read the feed again. */
export const FEED_REFRESH = "PT1H"

export interface FeedInput {
  /** The calendar's name, as subscribers' apps list it. */
  readonly name: string
  readonly description?: string | undefined
  /** The host part of every `UID` (PUBLIC_BASE_URL's host name, as Ics.ts says). */
  readonly uidHost: string
  /** The events, each with the public page its entry links to. */
  readonly events: ReadonlyArray<{ readonly event: EventRow; readonly url: string }>
}

export const eventsFeed = (input: FeedInput): string => {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Convene//Convene events//EN",
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    `NAME:${escapeText(input.name)}`,
    `X-WR-CALNAME:${escapeText(input.name)}`,
    ...(input.description === undefined ? [] : [`DESCRIPTION:${escapeText(input.description)}`, `X-WR-CALDESC:${escapeText(input.description)}`]),
    `REFRESH-INTERVAL;VALUE=DURATION:${FEED_REFRESH}`,
    `X-PUBLISHED-TTL:${FEED_REFRESH}`,
    ...input.events.flatMap(({ event, url }) => eventLines({ event: { ...event, virtual_locations: "[]" }, uidHost: input.uidHost, url, urlLabel: "Event page" })),
    "END:VCALENDAR"
  ]
  return lines.map(foldLine).join(CRLF) + CRLF
}
