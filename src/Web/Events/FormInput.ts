/**
 * The event form's values as the `CreateEvent` / `UpdateEvent` input of `POST` and
 * `PATCH /event`, decoded with the same schemas (Kit/Body.ts), so the form refuses what the API
 * refuses, at the same paths.
 */
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { blankToNull } from "../../Domain/Fields.js"
import { type InvalidRequest, Issue } from "../../Domain/Errors.js"
import { CreateEvent, type Event, UpdateEvent } from "../../Events/Domain.js"
import { slugify } from "../../Events/EventMapping.js"
import { decodeBody } from "../Kit/Body.js"
import { wallTimeToIso } from "../Kit/Format.js"
import { type EventFormValues, isTimeZone, lines, LOCATION_FIELDS } from "./FormValues.js"

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
  /** An optional time typed in the event's zone: null when empty, undefined (and an issue) when no time. */
  const optionalTime = (path: "endDate" | "registrationClosesAt") => {
    const typed = values[path]
    if (typed === "" || !isTimeZone(values.timezone)) return typed === "" ? null : undefined
    const iso = wallTimeToIso(typed, values.timezone)
    if (iso === undefined) issues.push(new Issue({ path, message: "must be a real date and time" }))
    return iso
  }
  const endDate = optionalTime("endDate")
  const registrationClosesAt = optionalTime("registrationClosesAt")
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
    hostUserIds: values.hostUserIds,
    endDate,
    registrationOpen: values.registrationOpen,
    registrationClosesAt,
    registrationApproval: values.registrationApproval,
    reminders: values.reminders,
    replyTo: blankToNull(values.replyTo)
  }
  return { fields, issues }
}

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
  return decodeBody(CreateEvent, { ...given, ...slug }, issues)
}

const sameRows = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The fields typed as times in the event's zone. */
type Time = "primaryDate" | "endDate" | "registrationClosesAt"
const TIME_FIELDS: ReadonlyArray<Time> = ["primaryDate", "endDate", "registrationClosesAt"]
const TIMES: ReadonlyArray<string> = TIME_FIELDS

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
    if (TIMES.includes(key)) continue
    const mine = key === "capacity" ? values.capacity : values[key as keyof EventFormValues]
    const before = key === "capacity" ? original.capacity : original[key as keyof EventFormValues]
    const differs = key === "hostUserIds"
      ? !sameRows([...values.hostUserIds].sort(), [...original.hostUserIds].sort())
      : !sameRows(mine, before)
    if (differs) changed[key] = fields[key]
  }
  // times are typed as wall-clock times in the event's zone: a new zone moves the moments too,
  // unless they stay the same instants (a zone with the same offset)
  const untyped: Array<string> = []
  for (const key of TIME_FIELDS) {
    const typed = values[key] !== original[key] || values.timezone !== original.timezone
    const given = fields[key]
    const stored = current[key]
    const moved = given === undefined || given === null || stored === null ? given !== stored : Date.parse(given) !== Date.parse(stored)
    if (typed && moved) changed[key] = given
    if (!typed) untyped.push(key)
  }
  const earlyIssues = issues.filter((i) => !untyped.includes(i.path))
  const slugChanged = values.noPublicPage !== original.noPublicPage || values.primarySlug !== original.primarySlug
  if (slugChanged) {
    changed["primarySlug"] = values.noPublicPage ? null : values.primarySlug === "" ? slug : values.primarySlug
  }
  return decodeBody(UpdateEvent, withoutUndefined(changed), earlyIssues.filter((i) => i.path in changed || TIMES.includes(i.path)))
}

/** Whether an edit would change nothing at all. */
export const isEmptyUpdate = (input: UpdateEvent) => Object.keys(input).length === 0

/** The address an edit form makes from the name: the event's own when the name still gives it. */
export const generatedSlugFor = (values: EventFormValues, current: Event) => {
  const name = values.name === "" ? current.name : values.name
  return current.primarySlug !== null && slugify(name) === current.primarySlug ? Option.some(current.primarySlug) : Option.none<string>()
}
