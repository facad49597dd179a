/**
 * The body of an `Event` notification (docs/integrators.md#payloads), one shape in both variants:
 * the event as the API renders it after an update, and the API fields whose value changed.
 */
import type { Event } from "./Domain.js"

export const eventUpdatedBody = (event: Event, updatedFields: ReadonlyArray<string>, timestamp: string): unknown => ({
  eventId: event.eventId,
  action: "event_updated",
  data: { name: event.name, primaryDate: event.primaryDate, updatedFields, timestamp }
})
