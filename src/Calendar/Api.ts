/** Calendar files (docs/integrators.md#calendar-files-and-tickets): an event as iCalendar, for the organization's own calendars. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ViewerAccess } from "../Auth/Access.js"
import { NotFound } from "../Domain/Errors.js"

export const CalendarFile = HttpApiSchema.Text({ contentType: "text/calendar" }).annotations({
  title: "iCalendar file",
  description: "RFC 5545 (`text/calendar; charset=utf-8`, CRLF line ends, lines folded at 75 octets): one VCALENDAR " +
    "with one VEVENT. `UID` is `<eventId>@<PUBLIC_BASE_URL host>`, the same for every file of the event; `DTSTART` is " +
    "the event's instant in UTC and `DTEND` two hours later (events have no end time); `SEQUENCE` grows whenever " +
    "anything the file shows changes (name, date, time zone, place, online links, description, slug); `DTSTAMP` " +
    "and `LAST-MODIFIED` are the event's last change. The description repeats the time in the event's own zone.",
  examples: [
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Convene//Convene events//EN\r\nCALSCALE:GREGORIAN\r\nBEGIN:VEVENT\r\n" +
    "UID:2f0c8f4e-7a9b-4c1d-9e2f-0a1b2c3d4e5f@events.example.org\r\nDTSTAMP:20300501T100000Z\r\n" +
    "LAST-MODIFIED:20300501T100000Z\r\nSEQUENCE:1\r\nDTSTART:20300601T180000Z\r\nDTEND:20300601T200000Z\r\n" +
    "SUMMARY:Summer Gala\r\nLOCATION:Grand Hall\\, 1 Example Street\\, Paris\r\n" +
    "DESCRIPTION:When: Saturday\\, June 1\\, 2030 at 8:00 PM GMT+2 (Europe/Paris time)\r\n" +
    "URL:https://events.example.org/app/events/2f0c8f4e-7a9b-4c1d-9e2f-0a1b2c3d4e5f\r\nSTATUS:CONFIRMED\r\n" +
    "TRANSP:OPAQUE\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
  ]
})

export class CalendarApi extends HttpApiGroup.make("calendar")
  .add(
    HttpApiEndpoint.get("eventCalendar", "/event/:id/calendar.ics")
      .setPath(Schema.Struct({ id: Schema.String }))
      .addSuccess(CalendarFile)
      .addError(NotFound.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "calendar.eventCalendar")
      .annotate(OpenApi.Summary, "The event as an iCalendar file (extension)")
      .annotate(
        OpenApi.Description,
        "Answers `text/calendar; charset=utf-8` with `Content-Disposition: attachment; filename=\"<slug>.ics\"`, for " +
          "the organization's own calendars (its `URL` is the event's dashboard page). Guests get the same event, " +
          "linking to their RSVP page, from `GET /rsvp/<slug>/calendar.ics?invite=<token>` and attached to invitation emails."
      )
  )
  .annotate(OpenApi.Title, "Calendar")
{}
