import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { ApiBase } from "../Http/ApiBase.js"
import { CurrentCaller } from "../Domain/Caller.js"
import { Calendars } from "./Calendars.js"
import { CALENDAR_CONTENT_TYPE } from "./Ics.js"
import { CalendarApi } from "./Api.js"

/** A calendar file as a download. */
export const calendarResponse = (filename: string, text: string) =>
  HttpServerResponse.text(text, { contentType: CALENDAR_CONTENT_TYPE }).pipe(
    HttpServerResponse.setHeader("content-disposition", `attachment; filename="${filename}"`)
  )

export const CalendarHttp = HttpApiBuilder.group(ApiBase.add(CalendarApi), "calendar", (handlers) =>
  Effect.gen(function*() {
    const calendars = yield* Calendars
    return handlers.handle("eventCalendar", ({ path }) =>
      Effect.flatMap(CurrentCaller, (caller) =>
        Effect.map(calendars.ofEvent(caller, path.id), ({ filename, text }) => calendarResponse(filename, text))))
  }))
