/** The guest-list endpoints (docs/integrators.md#guest-lists). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { CsvBody, CsvTooLarge, MAX_CSV_BYTES, MAX_CSV_ROWS } from "../Csv/CsvBody.js"
import { importSchemas } from "../Csv/ImportReport.js"
import { optional } from "../Domain/Fields.js"
import { TeamMemberAccess, ViewerAccess } from "../Auth/Access.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { Conflict, NotFound } from "../Domain/Errors.js"
import { PayloadTooLarge } from "../Http/Errors.js"
import { BooleanParam, Limit, QueryText, Skip } from "../Http/Params.js"
import { Batch, Guest, GuestRef, GuestUpdate, NewGuest } from "./Domain.js"

const IdPath = Schema.Struct({ id: Schema.String })
export const Guests = Schema.Struct({ guests: Schema.Array(Guest) }).annotations({ identifier: "GuestList" })
export const GuestSearchResult = Schema.Struct({
  guests: Schema.Array(Guest),
  total: Schema.Int,
  limit: Schema.Int,
  skip: Schema.Int
}).annotations({ identifier: "GuestSearchResult" })

/** `POST /event/:id/guestlist/import`: its answer, and the 422 of a refused import. */
export const GuestImport = importSchemas("Guest", {
  added: Schema.Int.annotations({ description: "Rows that put a guest on the list (the new contacts' included)" })
})

/** The CSV a guest-list export answers. */
export const GuestListCsv = HttpApiSchema.Text({ contentType: "text/csv" }).annotations({
  title: "Guest list CSV",
  description: "RFC 4180, UTF-8 without BOM, CRLF line ends, a header row: personId, firstName, lastName, email, phone, " +
    "company, position, rsvpStatus, attendanceStatus, dietaryRestrictions, rsvpNote, then `question:<title>` per RSVP " +
    "question (the guest's answers) and `column:<title>` per custom column of the event, then paymentStatus, " +
    "paymentAmount and donationAmount for Team Members and above on a ticketed event. Lists (dietary restrictions, " +
    "answers) are joined with `; `. A cell starting with =, +, -, @, tab or carriage return is prefixed with ' " +
    "(formula injection); an import takes the prefix off again."
})

export class GuestsApi extends HttpApiGroup.make("guests")
  .add(
    HttpApiEndpoint.get("list", "/event/:id/guestlist")
      .setPath(IdPath)
      .setUrlParams(Schema.Struct({
        personIds: optional(QueryText.annotations({
          description: "Comma-separated personIds, 1 to 100: just these guests (a change feed page's guests in one request)"
        }))
      }))
      .addSuccess(Guests)
      .addError(NotFound.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Summary, "Every guest of the event, or those with the given personIds (removed guests are not returned)")
      .annotate(
        OpenApi.Description,
        "Without `personIds`: the whole list, in the order guests were added, streamed. With `personIds`: those guests only, " +
          "in the list's order; ids that are not on the list (never added, removed, unknown) are left out, so a guest the " +
          "change feed names that is missing here is no longer on the list (docs/integrators.md#syncing-with-the-change-feed)."
      )
  )
  .add(
    HttpApiEndpoint.get("search", "/event/:id/guestlist/search")
      .setPath(IdPath)
      .setUrlParams(Schema.Struct({
        personIds: optional(QueryText.annotations({ description: "Comma-separated, at most 50" })),
        email: optional(QueryText),
        name: optional(QueryText),
        limit: optional(Limit),
        skip: optional(Skip),
        generateRsvpLinks: optional(BooleanParam)
      }))
      .addSuccess(GuestSearchResult)
      .addError(NotFound.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Summary, "Search guests by exactly one of personIds, email or name")
  )
  .add(
    HttpApiEndpoint.get("exportCsv", "/event/:id/guestlist/export")
      .setPath(IdPath)
      .addSuccess(GuestListCsv)
      .addError(NotFound.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Summary, "The guest list as CSV, streamed: Content-Disposition attachment guests-<event slug or id>-<date>.csv")
  )
  .add(
    HttpApiEndpoint.post("importCsv", "/event/:id/guestlist/import")
      .setPath(IdPath)
      .setUrlParams(Schema.Struct({
        dryRun: optional(BooleanParam.annotations({ description: "true: validate and count, write nothing" }))
      }))
      .setPayload(CsvBody)
      .addSuccess(GuestImport.Report)
      .addError(GuestImport.Rejected, { status: 422 })
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .addError(CsvTooLarge)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Summary, `Import guests from CSV (at most ${MAX_CSV_BYTES} bytes, ${MAX_CSV_ROWS} rows)`)
      .annotate(
        OpenApi.Description,
        "Columns are matched by header, whatever the case, spaces and punctuation (`First name`, `E-mail`, `RSVP status`). " +
          "Each row names a contact by email (case-insensitive, among active contacts): a known contact gets only its blank " +
          "phone, company and position filled; an unknown email creates a contact (firstName and lastName needed). The " +
          "guest is put on the list (a removed guest comes back as Invited; one on it already is not an error), then the " +
          "row's rsvpStatus, attendanceStatus, dietaryRestrictions (separated by `;`), rsvpNote and `column:<title>` " +
          "(or the title alone) custom columns are set as PUT /event/:id/guestlist sets them: every rsvpStatus given adds " +
          "a history entry by the importing caller; an empty cell changes nothing. Unknown columns (a `column:` that is not " +
          "a custom column of the event included) are listed in `unknownColumns` and ignored; personId, `question:<title>` " +
          "answers and payment columns are skipped. Rows apply in file order; row 1 is the first record after the header. " +
          "Counts: each valid row is `added` (it put the guest on the list; `created` counts those that also created the " +
          "contact), `updated` or `unchanged`. With any row error nothing is written and the answer is 422 (200 with " +
          "dryRun); otherwise the whole import is one transaction, with one GuestList webhook notification for all the " +
          "affected guests and an EventPerson notification per guest whose RSVP or attendance status changed."
      )
  )
  .add(
    HttpApiEndpoint.post("add", "/event/:id/guestlist")
      .setPath(IdPath)
      .setPayload(Batch(NewGuest))
      .addSuccess(Guests)
      .addError(NotFound.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Summary, "Add 1 to 500 guests, atomically")
  )
  .add(
    HttpApiEndpoint.put("update", "/event/:id/guestlist")
      .setPath(IdPath)
      .setPayload(Batch(GuestUpdate))
      .addSuccess(Guests)
      .addError(NotFound.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Summary, "Update RSVP and attendance of 1 to 500 guests, atomically")
  )
  .add(
    HttpApiEndpoint.del("remove", "/event/:id/guestlist")
      .setPath(IdPath)
      .setPayload(Batch(GuestRef))
      .addSuccess(Schema.Struct({ success: Schema.Literal(true) }))
      .addError(NotFound.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Summary, "Remove 1 to 500 guests, atomically")
  )
  .annotate(OpenApi.Title, "Guest lists")
{}
