/**
 * An event's guest list as a CSV file: `GET /event/:id/guestlist/export`'s file for the member, and
 * its import through the dashboard's import flow (Imports: upload, preview, confirm) over the API's
 * import, with the columns an import reads said in words.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { csvResponse } from "../../Csv/CsvExport.js"
import { InvalidRequest } from "../../Domain/Errors.js"
import { Events } from "../../Events/Events.js"
import { RsvpStatus } from "../../Guests/Domain.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import type { GuestImportReport } from "../../Guests/GuestsCsv.js"
import { type EventColumns, eventColumnsOf, type GuestColumn, guestColumns, type GuestKey, importSpec } from "../../Guests/GuestsCsvColumns.js"
import { importRoutes } from "../Imports/Flow.js"
import { FIELD_LABELS } from "../Contacts/FormValues.js"
import { type ImportKind, type ImportResult, resultOf } from "../Imports/ImportKind.js"
import { pathParams } from "../Kit/Form.js"
import { count, plural } from "../Kit/Format.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"

/** What each column of a guest-list file fills, in words (the import's preview). */
const COLUMN_LABELS: Readonly<Record<GuestColumn, string>> = {
  personId: "Contact ID",
  firstName: FIELD_LABELS.firstName,
  lastName: FIELD_LABELS.lastName,
  email: FIELD_LABELS.email,
  phone: FIELD_LABELS.phone,
  company: FIELD_LABELS.company,
  position: FIELD_LABELS.position,
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
  rsvpStatus: `RSVP status: ${RsvpStatus.literals.slice(0, -1).join(", ")} or ${RsvpStatus.literals.at(-1)}`,
  attendanceStatus: "Attendance: Attended or No Show",
  dietaryRestrictions: "Dietary restrictions, separated by ;",
  rsvpNote: "The guest's note"
}

/** The import's counts for the preview and the flash message, in the order they are shown. */
const importResult = (report: GuestImportReport): ImportResult =>
  resultOf(report, [
    { label: "added to the list", value: report.added },
    { label: "new contacts", value: report.created },
    { label: "updated", value: report.updated },
    { label: "unchanged", value: report.unchanged }
  ])

/** The columns the upload page lists for an event's guest list. */
const columnHelp = (columns: EventColumns) => [
  ...guestColumns.filter((c) => c.readOnly !== true).map((c) => ({
    header: c.header,
    meaning: `${COLUMN_HELP[c.key] ?? COLUMN_LABELS[c.key]}${c.aliases === undefined ? "" : ` (also: ${c.aliases.join(", ")})`}`
  })),
  ...columns.customColumns.map((title) => ({ header: `column:${title}`, meaning: `Custom column “${title}” (or its title alone)` }))
]

export const ImportRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const guestLists = yield* GuestLists
    const events = yield* Events

    // `GET /event/:id/guestlist/export` for the member: the same file, streamed, with the same headers
    yield* router.get(
      "/app/events/:id/guests/export",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const { document, filename } = yield* guestLists.exportCsv(viewer.caller, id)
          return yield* csvResponse(filename, document)
        }))
    )

    /** The import of one event's guest list, as the import flow runs it (the event from the path). */
    const guestsImport = (viewer: Viewer) =>
      Effect.gen(function*() {
        const { id } = yield* pathParams("id")
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
  })
)
