/**
 * The event form's values: what its fields hold (strings and ticks, as typed), read from the posted
 * form with schemas, and how an event fills the form again. Its API input: FormInput.ts; its
 * refusals in words: FormErrors.ts.
 *
 * Repeated rows (online locations, images, RSVP questions) are posted as `virtualLocations.0.url`
 * and so on, which is also the path the API's issues name: an error lands next to its field. Blank
 * rows are dropped when the form is read, so row `i` of a re-rendered form is item `i` of the input.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Event } from "../../Events/Domain.js"
import { type Form, fieldsOf, Multiline } from "../Kit/Form.js"
import { isoToWallTime } from "../Kit/Format.js"

/** Most rows of each repeated group the API takes (CreateEvent's `maxItems`). */
export const MAX_ROWS = { virtualLocations: 20, images: 50, rsvpQuestions: 50 } as const
/** Blank rows offered after the filled ones, so that more can be added without scripts. */
export const BLANK_ROWS = 2

const VirtualLocationRow = Schema.Struct({ url: Schema.String, password: Schema.String, phoneNumber: Schema.String, sourceType: Schema.String })
const ImageRow = Schema.Struct({ type: Schema.String, url: Schema.String })
const QuestionRow = Schema.Struct({ title: Schema.String, description: Schema.String })

/** The form's fields as typed. */
export const EventFormValues = Schema.Struct({
  name: Schema.String,
  /** wall-clock time in `timezone`, as `<input type=datetime-local>` sends it */
  primaryDate: Schema.String,
  /** the same; empty: no end time */
  endDate: Schema.String,
  timezone: Schema.String,
  /** empty: made from the name */
  primarySlug: Schema.String,
  noPublicPage: Schema.Boolean,
  isPublic: Schema.Boolean,
  locationName: Schema.String,
  locationAddress: Schema.String,
  locationApartment: Schema.String,
  locationCity: Schema.String,
  locationState: Schema.String,
  locationPostalCode: Schema.String,
  locationCountry: Schema.String,
  locationPhoneNumber: Schema.String,
  locationWebsite: Schema.String,
  virtualLocations: Schema.Array(VirtualLocationRow),
  /** one per line */
  eventTags: Schema.String,
  images: Schema.Array(ImageRow),
  rsvpDescription: Schema.String,
  linkPreviewDescription: Schema.String,
  featuredImage: Schema.String,
  capacityEnabled: Schema.Boolean,
  capacity: Schema.String,
  ticketingEnabled: Schema.Boolean,
  rsvpQuestions: Schema.Array(QuestionRow),
  /** one per line */
  customColumns: Schema.String,
  hostUserIds: Schema.Array(Schema.String),
  registrationOpen: Schema.Boolean,
  /** wall-clock time in `timezone`; empty: until the event starts */
  registrationClosesAt: Schema.String,
  registrationApproval: Schema.Boolean,
  /** ISO 8601 durations, one per select, blanks dropped */
  reminders: Schema.Array(Schema.String),
  replyTo: Schema.String
})
export type EventFormValues = typeof EventFormValues.Type

/** The hidden copy of the values an edit form started from (see `toUpdate`). */
export const OriginalValues = Schema.parseJson(EventFormValues)
const decodeOriginal = Schema.decodeUnknownOption(OriginalValues)
export const encodeOriginal = Schema.encodeSync(OriginalValues)

/** A message for one field of the form (`field` is the input's name). */
export interface FieldError {
  readonly field: string
  readonly message: string
}

export const LOCATION_FIELDS = [
  "locationName",
  "locationAddress",
  "locationApartment",
  "locationCity",
  "locationState",
  "locationPostalCode",
  "locationCountry",
  "locationPhoneNumber",
  "locationWebsite"
] as const

/** Text typed into a textarea: browsers send `\r\n` line breaks; they are kept as `\n`. */
export const text = (value: string) => value.replace(/\r\n?/g, "\n").trim()
export const lines = (value: string) => text(value).split("\n").map((l) => l.trim()).filter((l) => l !== "")

/** The filled rows of a repeated group, in order. */
const rows = <K extends string>(form: Form, group: string, keys: ReadonlyArray<K>, max: number): Array<Record<K, string>> => {
  const found: Array<Record<K, string>> = []
  // a form may leave gaps (rows of blanks are dropped); read as many rows as a form may have
  for (let i = 0; i < max + BLANK_ROWS; i++) {
    if (!keys.some((k) => form.has(`${group}.${i}.${k}`))) continue
    const row = Object.fromEntries(keys.map((k) => [k, text(form.get(`${group}.${i}.${k}`))])) as Record<K, string>
    if (keys.some((k) => row[k] !== "")) found.push(row)
  }
  return found
}

export const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** One per line: a textarea's lines, trimmed, blank ones dropped. */
const Lines = Schema.transform(Schema.String, Schema.String, { strict: true, decode: (value) => lines(value).join("\n"), encode: (value) => value })
/** `<input type=datetime-local>`'s value (a space for its `T` taken too). */
const WallTime = Schema.transform(Schema.String, Schema.String, { strict: true, decode: (value) => value.replace(" ", "T"), encode: (value) => value })
/** The ticked options of a list of checkboxes, blanks dropped. */
const Ticked = Schema.transform(Schema.Array(Schema.String), Schema.Array(Schema.String), {
  strict: true,
  decode: (values) => values.filter((v) => v !== ""),
  encode: (values) => values
})

/** The form's own fields (the repeated groups' rows aside), as the form posts them. */
const readFields = fieldsOf(Schema.Struct({
  ...EventFormValues.omit("virtualLocations", "images", "rsvpQuestions").fields,
  primaryDate: WallTime,
  endDate: WallTime,
  registrationClosesAt: WallTime,
  reminders: Ticked,
  eventTags: Lines,
  rsvpDescription: Multiline,
  linkPreviewDescription: Multiline,
  customColumns: Lines,
  hostUserIds: Ticked
}))

/** The values of a submitted event form. */
export const readValues = (form: Form): EventFormValues => ({
  ...readFields(form),
  virtualLocations: rows(form, "virtualLocations", ["url", "password", "phoneNumber", "sourceType"], MAX_ROWS.virtualLocations),
  images: rows(form, "images", ["type", "url"], MAX_ROWS.images),
  rsvpQuestions: rows(form, "rsvpQuestions", ["title", "description"], MAX_ROWS.rsvpQuestions)
})

/** The edit form's starting point when its hidden copy is missing or altered. */
export const originalValues = (form: Form, event: Event): EventFormValues =>
  Option.getOrElse(decodeOriginal(form.get("_original")), () => valuesOf(event))

/** A new event's form. */
export const blankValues = (timezone: string, hostUserIds: ReadonlyArray<string>): EventFormValues => ({
  name: "",
  primaryDate: "",
  endDate: "",
  timezone,
  primarySlug: "",
  noPublicPage: false,
  isPublic: false,
  locationName: "",
  locationAddress: "",
  locationApartment: "",
  locationCity: "",
  locationState: "",
  locationPostalCode: "",
  locationCountry: "",
  locationPhoneNumber: "",
  locationWebsite: "",
  virtualLocations: [],
  eventTags: "",
  images: [],
  rsvpDescription: "",
  linkPreviewDescription: "",
  featuredImage: "",
  capacityEnabled: false,
  capacity: "",
  ticketingEnabled: false,
  rsvpQuestions: [],
  customColumns: "",
  hostUserIds,
  registrationOpen: true,
  registrationClosesAt: "",
  registrationApproval: false,
  reminders: [],
  replyTo: ""
})

const orEmpty = (value: string | null) => (value === null ? "" : text(value))

/** An event as the edit form shows it. */
export const valuesOf = (event: Event): EventFormValues => ({
  name: event.name,
  primaryDate: isoToWallTime(event.primaryDate, event.timezone),
  endDate: event.endDate === null ? "" : isoToWallTime(event.endDate, event.timezone),
  timezone: event.timezone,
  primarySlug: event.primarySlug ?? "",
  noPublicPage: event.primarySlug === null,
  isPublic: event.isPublic,
  ...Object.fromEntries(LOCATION_FIELDS.map((f) => [f, orEmpty(event[f])])) as Record<typeof LOCATION_FIELDS[number], string>,
  virtualLocations: event.virtualLocations.map((l) => ({
    url: orEmpty(l.url),
    password: orEmpty(l.password),
    phoneNumber: orEmpty(l.phoneNumber),
    sourceType: orEmpty(l.sourceType)
  })),
  eventTags: event.eventTags.join("\n"),
  images: event.images.map((i) => ({ type: i.type, url: i.url })),
  rsvpDescription: orEmpty(event.rsvpDescription),
  linkPreviewDescription: orEmpty(event.linkPreviewDescription),
  featuredImage: orEmpty(event.featuredImage),
  capacityEnabled: event.capacityEnabled,
  capacity: event.capacity === null ? "" : String(event.capacity),
  ticketingEnabled: event.ticketingEnabled,
  rsvpQuestions: event.rsvpQuestions.map((q) => ({ title: q.title, description: orEmpty(q.description) })),
  customColumns: event.customColumns.join("\n"),
  hostUserIds: event.hostUserIds,
  registrationOpen: event.registrationOpen,
  registrationClosesAt: event.registrationClosesAt === null ? "" : isoToWallTime(event.registrationClosesAt, event.timezone),
  registrationApproval: event.registrationApproval,
  reminders: event.reminders,
  replyTo: event.replyTo ?? ""
})
