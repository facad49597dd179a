/** The event as the pages under it show it (its guests, its door, its invitations), and their paths. */
import type { EventRow } from "../../Events/EventRow.js"
import { dateTimeIn } from "../Kit/Format.js"

export interface EventSummary {
  readonly id: string
  readonly name: string
  /** Its date and time in its own time zone. */
  readonly when: string
  /** Its IANA time zone, in which every time of these pages is written. */
  readonly timezone: string
  readonly slug: string | null
}

export const summaryOf = (event: EventRow): EventSummary => ({
  id: event.public_id,
  name: event.name,
  when: dateTimeIn(event.primary_date, event.timezone),
  timezone: event.timezone,
  slug: event.slug
})

/** A page of the event (`rest`: `/guests`, `/checkin`...). */
export const eventPath = (event: EventSummary, rest = "") => `/app/events/${encodeURIComponent(event.id)}${rest}`
