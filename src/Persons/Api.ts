/** The persons endpoints (docs/integrators.md#persons). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { CsvBody, CsvTooLarge, MAX_CSV_BYTES, MAX_CSV_ROWS } from "../Csv/CsvBody.js"
import { importSchemas } from "../Csv/ImportReport.js"
import { optional } from "../Domain/Fields.js"
import { AdminAccess, BulkRateLimited, TeamMemberAccess, ViewerAccess } from "../Auth/Access.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { Conflict, NotFound } from "../Domain/Errors.js"
import { PayloadTooLarge } from "../Http/Errors.js"
import { BooleanParam, Limit, QueryText, Skip } from "../Http/Params.js"
import { CreateCustomField, CreatePerson, CustomFieldDefinition, MAX_IDS, Person, PersonDetail, UpdatePerson } from "./Domain.js"

const IdPath = Schema.Struct({ id: Schema.String })
const Success = Schema.Struct({ success: Schema.Literal(true) })

export const BulkResult = Schema.Union(
  Schema.Struct({ personId: Schema.NullOr(Schema.String), success: Schema.Literal(true) }),
  Schema.Struct({
    personId: Schema.NullOr(Schema.String),
    success: Schema.Literal(false),
    error: Schema.Struct({ message: Schema.String, code: Schema.Literal("not_found", "conflict", "invalid_request") })
  })
).annotations({ identifier: "BulkPersonResult" })

const BulkUpdateResults = Schema.Struct({ results: Schema.Array(BulkResult) }).annotations({
  examples: [{
    results: [
      { personId: "f8a64a54-f28c-4234-8ab3-1335fdf45bad", success: true },
      {
        personId: "5c4da3e8-db21-48b0-a419-c3479dc81e7e",
        success: false,
        error: { message: "An active person with email ada@example.com exists", code: "conflict" }
      }
    ]
  }]
})

/** `POST /person/import`: its answer, and the 422 of a refused import. */
export const PersonImport = importSchemas("Person", {})

/** The CSV a contacts export answers. */
export const ContactsCsv = HttpApiSchema.Text({ contentType: "text/csv" }).annotations({
  title: "Contacts CSV",
  description: "RFC 4180, UTF-8 without BOM, CRLF line ends, a header row: personId, firstName, lastName, email, phone, " +
    "company, position, birthday, address, apartment, city, state, country, postalCode, profilePicture, contextNote, " +
    "archived, createdAt, then `custom:<field name>` per custom field (multiselect values joined with `; `). " +
    "A cell starting with =, +, -, @, tab or carriage return is prefixed with ' (formula injection); an import takes the prefix off again."
})

export class PersonsApi extends HttpApiGroup.make("persons")
  .add(
    HttpApiEndpoint.get("list", "/person")
      .setUrlParams(Schema.Struct({
        ids: optional(QueryText.annotations({
          description: `Comma-separated personIds, 1 to ${MAX_IDS}: just these persons (archived ones included), not a page. ` +
            "Not with limit or skip."
        })),
        limit: optional(Limit),
        skip: optional(Skip)
      }))
      .addSuccess(Schema.Struct({ persons: Schema.Array(Person) }))
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "persons.list")
      .annotate(OpenApi.Summary, "List active persons, in creation order; or the persons with the given ids")
      .annotate(
        OpenApi.Description,
        "Without `ids`: a page of the active persons. With `ids` (what a change feed page names, " +
          "docs/integrators.md#syncing-with-the-change-feed): the persons with those ids in creation order, archived ones " +
          "included with `archived: true`; ids that name no person of the organization are left out. `ids` with `limit` " +
          "or `skip` is a 400."
      )
  )
  .add(
    HttpApiEndpoint.get("search", "/person/search")
      .setUrlParams(Schema.Struct({
        query: optional(QueryText),
        email: optional(QueryText),
        includeArchived: optional(BooleanParam),
        limit: optional(Limit),
        skip: optional(Skip)
      }))
      .addSuccess(Schema.Struct({
        persons: Schema.Array(Person),
        total: Schema.Int,
        limit: Schema.Int,
        skip: Schema.Int
      }))
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "persons.search")
      .annotate(OpenApi.Summary, "Search persons by name (substring) or email (exact); exactly one of query or email")
  )
  .add(
    HttpApiEndpoint.get("exportCsv", "/person/export")
      .setUrlParams(Schema.Struct({
        archived: optional(BooleanParam.annotations({ description: "true: the archived persons instead of the active ones" }))
      }))
      .addSuccess(ContactsCsv)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "persons.exportCsv")
      .annotate(OpenApi.Summary, "Every active (or archived) person as CSV, streamed: Content-Disposition attachment contacts-<slug>-<date>.csv")
  )
  .add(
    HttpApiEndpoint.post("importCsv", "/person/import")
      .setUrlParams(Schema.Struct({
        dryRun: optional(BooleanParam.annotations({ description: "true: validate and count, write nothing" }))
      }))
      .setPayload(CsvBody)
      .addSuccess(PersonImport.Report)
      .addError(PersonImport.Rejected, { status: 422 })
      .addError(Conflict.Wire)
      .addError(CsvTooLarge)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Identifier, "persons.importCsv")
      .annotate(OpenApi.Summary, `Import contacts from CSV (at most ${MAX_CSV_BYTES} bytes, ${MAX_CSV_ROWS} rows)`)
      .annotate(
        OpenApi.Description,
        "Columns are matched by header, whatever the case, spaces and punctuation (`First name`, `first_name`, `E-mail`); " +
          "`custom:<field name>` (or the field's name alone) sets a custom field through the rules of PUT /person/:id " +
          "(multiselect: values separated by `;`). Unknown columns are listed in `unknownColumns` and ignored; personId, " +
          "archived and createdAt are skipped. A row whose email (case-insensitive) belongs to an active person fills only " +
          "that person's blank fields; any other row creates a person (firstName and lastName needed). Rows apply in file " +
          "order. Row 1 is the first record after the header. With any row error nothing is written and the answer is 422 " +
          "(200 with dryRun); otherwise the whole import is one transaction."
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/person")
      .setPayload(CreatePerson)
      .addSuccess(
        Schema.Struct({ personId: Schema.String }).annotations({ examples: [{ personId: "f8a64a54-f28c-4234-8ab3-1335fdf45bad" }] }),
        { status: 201 }
      )
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Identifier, "persons.create")
      .annotate(OpenApi.Summary, "Create a person; 409 when an active person has the email")
  )
  .add(
    HttpApiEndpoint.get("get", "/person/:id")
      .setPath(IdPath)
      .addSuccess(PersonDetail)
      .addError(NotFound.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "persons.get")
      .annotate(OpenApi.Summary, "One person with custom fields and event history")
  )
  .add(
    HttpApiEndpoint.put("update", "/person/:id")
      .setPath(IdPath)
      .setPayload(UpdatePerson)
      .addSuccess(Success)
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Identifier, "persons.update")
      .annotate(OpenApi.Summary, "Update a person; body personId must equal the path id")
  )
  .add(
    HttpApiEndpoint.put("bulkUpdate", "/persons")
      .setPayload(Schema.Struct({
        persons: Schema.Array(Schema.Unknown.annotations({
          title: "UpdatePerson",
          description: "An update object as for PUT /person/:id, with personId. Each item succeeds or fails on its own."
        })).pipe(Schema.minItems(1), Schema.maxItems(100))
      }).annotations({
        examples: [{
          persons: [
            { personId: "f8a64a54-f28c-4234-8ab3-1335fdf45bad", company: "Analytical Engines Ltd" },
            { personId: "5c4da3e8-db21-48b0-a419-c3479dc81e7e", email: "ada@example.com" }
          ]
        }]
      }))
      .addSuccess(BulkUpdateResults)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(BulkRateLimited, true)
      .annotate(OpenApi.Identifier, "persons.bulkUpdate")
      .annotate(OpenApi.Summary, "Update up to 100 persons; also limited by the bulk rate limit")
  )
  .add(
    HttpApiEndpoint.del("archive", "/person/:id")
      .setPath(IdPath)
      .addSuccess(Success)
      .addError(NotFound.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Identifier, "persons.archive")
      .annotate(OpenApi.Summary, "Archive a person (extension)")
  )
  .add(
    HttpApiEndpoint.post("unarchive", "/person/:id/unarchive")
      .setPath(IdPath)
      .addSuccess(Success)
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .middleware(Idempotent)
      .middleware(TeamMemberAccess)
      .annotate(OpenApi.Identifier, "persons.unarchive")
      .annotate(OpenApi.Summary, "Restore an archived person; 409 when the email is taken meanwhile (extension)")
  )
  .annotate(OpenApi.Title, "Persons")
{}

export class CustomFieldsApi extends HttpApiGroup.make("customFields")
  .add(
    HttpApiEndpoint.post("create", "/custom-field")
      .setPayload(CreateCustomField)
      .addSuccess(CustomFieldDefinition)
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "customFields.create")
      .annotate(OpenApi.Summary, "Define a custom field for the organization (extension)")
  )
  .add(
    HttpApiEndpoint.get("list", "/custom-field")
      .addSuccess(Schema.Struct({ customFields: Schema.Array(CustomFieldDefinition) }))
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "customFields.list")
      .annotate(OpenApi.Summary, "The organization's custom-field definitions (extension)")
  )
  .annotate(OpenApi.Title, "Custom fields")
{}

