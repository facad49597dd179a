/** An event's date and time as the events' pages write it, in its own time zone, and its page's path. */
import type { Event } from "../../Events/Domain.js"
import { dateTimeIn } from "../Kit/Format.js"

export type When = "upcoming" | "past"

/** A time zone as people read it (`America/New York`). */
export const timeZoneLabel = (zone: string) => zone.replaceAll("_", " ")

/** The event's date and time in its own time zone. */
export const EventTime = ({ event }: { event: Event }) => (
  <time datetime={event.primaryDate}>{dateTimeIn(event.primaryDate, event.timezone)}</time>
)

export const eventPagePath = (event: Event) => `/app/events/${encodeURIComponent(event.eventId)}`
