/**
 * The event form between the browser and the Events service: what the fields hold (strings and
 * ticks, as typed), how they become the `CreateEvent` / `UpdateEvent` input of `POST` and
 * `PATCH /event` (decoded with the same schemas, so the form refuses what the API refuses, at the
 * same paths), and how an event fills the form again.
 *
 * Repeated rows (online locations, images, RSVP questions) are posted as `virtualLocations.0.url`
 * and so on, which is also the path the API's issues name: an error lands next to its field. Blank
 * rows are dropped when the form is read, so row `i` of a re-rendered form is item `i` of the input.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CreateEvent, type Event, UpdateEvent } from "../Events/Domain.js"
import { slugify } from "../Events/EventMapping.js"
import { type Conflict, fromParseError, InvalidRequest, Issue } from "../Domain/Errors.js"
import { blankToNull } from "../Domain/Fields.js"
import { isoToWallTime, wallTimeToIso } from "./Kit/Format.js"
import type { Form } from "./Web.js"

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
  hostUserIds: Schema.Array(Schema.String)
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

const LOCATION_FIELDS = [
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
const text = (value: string) => value.replace(/\r\n?/g, "\n").trim()
const lines = (value: string) => text(value).split("\n").map((l) => l.trim()).filter((l) => l !== "")

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

/** The values of a submitted event form. */
export const readValues = (form: Form): EventFormValues => ({
  name: form.get("name"),
  primaryDate: form.get("primaryDate").replace(" ", "T"),
  timezone: form.get("timezone"),
  primarySlug: form.get("primarySlug"),
  noPublicPage: form.has("noPublicPage"),
  isPublic: form.has("isPublic"),
  ...Object.fromEntries(LOCATION_FIELDS.map((f) => [f, form.get(f)])) as Record<typeof LOCATION_FIELDS[number], string>,
  virtualLocations: rows(form, "virtualLocations", ["url", "password", "phoneNumber", "sourceType"], MAX_ROWS.virtualLocations),
  eventTags: lines(form.get("eventTags")).join("\n"),
  images: rows(form, "images", ["type", "url"], MAX_ROWS.images),
  rsvpDescription: text(form.get("rsvpDescription")),
  linkPreviewDescription: text(form.get("linkPreviewDescription")),
  featuredImage: form.get("featuredImage"),
  capacityEnabled: form.has("capacityEnabled"),
  capacity: form.get("capacity"),
  ticketingEnabled: form.has("ticketingEnabled"),
  rsvpQuestions: rows(form, "rsvpQuestions", ["title", "description"], MAX_ROWS.rsvpQuestions),
  customColumns: lines(form.get("customColumns")).join("\n"),
  hostUserIds: form.getAll("hostUserIds").filter((id) => id !== "")
})

/** The edit form's starting point when its hidden copy is missing or altered. */
export const originalValues = (form: Form, event: Event): EventFormValues =>
  Option.getOrElse(decodeOriginal(form.get("_original")), () => valuesOf(event))

/** A new event's form. */
export const blankValues = (timezone: string, hostUserIds: ReadonlyArray<string>): EventFormValues => ({
  name: "",
  primaryDate: "",
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
  hostUserIds
})

const orEmpty = (value: string | null) => (value === null ? "" : text(value))

/** An event as the edit form shows it. */
export const valuesOf = (event: Event): EventFormValues => ({
  name: event.name,
  primaryDate: isoToWallTime(event.primaryDate, event.timezone),
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
  hostUserIds: event.hostUserIds
})


/**
 * The API fields the values set, as a JSON body would carry them (empty text is null), with the
 * problems found before the schema can look (a date that is not one, a capacity that is no number).
 * `primarySlug` is left to the caller: empty means "make one", which creating and editing do apart.
 */
const apiFields = (values: EventFormValues) => {
  const issues: Array<Issue> = []
  let primaryDate: string | undefined
  if (!isTimeZone(values.timezone)) {
    issues.push(new Issue({ path: "timezone", message: "must be a time zone from the list" }))
  } else if (values.primaryDate === "") {
    issues.push(new Issue({ path: "primaryDate", message: "must be given" }))
  } else {
    primaryDate = wallTimeToIso(values.primaryDate, values.timezone)
    if (primaryDate === undefined) issues.push(new Issue({ path: "primaryDate", message: "must be a real date and time" }))
  }
  let capacity: number | null = null
  if (values.capacity !== "") {
    if (/^\d{1,9}$/.test(values.capacity)) capacity = Number(values.capacity)
    else issues.push(new Issue({ path: "capacity", message: "must be a whole number" }))
  }
  const fields = {
    name: values.name,
    primaryDate,
    timezone: values.timezone,
    isPublic: values.isPublic,
    ...Object.fromEntries(LOCATION_FIELDS.map((f) => [f, blankToNull(values[f])])),
    virtualLocations: values.virtualLocations.map((l) => ({
      url: blankToNull(l.url),
      password: blankToNull(l.password),
      phoneNumber: blankToNull(l.phoneNumber),
      sourceType: blankToNull(l.sourceType)
    })),
    eventTags: lines(values.eventTags),
    images: values.images,
    rsvpDescription: blankToNull(values.rsvpDescription),
    linkPreviewDescription: blankToNull(values.linkPreviewDescription),
    featuredImage: blankToNull(values.featuredImage),
    capacityEnabled: values.capacityEnabled,
    capacity,
    ticketingEnabled: values.ticketingEnabled,
    rsvpQuestions: values.rsvpQuestions.map((q) => ({ title: q.title, description: blankToNull(q.description) })),
    customColumns: lines(values.customColumns),
    hostUserIds: values.hostUserIds
  }
  return { fields, issues }
}

/** Decodes a body with the API's schema; the form's own issues come first and win at their paths. */
const decode = <A, I>(schema: Schema.Schema<A, I>, body: Record<string, unknown>, early: ReadonlyArray<Issue>) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })(body).pipe(
    Effect.mapError(fromParseError),
    Effect.either,
    Effect.flatMap((decoded) => {
      const issues: Array<Issue> = []
      // one message per field: the form's own first, then the schema's first (a `NullOr` member
      // that fails also reports "Expected null", which says nothing to a person)
      for (const issue of [...early, ...(decoded._tag === "Left" ? decoded.left.issues ?? [] : [])]) {
        if (!issues.some((i) => i.path === issue.path)) issues.push(issue)
      }
      return issues.length > 0 || decoded._tag === "Left"
        ? Effect.fail(new InvalidRequest({ message: "The form has errors", issues }))
        : Effect.succeed(decoded.right)
    })
  )

const withoutUndefined = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))

/** Whether the form asks for a page address made from the name. */
export const wantsGeneratedSlug = (values: EventFormValues) => !values.noPublicPage && values.primarySlug === ""

/** The `POST /event` input of a new event's form. */
export const toCreate = (values: EventFormValues): Effect.Effect<CreateEvent, InvalidRequest> => {
  const { fields, issues } = apiFields(values)
  const slug = values.noPublicPage ? { primarySlug: null } : values.primarySlug === "" ? {} : { primarySlug: values.primarySlug }
  // empty text on a new event is simply not given
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined))
  return decode(CreateEvent, { ...given, ...slug }, issues)
}

const sameRows = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/**
 * The `PATCH /event/:id` input of an edit form: only the fields the organizer changed, measured
 * against the values the form started from (`original`), so a field changed meanwhile by someone
 * else (through the API, say) is not set back. A cleared field is sent as null (or empty), which
 * clears it. `slug` is the address to use when the form asks for one made from the name.
 */
export const toUpdate = (
  values: EventFormValues,
  original: EventFormValues,
  current: Event,
  slug: string | undefined
): Effect.Effect<UpdateEvent, InvalidRequest> => {
  const { fields, issues } = apiFields(values)
  const changed: Record<string, unknown> = {}
  const keys = Object.keys(fields) as Array<keyof typeof fields>
  for (const key of keys) {
    if (key === "primaryDate") continue
    const mine = key === "capacity" ? values.capacity : values[key as keyof EventFormValues]
    const before = key === "capacity" ? original.capacity : original[key as keyof EventFormValues]
    const differs = key === "hostUserIds"
      ? !sameRows([...values.hostUserIds].sort(), [...original.hostUserIds].sort())
      : !sameRows(mine, before)
    if (differs) changed[key] = fields[key]
  }
  // the date is typed as a wall-clock time in the event's zone: a new zone moves the moment too,
  // unless it stays the same instant (a zone with the same offset)
  const dateTyped = values.primaryDate !== original.primaryDate || values.timezone !== original.timezone
  const instantMoved = fields.primaryDate === undefined || Date.parse(fields.primaryDate) !== Date.parse(current.primaryDate)
  if (dateTyped && instantMoved) changed["primaryDate"] = fields.primaryDate
  const earlyIssues = dateTyped ? issues : issues.filter((i) => i.path !== "primaryDate")
  const slugChanged = values.noPublicPage !== original.noPublicPage || values.primarySlug !== original.primarySlug
  if (slugChanged) {
    changed["primarySlug"] = values.noPublicPage ? null : values.primarySlug === "" ? slug : values.primarySlug
  }
  return decode(UpdateEvent, withoutUndefined(changed), earlyIssues.filter((i) => i.path in changed || i.path === "primaryDate"))
}

/** Whether an edit would change nothing at all. */
export const isEmptyUpdate = (input: UpdateEvent) => Object.keys(input).length === 0

/** The address an edit form makes from the name: the event's own when the name still gives it. */
export const generatedSlugFor = (values: EventFormValues, current: Event) => {
  const name = values.name === "" ? current.name : values.name
  return current.primarySlug !== null && slugify(name) === current.primarySlug ? Option.some(current.primarySlug) : Option.none<string>()
}

/** What the name-like fields of each API path are called on the form. */
const labelOf = (path: ReadonlyArray<string>, values: EventFormValues): { field: string; label: string } => {
  const [head = "", index, leaf] = path
  const n = Number(index) + 1
  const row = (group: string, what: string, leafLabels: Record<string, string>) =>
    index === undefined
      ? { field: `${head}.0.${Object.keys(leafLabels)[0]}`, label: group }
      : {
        field: leaf === undefined ? `${head}.${index}.${Object.keys(leafLabels)[0]}` : `${head}.${index}.${leaf}`,
        label: `${what} ${n}${leaf === undefined ? "" : `: ${leafLabels[leaf] ?? leaf}`}`
      }
  const item = (what: string, all: string) => {
    const value = index === undefined ? undefined : lines(all)[Number(index)]
    return { field: head, label: value === undefined ? what : `${what} “${value.length > 40 ? `${value.slice(0, 40)}…` : value}”` }
  }
  switch (head) {
    case "virtualLocations":
      return row("Online locations", "Online location", { url: "link", password: "password", phoneNumber: "phone number", sourceType: "platform" })
    case "images":
      return row("Images", "Image", { url: "URL", type: "type" })
    case "rsvpQuestions":
      return row("RSVP questions", "Question", { title: "title", description: "description" })
    case "eventTags":
      return item("Tag", values.eventTags)
    case "customColumns":
      return item("Column", values.customColumns)
    case "hostUserIds":
      return { field: "hostUserIds", label: "Host" }
    default:
      return { field: head, label: FIELD_LABELS[head] ?? head }
  }
}

export const FIELD_LABELS: Readonly<Record<string, string>> = {
  name: "Name",
  primaryDate: "Date and time",
  timezone: "Time zone",
  primarySlug: "Page address",
  locationName: "Place",
  locationAddress: "Address",
  locationApartment: "Apartment, suite or floor",
  locationCity: "City",
  locationState: "State or province",
  locationPostalCode: "Postal code",
  locationCountry: "Country",
  locationPhoneNumber: "Phone number",
  locationWebsite: "Website",
  rsvpDescription: "Description",
  linkPreviewDescription: "Link preview description",
  featuredImage: "Featured image",
  capacity: "Capacity"
}

/** The fields in the order the form shows them, so that the summary reads top to bottom. */
const FORM_ORDER = [
  "name",
  "eventTags",
  "isPublic",
  "primaryDate",
  "timezone",
  ...LOCATION_FIELDS,
  "virtualLocations",
  "primarySlug",
  "rsvpDescription",
  "rsvpQuestions",
  "linkPreviewDescription",
  "featuredImage",
  "images",
  "capacityEnabled",
  "capacity",
  "ticketingEnabled",
  "customColumns",
  "hostUserIds"
]

/** The API's words where a form can say it plainer. */
const FRIENDLIER: Readonly<Record<string, string>> = {
  "must be an absolute http(s) URL": "must be a full web address, starting with https:// or http://",
  "must not be empty": "must be filled in"
}

/** The messages of a refused form, each at its field, in the order of the form. */
export const fieldErrors = (error: InvalidRequest | Conflict, values: EventFormValues): ReadonlyArray<FieldError> => {
  if (error._tag === "Conflict") {
    return [{ field: "primarySlug", message: "Page address is taken by another event: choose another one, or leave it empty to make one from the name" }]
  }
  const issues = error.issues ?? []
  if (issues.length === 0) return [{ field: "name", message: error.message }]
  const rank = (path: string) => {
    const at = FORM_ORDER.indexOf(path.split(".")[0] ?? "")
    return at === -1 ? FORM_ORDER.length : at
  }
  return [...issues].sort((a, b) => rank(a.path) - rank(b.path)).map((issue) => {
    const { field, label } = labelOf(issue.path === "" ? [] : issue.path.split("."), values)
    return { field: field === "" ? "name" : field, message: `${label} ${FRIENDLIER[issue.message] ?? issue.message}` }
  })
}

const CHANGE_LABELS: Readonly<Record<string, string>> = {
  ...FIELD_LABELS,
  primarySlug: "page address",
  isPublic: "public event",
  virtualLocations: "online locations",
  eventTags: "tags",
  images: "images",
  rsvpQuestions: "questions for guests",
  capacityEnabled: "guest limit",
  ticketingEnabled: "ticketing",
  customColumns: "guest list columns",
  hostUserIds: "hosts"
}

/** What an edit changed, in words (`updatedFields` of the Event notification). */
export const describeChanges = (updatedFields: ReadonlyArray<string>) =>
  updatedFields.map((f, i) => {
    const label = CHANGE_LABELS[f] ?? f
    return i === 0 ? label.charAt(0).toUpperCase() + label.slice(1) : label.toLowerCase()
  }).join(", ")
