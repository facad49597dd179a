/** The event form's refusals in words, each at its field in the form's order, and what an edit changed. */
import type { Conflict, InvalidRequest } from "../../Domain/Errors.js"
import { plainer } from "../Kit/Body.js"
import { type EventFormValues, type FieldError, lines, LOCATION_FIELDS } from "./FormValues.js"

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
    case "reminders":
      return { field: "reminders", label: index === undefined ? "Reminders" : `Reminder ${n}` }
    default:
      return { field: head, label: FIELD_LABELS[head] ?? head }
  }
}

export const FIELD_LABELS: Readonly<Record<string, string>> = {
  name: "Name",
  primaryDate: "Date and time",
  endDate: "End",
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
  capacity: "Capacity",
  registrationClosesAt: "Registration closes",
  replyTo: "Reply-to email"
}

/** The fields in the order the form shows them, so that the summary reads top to bottom. */
const FORM_ORDER = [
  "name",
  "eventTags",
  "isPublic",
  "primaryDate",
  "endDate",
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
  "registrationOpen",
  "registrationClosesAt",
  "registrationApproval",
  "reminders",
  "replyTo",
  "customColumns",
  "hostUserIds"
]

/** The API's names of the dates as the form calls them (the order of the start and the end). */
const inFormWords = (message: string) =>
  message.replace(/^must be after primaryDate$/, "must be after the start").replace(/^must be before the event's endDate \(.*\)$/, "must be before the end")

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
    return { field: field === "" ? "name" : field, message: `${label} ${inFormWords(plainer(issue.message))}` }
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
  hostUserIds: "hosts",
  endDate: "end",
  registrationOpen: "registration open",
  registrationClosesAt: "registration closing time",
  registrationApproval: "approval of registrations",
  reminders: "reminders",
  replyTo: "reply-to email"
}

/** What an edit changed, in words (`updatedFields` of the Event notification). */
export const describeChanges = (updatedFields: ReadonlyArray<string>) =>
  updatedFields.map((f, i) => {
    const label = CHANGE_LABELS[f] ?? f
    return i === 0 ? label.charAt(0).toUpperCase() + label.slice(1) : label.toLowerCase()
  }).join(", ")
