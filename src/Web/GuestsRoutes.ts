/**
 * An event's guest list and door check-in (docs/integrators.md#the-dashboard), over the API's own services: reading
 * needs Viewer, every write Team Member (as `POST/PUT/DELETE /event/:id/guestlist`). Writes go
 * through `GuestLists.add/update/remove`, so history entries (actor `user`) and notifications are
 * the ones the API makes; invite links are made as `guestlist/search?generateRsvpLinks=true` makes them.
 * Every write leaves a flash message and returns to the filter, search and page it came from.
 * The list's CSV export is `GET /event/:id/guestlist/export`'s file; its import runs through the
 * dashboard's import flow (ImportFlow.ts: upload, preview, confirm) over the API's import.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ApiTokens } from "../Auth/ApiTokens.js"
import { csvResponse } from "../Csv/CsvExport.js"
import type { Caller } from "../Domain/Caller.js"
import { Events } from "../Events/Events.js"
import type { EventRow } from "../Events/EventRow.js"
import { MAX_HISTORY_ENTRIES, NewGuest, RsvpStatus } from "../Guests/Domain.js"
import { GuestLists } from "../Guests/GuestLists.js"
import type { GuestImportReport } from "../Guests/GuestsCsv.js"
import { type EventColumns, eventColumnsOf, type GuestColumn, guestColumns, type GuestKey, importSpec } from "../Guests/GuestsCsvColumns.js"
import { historyOf } from "../Guests/GuestView.js"
import { formatCode, type TicketLookup, Tickets } from "../Guests/Tickets.js"
import { InvalidRequest } from "../Domain/Errors.js"
import { Members } from "../Organizations/Members.js"
import { Persons } from "../Persons/Persons.js"
import { count, dateTimeIn, plural } from "./Kit/Format.js"
import { ImportDrafts } from "./ImportDrafts.js"
import { importRoutes } from "./ImportFlow.js"
import type { ImportKind, ImportResult } from "./ImportKind.js"
import { CheckInPage, DOOR_PAGE_SIZE, doorQuery, type DoorState, type TicketScan } from "./Pages/CheckIn.js"
import {
  AddGuestsPage,
  ATTENDANCE_CHOICES,
  type AttendanceChoice,
  type EventSummary,
  GUESTS_PER_PAGE,
  GuestListPage,
  GuestPage,
  guestPath,
  type HistoryLine,
  listQuery,
  type ListState,
  type NewGuestErrors,
  type NewGuestForm
} from "./Pages/Guests.js"
import { ConfirmPage } from "./Kit/Confirm.js"
import { type Form, type Viewer, Web } from "./Web.js"

/** The most guests one form may name: a guest-list batch (1 to 500). */
const MAX_BATCH = 500
const MAX_QUERY = 200
/** Contacts shown per search on the add page. */
const CONTACTS_SHOWN = 20

const isRsvp = Schema.is(RsvpStatus)
const isAttendance = Schema.is(Schema.Literal(...ATTENDANCE_CHOICES))
const decodeNewGuest = Schema.decodeUnknownEither(NewGuest, { errors: "all" })

/** Reads one parameter from a query or a form. */
type Read = (name: string) => string

const skipOf = (value: string) => (/^\d{1,9}$/.test(value) ? Number(value) : 0)
const queryOf = (value: string) => value.trim().slice(0, MAX_QUERY)
/** Why a change that would add to a full RSVP history (Guests/Domain.ts) was refused, for `who`. */
const historyFull = (who: string) =>
  `${who} has ${MAX_HISTORY_ENTRIES.toLocaleString("en-US")} RSVP history entries already, the most a guest keeps. Nothing was changed.`

const listStateOf = (read: Read): ListState => {
  const status = read("status")
  const attendance = read("attendance")
  return {
    status: isRsvp(status) ? status : undefined,
    attendance: isAttendance(attendance) ? attendance : undefined,
    q: queryOf(read("q")),
    skip: skipOf(read("skip"))
  }
}

const doorStateOf = (read: Read): DoorState => ({ q: queryOf(read("q")), skip: skipOf(read("skip")) })

const fromForm = (form: Form): Read => (name) => form.get(name)

const queryParams = Effect.map(HttpServerRequest.ParsedSearchParams, (params): Read => (name) => {
  const value = params[name]
  return typeof value === "string" ? value : Array.isArray(value) ? value[0] ?? "" : ""
})

const pathParams = Effect.map(HttpRouter.params, (params) => ({ id: params["id"] ?? "", personId: params["personId"] ?? "" }))

const summaryOf = (event: EventRow): EventSummary => ({
  id: event.public_id,
  name: event.name,
  when: dateTimeIn(event.primary_date, event.timezone),
  timezone: event.timezone,
  slug: event.slug
})

const attendanceValue = (choice: AttendanceChoice) => (choice === "none" ? null : choice)

/** The names of at most a few guests, for a flash message. */
const someNames = (names: ReadonlyArray<string>) =>
  names.length <= 3 ? names.join(", ") : `${names.slice(0, 3).join(", ")} and ${plural(names.length - 3, "other")}`

const unique = (values: ReadonlyArray<string>) => [...new Set(values.filter((v) => v !== ""))]

/** The most of a ticket field read: a code, or a door address carrying one. */
const MAX_TICKET_INPUT = 300

/** "… is already checked in since …", in the event's time zone. */
const alreadyIn = (name: string, since: string | null, zone: string) =>
  since === null ? `${name} is already checked in. Nothing was changed.` : `${name} is already checked in since ${dateTimeIn(since, zone, false)}. Nothing was changed.`

/** What a code opened from a QR code says before anyone is checked in. */
const ticketPreview = (found: TicketLookup, opened: string, zone: string): TicketScan => {
  switch (found._tag) {
    case "Invalid":
      return { value: opened, error: "This is not a ticket code: codes have 10 letters and digits, like K7QXM-3M9PD." }
    case "Unknown":
      return { value: formatCode(found.code), error: `Unknown ticket ${formatCode(found.code)}.` }
    case "OtherEvent":
      return { value: formatCode(found.code), error: `This ticket is for ${found.eventName}, not this event.` }
    case "Removed":
      return { value: formatCode(found.code), error: `The guest of ticket ${formatCode(found.code)} is no longer on this event's guest list.` }
    case "Found":
      return found.guest.attendanceStatus === "Attended"
        ? { value: formatCode(found.code), preview: { tone: "error", message: alreadyIn(found.guest.name, found.since, zone) } }
        : {
          value: formatCode(found.code),
          preview: {
            tone: "success",
            message: `Ticket of ${found.guest.name} (RSVP ${found.guest.rsvpStatus}), not checked in yet. Press Check in to let them in.`
          }
        }
  }
}

/** What each column of a guest-list file fills, in words (the import's preview). */
const COLUMN_LABELS: Readonly<Record<GuestColumn, string>> = {
  personId: "Contact ID",
  firstName: "First name",
  lastName: "Last name",
  email: "Email",
  phone: "Phone",
  company: "Company",
  position: "Position",
  rsvpStatus: "RSVP status",
  attendanceStatus: "Attendance",
  dietaryRestrictions: "Dietary restrictions",
  rsvpNote: "Note",
  paymentStatus: "Payment status",
  paymentAmount: "Amount paid",
  donationAmount: "Donation"
}

/** What the upload page says of the columns an import reads. */
const COLUMN_HELP: Partial<Readonly<Record<GuestColumn, string>>> = {
  firstName: "First name, needed for a new contact",
  lastName: "Last name, needed for a new contact",
  email: "Email, needed on every row: it finds the contact, or makes a new one",
  phone: "Phone number, kept only when the contact has none",
  company: "Company, kept only when the contact has none",
  position: "Position, kept only when the contact has none",
  rsvpStatus: "RSVP status: Invited, Accepted, Declined, Maybe or Waitlisted",
  attendanceStatus: "Attendance: Attended or No Show",
  dietaryRestrictions: "Dietary restrictions, separated by ;",
  rsvpNote: "The guest's note"
}

/** The import's counts for the preview and the flash message, in the order they are shown. */
const importResult = (report: GuestImportReport): ImportResult => ({
  rows: report.rows,
  counts: [
    { label: "added to the list", value: report.added },
    { label: "new contacts", value: report.created },
    { label: "updated", value: report.updated },
    { label: "unchanged", value: report.unchanged }
  ],
  errors: report.errors,
  errorsOmitted: report.errorsOmitted,
  unknownColumns: report.unknownColumns
})

/** The columns the upload page lists for an event's guest list. */
const columnHelp = (columns: EventColumns) => [
  ...guestColumns.filter((c) => c.readOnly !== true).map((c) => ({
    header: c.header,
    meaning: `${COLUMN_HELP[c.key] ?? COLUMN_LABELS[c.key]}${c.aliases === undefined ? "" : ` (also: ${c.aliases.join(", ")})`}`
  })),
  ...columns.customColumns.map((title) => ({ header: `column:${title}`, meaning: `Custom column “${title}” (or its title alone)` }))
]

export const GuestsRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const guestLists = yield* GuestLists
    const events = yield* Events
    const persons = yield* Persons
    const members = yield* Members
    const tokens = yield* ApiTokens
    const tickets = yield* Tickets
    const { site } = web

    const listPath = (event: EventSummary, state: ListState) => `/app/events/${encodeURIComponent(event.id)}/guests${listQuery(state)}`
    const doorPath = (event: EventSummary, state: DoorState, extra: Record<string, string> = {}) =>
      `/app/events/${encodeURIComponent(event.id)}/checkin${doorQuery(state, extra)}`

    /** Who made a history entry, as the member reading it may know them (names of others: Admin and above, who may read members and keys). */
    const actorLabels = (viewer: Viewer) =>
      Effect.gen(function*() {
        const names = new Map<string, string>()
        if (viewer.can("Admin")) {
          for (const m of yield* members.active(viewer.organization.id)) {
            const name = [m.firstName, m.lastName].filter((s) => s !== null && s !== "").join(" ")
            names.set(`user:${m.userId}`, name === "" ? m.email : name)
          }
          for (const t of yield* tokens.apiTokens(viewer.organization.id)) names.set(`apiKey:${t.tokenId}`, t.name)
        }
        return (actorType: string, actorId: string): string => {
          if (actorType === "user") {
            if (actorId === viewer.caller.actor.id) return "You"
            const name = names.get(`user:${actorId}`)
            return name === undefined ? "A team member" : `${name} (team member)`
          }
          if (actorType === "apiKey") {
            const name = names.get(`apiKey:${actorId}`)
            return name === undefined ? "An API key" : `API key “${name}”`
          }
          if (actorType === "eventPerson") return "The guest, on the RSVP page"
          return actorType
        }
      })

    // ---- the guest list ------------------------------------------------------------------------

    yield* router.get(
      "/app/events/:id/guests",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams
          const state = listStateOf(yield* queryParams)
          const counts = yield* guestLists.counts(viewer.caller, id)
          const query = (skip: number) => ({
            rsvpStatus: state.status,
            attendance: state.attendance,
            term: state.q,
            order: "added" as const,
            limit: GUESTS_PER_PAGE,
            skip
          })
          let page = yield* guestLists.page(viewer.caller, id, query(state.skip))
          let shown = state
          if (page.guests.length === 0 && page.total > 0 && state.skip > 0) {
            // past the end (guests were removed meanwhile): the last page instead
            const last = Math.floor((page.total - 1) / GUESTS_PER_PAGE) * GUESTS_PER_PAGE
            page = yield* guestLists.page(viewer.caller, id, query(last))
            shown = { ...state, skip: last }
          }
          return web.render(GuestListPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            event: summaryOf(page.event),
            counts,
            state: shown,
            guests: page.guests,
            total: page.total,
            canWrite: viewer.can("Team Member")
          }))
        }))
    )

    /** A selection's RSVP status or attendance, or its removal (confirmed first). */
    yield* router.post(
      "/app/events/:id/guests/bulk",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams
          const state = listStateOf(fromForm(form))
          const event = summaryOf(yield* events.find(viewer.caller, id))
          const back = listPath(event, state)
          const personIds = unique(form.getAll("personId"))
          const action = form.get("action")
          const fail = (message: string) => Effect.as(web.flash(viewer, "error", message), web.redirect(back))
          if (personIds.length === 0) return yield* fail("Select at least one guest first, then choose what to do.")
          if (personIds.length > MAX_BATCH) return yield* fail(`Select at most ${MAX_BATCH} guests at a time.`)
          const notOnList = `Some of the selected guests are no longer on the list (a colleague may have removed them). Nothing was changed.`

          if (action === "remove") {
            if (form.get("confirm") !== "yes") {
              const named = personIds.length <= 50
                ? (yield* guestLists.search(viewer.caller, id, { personIds: personIds.join(","), limit: 50 }).pipe(
                  Effect.map((r) => r.guests.map((g) => g.name)),
                  Effect.catchTag("InvalidRequest", "Forbidden", () => Effect.succeed<ReadonlyArray<string>>([]))
                ))
                : []
              return web.render(ConfirmPage({
                section: "events",
                site,
                member: viewer.member,
                title: `Remove ${plural(personIds.length, "guest")}?`,
                message: `${named.length > 0 ? `${someNames(named)}: ` : ""}taken off the guest list of ${event.name}. Their contacts stay; added again later, they start as Invited.`,
                action: site.href(`/app/events/${encodeURIComponent(event.id)}/guests/bulk`),
                confirmLabel: `Remove ${plural(personIds.length, "guest")}`,
                cancel: site.href(back),
                fields: [
                  ["action", "remove"],
                  ...personIds.map((p) => ["personId", p] as const),
                  ...Object.entries({ status: state.status ?? "", attendance: state.attendance ?? "", q: state.q, skip: state.skip > 0 ? String(state.skip) : "" })
                    .filter(([, v]) => v !== "")
                ]
              }))
            }
            const removed = yield* guestLists.remove(viewer.caller, id, personIds.map((personId) => ({ personId }))).pipe(Effect.either)
            if (Either.isLeft(removed)) return yield* fail("Some of the selected guests are not known contacts. Nothing was changed.")
            const names = removed.right.guests.map((g) => g.name)
            yield* names.length === 0
              ? web.flash(viewer, "error", "None of the selected guests was on the list. Nothing was changed.")
              : web.flash(viewer, "success", `Removed ${plural(names.length, "guest")} from the list: ${someNames(names)}.`)
            return web.redirect(back)
          }

          const [kind, value = ""] = action.split(/:(.*)/s)
          if (kind === "rsvp" && isRsvp(value)) {
            const changed = yield* guestLists.update(viewer.caller, id, personIds.map((personId) => ({ personId, rsvpStatus: value }))).pipe(Effect.either)
            if (Either.isLeft(changed)) return yield* fail(changed.left._tag === "Conflict" ? historyFull("One of the selected guests") : notOnList)
            const names = changed.right.guests.map((g) => g.name)
            yield* web.flash(viewer, "success", `RSVP status set to ${value} for ${plural(names.length, "guest")}: ${someNames(names)}.`)
            return web.redirect(back)
          }
          if (kind === "attendance" && isAttendance(value)) {
            const items = personIds.map((personId) => ({ personId, attendanceStatus: attendanceValue(value) }))
            const changed = yield* guestLists.update(viewer.caller, id, items).pipe(Effect.either)
            if (Either.isLeft(changed)) return yield* fail(notOnList)
            const names = changed.right.guests.map((g) => g.name)
            const what = value === "Attended" ? "Checked in" : value === "No Show" ? "Marked as no-show" : "Attendance cleared for"
            yield* web.flash(viewer, "success", `${what} ${plural(names.length, "guest")}: ${someNames(names)}.`)
            return web.redirect(back)
          }
          return yield* fail("Choose what to do with the selected guests, then press Apply.")
        }))
    )

    // ---- CSV export and import -------------------------------------------------------------------

    // `GET /event/:id/guestlist/export` for the member: the same file, streamed, with the same headers
    yield* router.get(
      "/app/events/:id/guests/export",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams
          const { document, filename } = yield* guestLists.exportCsv(viewer.caller, id)
          return yield* csvResponse(filename, document)
        }))
    )

    /** The import of one event's guest list, as the import flow runs it (the event from the path). */
    const guestsImport = (viewer: Viewer) =>
      Effect.gen(function*() {
        const { id } = yield* pathParams
        const event = yield* events.find(viewer.caller, id)
        const columns = eventColumnsOf(event)
        const list = `/app/events/${encodeURIComponent(event.public_id)}/guests`
        // the event was found above: gone meanwhile, the import says so as a refusal of the file
        const run = (csv: string, dryRun: boolean) =>
          guestLists.importCsv(viewer.caller, event.public_id, csv, { dryRun }).pipe(
            Effect.map(importResult),
            Effect.catchTag("NotFound", () => Effect.fail(new InvalidRequest({ message: "This event no longer exists" })))
          )
        const kind: ImportKind<GuestKey, string> = {
          kind: `guests:${event.public_id}`,
          path: `${list}/import`,
          section: "events",
          title: "Import guests",
          lead: `Put people on the guest list of ${event.name} from a spreadsheet or another event service, with their RSVP status, attendance and notes.`,
          back: { href: list, label: "Guest list" },
          noun: { one: "guest", many: "guests" },
          columns: columnHelp(columns),
          notes: [
            "Each row finds a contact by email. A known contact gets only the phone, company and position it lacks: nothing it has is overwritten.",
            "An email no contact has makes a new contact, so it needs a first and a last name.",
            "Guests on the list already stay on it; the row sets what it gives. Every RSVP status given is recorded in the guest's history, by you. Empty cells change nothing.",
            "personId, question:… answers and payment columns (from an export) are skipped; columns Convene does not know are listed and ignored.",
            "Nothing is imported if any row has an error: the preview lists them all first."
          ],
          template: { href: `${list}/export`, label: "Download this guest list as a CSV file: the same columns, to start from" },
          spec: importSpec(columns),
          fills: (slot) => (slot._tag === "Column" ? COLUMN_LABELS[slot.key as GuestColumn] ?? slot.key : `Custom column “${slot.value}”`),
          dryRun: (csv) => run(csv, true),
          run: (csv) => run(csv, false),
          done: (result, filename) => ({
            message: `Imported ${plural(result.rows, "row")}${filename === "" ? "" : ` from ${filename}`} into the guest list: ` +
              result.counts.map((c) => `${count(c.value)} ${c.label}`).join(", ") + ".",
            redirect: list
          })
        }
        return kind
      })

    yield* importRoutes(router, { route: "/app/events/:id/guests/import", role: "Team Member", kindOf: guestsImport })

    // ---- adding guests -------------------------------------------------------------------------

    /** Contacts matching a name (substring) or a whole email address, and whether each is on the list. */
    const findContacts = (caller: Caller, eventId: string, term: string) =>
      Effect.gen(function*() {
        const found = yield* persons.search(caller, term.includes("@") ? { email: term, limit: CONTACTS_SHOWN } : { query: term, limit: CONTACTS_SHOWN }).pipe(
          Effect.catchTag("InvalidRequest", () => Effect.succeed({ persons: [], total: 0 }))
        )
        const ids = found.persons.map((p) => p.personId)
        const listed = ids.length === 0
          ? new Set<string>()
          : yield* guestLists.search(caller, eventId, { personIds: ids.join(","), limit: CONTACTS_SHOWN }).pipe(
            Effect.map((r) => new Set(r.guests.map((g) => g.personId))),
            Effect.catchTag("InvalidRequest", "Forbidden", () => Effect.succeed(new Set<string>()))
          )
        return {
          total: found.total,
          found: found.persons.map((p) => ({
            personId: p.personId,
            name: `${p.firstName} ${p.lastName}`,
            email: p.email,
            onList: listed.has(p.personId)
          }))
        }
      })

    const addPage = (
      viewer: Viewer,
      event: EventRow,
      contact: string,
      extra: { newGuest?: NewGuestForm; errors?: NewGuestErrors; flash?: boolean } = {}
    ) =>
      Effect.map(
        contact === "" ? Effect.succeed(undefined) : findContacts(viewer.caller, event.public_id, contact),
        (contacts) =>
          AddGuestsPage({
            site,
            member: viewer.member,
            flash: extra.flash === false ? null : viewer.flash,
            event: summaryOf(event),
            contact,
            contacts,
            ...(extra.newGuest === undefined ? {} : { newGuest: extra.newGuest }),
            ...(extra.errors === undefined ? {} : { errors: extra.errors })
          })
      )

    const addPath = (event: EventSummary, contact: string) =>
      `/app/events/${encodeURIComponent(event.id)}/guests/add${contact === "" ? "" : `?${new URLSearchParams({ contact })}`}`

    yield* router.get(
      "/app/events/:id/guests/add",
      web.page("Team Member", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams
          const contact = queryOf((yield* queryParams)("contact"))
          const event = yield* events.find(viewer.caller, id)
          return web.render(yield* addPage(viewer, event, contact))
        }))
    )

    yield* router.post(
      "/app/events/:id/guests/add",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams
          const row = yield* events.find(viewer.caller, id)
          const event = summaryOf(row)
          const contact = queryOf(form.get("contact"))
          const back = addPath(event, contact)

          if (form.get("kind") === "new") {
            const typed: NewGuestForm = { email: form.get("email"), firstName: form.get("firstName"), lastName: form.get("lastName") }
            const decoded = decodeNewGuest(typed)
            if (Either.isLeft(decoded)) {
              const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
              const errors: NewGuestErrors = {}
              // in the form's order, one message per field
              for (const [field, label] of [["email", "Email"], ["firstName", "First name"], ["lastName", "Last name"]] as const) {
                const issue = issues.find((i) => i.path[0] === field)
                if (issue !== undefined) errors[field] = `${label} ${issue.message}`
              }
              if (Object.keys(errors).length === 0) errors.email = "Give the email, first name and last name of the new guest."
              return web.render(yield* addPage(viewer, row, contact, { newGuest: typed, errors, flash: false }), 400)
            }
            const added = yield* guestLists.add(viewer.caller, id, [decoded.right]).pipe(Effect.either)
            if (Either.isLeft(added)) {
              const errors = {
                email: added.left._tag === "Conflict"
                  ? `This guest's RSVP history is full (${MAX_HISTORY_ENTRIES.toLocaleString("en-US")} entries), so they cannot be put back on the list. Nothing was changed.`
                  : "This guest could not be added (a colleague changed the list at the same moment). Please try again."
              }
              return web.render(yield* addPage(viewer, row, contact, { newGuest: typed, errors, flash: false }), 409)
            }
            const guest = added.right.guests[0]!
            if (added.right.affected.length === 0) {
              const errors = { email: `${guest.name} (${guest.email}) is already on the guest list. Nothing was changed.` }
              return web.render(yield* addPage(viewer, row, contact, { newGuest: typed, errors, flash: false }), 409)
            }
            const matched = guest.firstName !== decoded.right.firstName || guest.lastName !== decoded.right.lastName
            yield* web.flash(
              viewer,
              "success",
              matched
                ? `${guest.name} added to the guest list (your existing contact with the email ${guest.email}).`
                : `${guest.name} added to the guest list.`
            )
            return web.redirect(back)
          }

          const personIds = unique(form.getAll("personId"))
          if (personIds.length === 0) {
            yield* web.flash(viewer, "error", "Tick at least one contact to add.")
            return web.redirect(back)
          }
          if (personIds.length > MAX_BATCH) {
            yield* web.flash(viewer, "error", `Add at most ${MAX_BATCH} contacts at a time.`)
            return web.redirect(back)
          }
          const added = yield* guestLists.add(viewer.caller, id, personIds.map((personId) => ({ personId }))).pipe(Effect.either)
          if (Either.isLeft(added)) {
            yield* web.flash(
              viewer,
              "error",
              added.left._tag === "Conflict"
                ? historyFull("One of the chosen contacts")
                : "One of the chosen contacts does not exist any more. Nothing was added."
            )
            return web.redirect(back)
          }
          const change = added.right
          const isNew = new Set(change.affected)
          const newNames = change.rows.filter((r) => isNew.has(r.gid)).map((r) => `${r.first_name} ${r.last_name}`)
          const already = change.rows.filter((r) => !isNew.has(r.gid)).map((r) => `${r.first_name} ${r.last_name}`)
          const parts = [
            newNames.length > 0 ? `Added ${plural(newNames.length, "guest")}: ${someNames(newNames)}.` : "",
            already.length > 0
              ? `${someNames(already)} ${already.length === 1 ? "is" : "are"} already on the list${newNames.length === 0 ? "; nothing was changed" : ""}.`
              : ""
          ]
          yield* web.flash(viewer, newNames.length > 0 ? "success" : "error", parts.filter((p) => p !== "").join(" "))
          return web.redirect(back)
        }))
    )

    // ---- one guest -----------------------------------------------------------------------------

    yield* router.get(
      "/app/events/:id/guests/:personId",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams
          const state = listStateOf(yield* queryParams)
          const { event, guest, row } = yield* guestLists.guest(viewer.caller, id, personId)
          const by = yield* actorLabels(viewer)
          const history: Array<HistoryLine> = historyOf(row).map((h) => ({
            status: h.status,
            added: h.actionType === "added",
            by: by(h.actorType, h.actorId),
            when: dateTimeIn(h.createdAt, event.timezone),
            iso: h.createdAt
          })).reverse()
          return web.render(GuestPage({
            site,
            member: viewer.member,
            flash: viewer.flash,
            event: summaryOf(event),
            guest,
            history,
            state,
            canWrite: viewer.can("Team Member")
          }))
        }))
    )

    yield* router.post(
      "/app/events/:id/guests/:personId/rsvp",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams
          const state = listStateOf(fromForm(form))
          const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
          const event = summaryOf(row)
          const back = guestPath(event, personId, listQuery(state))
          const status = form.get("rsvpStatus")
          if (!isRsvp(status)) {
            yield* web.flash(viewer, "error", "Choose an RSVP status.")
            return web.redirect(back)
          }
          const changed = yield* guestLists.update(viewer.caller, id, [{ personId, rsvpStatus: status }]).pipe(Effect.either)
          yield* Either.isLeft(changed)
            ? web.flash(
              viewer,
              "error",
              changed.left._tag === "Conflict" ? historyFull(guest.name) : `${guest.name} is no longer on the list. Nothing was changed.`
            )
            : web.flash(viewer, "success", `RSVP status of ${guest.name} set to ${status}.`)
          return web.redirect(back)
        }))
    )

    yield* router.post(
      "/app/events/:id/guests/:personId/attendance",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams
          const state = listStateOf(fromForm(form))
          const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
          const event = summaryOf(row)
          const back = form.get("from") === "guest" ? guestPath(event, personId, listQuery(state)) : listPath(event, state)
          // not `attendance`: that is the list's filter, kept for the redirect
          const choice = form.get("attendanceStatus")
          if (!isAttendance(choice)) {
            yield* web.flash(viewer, "error", "Choose an attendance.")
            return web.redirect(back)
          }
          if ((guest.attendanceStatus ?? "none") === choice) {
            yield* web.flash(viewer, "error", `${guest.name} is ${choice === "Attended" ? "checked in" : choice === "No Show" ? "marked as no-show" : "not checked in"} already. Nothing was changed.`)
            return web.redirect(back)
          }
          const changed = yield* guestLists.update(viewer.caller, id, [{ personId, attendanceStatus: attendanceValue(choice) }]).pipe(Effect.either)
          yield* Either.isLeft(changed)
            ? web.flash(viewer, "error", `${guest.name} is no longer on the list. Nothing was changed.`)
            : web.flash(
              viewer,
              "success",
              choice === "Attended"
                ? `${guest.name} checked in.`
                : choice === "No Show"
                ? `${guest.name} marked as no-show.`
                : `Attendance of ${guest.name} cleared: not checked in.`
            )
          return web.redirect(back)
        }))
    )

    yield* router.post(
      "/app/events/:id/guests/:personId/remove",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams
          const state = listStateOf(fromForm(form))
          const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
          const event = summaryOf(row)
          if (form.get("confirm") !== "yes") {
            return web.render(ConfirmPage({
                section: "events",
              site,
              member: viewer.member,
              title: `Remove ${guest.name}?`,
              message: `${guest.name} is taken off the guest list of ${event.name}. The contact stays; added again later, they start as Invited.`,
              action: site.href(guestPath(event, personId, "/remove")),
              confirmLabel: `Remove ${guest.name}`,
              cancel: site.href(guestPath(event, personId, listQuery(state))),
              fields: Object.entries({ status: state.status ?? "", attendance: state.attendance ?? "", q: state.q, skip: state.skip > 0 ? String(state.skip) : "" })
                .filter(([, v]) => v !== "")
            }))
          }
          const removed = yield* guestLists.remove(viewer.caller, id, [{ personId }]).pipe(Effect.either)
          yield* Either.isLeft(removed)
            ? web.flash(viewer, "error", `${guest.name} could not be removed. Nothing was changed.`)
            : web.flash(viewer, "success", `${guest.name} was removed from the guest list.`)
          return web.redirect(listPath(event, state))
        }))
    )

    /** The guest's personal RSVP link, made as `guestlist/search?generateRsvpLinks=true` makes it. */
    yield* router.post(
      "/app/events/:id/guests/:personId/invite-link",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams
          const state = listStateOf(fromForm(form))
          const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
          const event = summaryOf(row)
          const back = guestPath(event, personId, listQuery(state))
          if (row.slug === null) {
            yield* web.flash(viewer, "error", "This event has no public page (no slug), so there are no invite links.")
            return web.redirect(back)
          }
          if (guest.rsvpLink !== null) {
            yield* web.flash(viewer, "success", `${guest.name} has an invite link already: it is below.`)
            return web.redirect(back)
          }
          yield* guestLists.search(viewer.caller, id, { personIds: personId, generateRsvpLinks: true, limit: 1 }).pipe(
            Effect.catchTag("InvalidRequest", () => Effect.void)
          )
          yield* web.flash(viewer, "success", `Invite link of ${guest.name} created. Copy it below.`)
          return web.redirect(back)
        }))
    )

    // ---- door check-in -------------------------------------------------------------------------

    /** The door page; `scan`: what the ticket field shows (a code opened from a QR code, or a refused one). */
    const doorPage = (viewer: Viewer, id: string, state: DoorState, last: string, scan: TicketScan) =>
      Effect.gen(function*() {
        const counts = yield* guestLists.counts(viewer.caller, id)
        const page = yield* guestLists.page(viewer.caller, id, { term: state.q, order: "name", limit: DOOR_PAGE_SIZE, skip: state.skip })
        const lastGuest = viewer.flash !== null && last !== ""
          ? yield* guestLists.guest(viewer.caller, id, last).pipe(
            Effect.map((found) => found.guest),
            Effect.catchTag("NotFound", () => Effect.succeed(undefined))
          )
          : undefined
        return CheckInPage({
          site,
          member: viewer.member,
          event: summaryOf(page.event),
          state,
          guests: page.guests,
          total: page.total,
          counts: { checkedIn: counts.attended, expected: counts.byStatus.Accepted, expectedIn: counts.attendedByStatus.Accepted },
          banner: viewer.flash === null
            ? null
            : {
              flash: viewer.flash,
              undo: lastGuest?.attendanceStatus === "Attended" ? { personId: lastGuest.personId, name: lastGuest.name } : undefined
            },
          canWrite: viewer.can("Team Member"),
          scan
        })
      })

    yield* router.get(
      "/app/events/:id/checkin",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams
          const read = yield* queryParams
          const state = doorStateOf(read)
          // a ticket's QR code opened with a phone's camera app: whose ticket it is, ready to check in
          const opened = read("ticket").slice(0, MAX_TICKET_INPUT)
          const scan: TicketScan = opened === "" || !viewer.can("Team Member")
            ? { value: "" }
            : ticketPreview(yield* tickets.lookup(viewer.caller, id, opened), opened, (yield* events.find(viewer.caller, id)).timezone)
          return web.render(yield* doorPage(viewer, id, state, read("last"), scan))
        }))
    )

    /**
     * The address a refused code's page was answered at (the form's own): reloading it, and the
     * live counts refreshing from it, lead back to the door.
     */
    yield* router.get(
      "/app/events/:id/checkin/ticket",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams
          const event = summaryOf(yield* events.find(viewer.caller, id))
          return web.redirect(doorPath(event, doorStateOf(yield* queryParams)))
        }))
    )

    /**
     * A ticket code typed, pasted or scanned at the door: the guest checked in as by one tap, or,
     * when the code is not one of this event's guests', the page again with why next to the field.
     */
    yield* router.post(
      "/app/events/:id/checkin/ticket",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams
          const state = doorStateOf(fromForm(form))
          const typed = form.get("ticket").slice(0, MAX_TICKET_INPUT)
          const refuse = (status: number, error: string, value = typed) =>
            Effect.map(doorPage(viewer, id, state, "", { value, error }), (page) => web.render(page, status))
          if (typed === "") return yield* refuse(400, "Type the ticket code, or scan the ticket's QR code.")
          const event = yield* events.find(viewer.caller, id)
          const outcome = yield* tickets.checkIn(viewer.caller, id, typed)
          switch (outcome._tag) {
            case "Invalid":
              return yield* refuse(400, `“${typed}” is not a ticket code: codes have 10 letters and digits, like K7QXM-3M9PD. Nothing was changed.`)
            case "Unknown":
              return yield* refuse(404, `Unknown ticket ${formatCode(outcome.code)}. Check the code, or find the guest by name below. Nothing was changed.`, formatCode(outcome.code))
            case "OtherEvent":
              return yield* refuse(409, `This ticket is for ${outcome.eventName}, not this event. Nothing was changed.`, formatCode(outcome.code))
            case "Removed":
              return yield* refuse(409, `The guest of ticket ${formatCode(outcome.code)} is no longer on this event's guest list. Nothing was changed.`, formatCode(outcome.code))
            case "AlreadyIn":
              yield* web.flash(viewer, "error", alreadyIn(outcome.guest.name, outcome.since, event.timezone))
              return web.redirect(doorPath(summaryOf(event), state, { last: outcome.guest.personId }))
            case "CheckedIn": {
              const answer = outcome.guest.rsvpStatus === "Accepted" ? "" : ` Their RSVP is ${outcome.guest.rsvpStatus}.`
              yield* web.flash(viewer, "success", `${outcome.guest.name} checked in.${answer}`)
              return web.redirect(doorPath(summaryOf(event), state, { last: outcome.guest.personId }))
            }
          }
        }))
    )

    /** One tap at the door: attendance `Attended` through the API's update (an `EventPerson` notification, no RSVP history). */
    yield* router.post(
      "/app/events/:id/checkin/:personId",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams
          const state = doorStateOf(fromForm(form))
          const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
          const event = summaryOf(row)
          if (guest.attendanceStatus === "Attended") {
            yield* web.flash(viewer, "error", `${guest.name} was checked in already.`)
            return web.redirect(doorPath(event, state, { last: personId }))
          }
          const changed = yield* guestLists.update(viewer.caller, id, [{ personId, attendanceStatus: "Attended" }]).pipe(Effect.either)
          yield* Either.isLeft(changed)
            ? web.flash(viewer, "error", `${guest.name} is no longer on the list.`)
            : web.flash(viewer, "success", `${guest.name} checked in.`)
          return web.redirect(doorPath(event, state, { last: personId }))
        }))
    )

    yield* router.post(
      "/app/events/:id/checkin/:personId/undo",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id, personId } = yield* pathParams
          const state = doorStateOf(fromForm(form))
          const { event: row, guest } = yield* guestLists.guest(viewer.caller, id, personId)
          const event = summaryOf(row)
          if (guest.attendanceStatus !== "Attended") {
            yield* web.flash(viewer, "error", `${guest.name} was not checked in. Nothing was changed.`)
            return web.redirect(doorPath(event, state))
          }
          const changed = yield* guestLists.update(viewer.caller, id, [{ personId, attendanceStatus: null }]).pipe(Effect.either)
          yield* Either.isLeft(changed)
            ? web.flash(viewer, "error", `${guest.name} is no longer on the list.`)
            : web.flash(viewer, "success", `Check-in of ${guest.name} undone.`)
          return web.redirect(doorPath(event, state))
        }))
    )
  })
).pipe(
  // the ticket service over the same (memoized) guest-list, event and outbox layers as the API's
  Layer.provide(Tickets.Default),
  Layer.provide(ImportDrafts.Default)
)
