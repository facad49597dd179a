/**
 * The event fields (as the API names them) whose values a calendar file shows (Calendar/Ics.ts):
 * changing one of them makes a new calendar revision (`SEQUENCE`, `events.calendar_sequence`).
 */
export const CALENDAR_FIELDS: ReadonlySet<string> = new Set([
  "name",
  "primaryDate",
  "endDate",
  "timezone",
  "primarySlug",
  "locationName",
  "locationAddress",
  "locationApartment",
  "locationCity",
  "locationState",
  "locationPostalCode",
  "locationCountry",
  "virtualLocations",
  "rsvpDescription",
  "linkPreviewDescription"
])
