/** Calendar files of events (docs/integrators.md#calendar-files-and-tickets): the staff's download of an event, and what emails attach. */
import * as Effect from "effect/Effect"
import type { Caller } from "../Domain/Caller.js"
import { Events } from "../Events/Events.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { calendarFileName, eventCalendar } from "./Ics.js"

export class Calendars extends Effect.Service<Calendars>()("Convene/Calendars", {
  effect: Effect.gen(function*() {
    const events = yield* Events
    const origin = yield* PublicOrigin
    /** The host of every `UID`: PUBLIC_BASE_URL's host name, so UIDs are unique beyond this instance. */
    const uidHost = new URL(origin.baseUrl).hostname

    /** `GET /event/:id/calendar.ics`: the event for the organization's own calendars, linking to its dashboard page. */
    const ofEvent = Effect.fn("Calendars.ofEvent")(function*(caller: Caller, eventId: string) {
      const event = yield* events.find(caller, eventId)
      return {
        filename: calendarFileName(event),
        text: eventCalendar({ event, uidHost, url: origin.url(`/app/events/${encodeURIComponent(event.public_id)}`) })
      }
    })

    return { uidHost, ofEvent } as const
  }),
  dependencies: [Events.Default, PublicOrigin.Default]
}) {}
