/** The change feed endpoint (docs/integrators.md#syncing-with-the-change-feed). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ViewerAccess } from "../Auth/Access.js"
import { optional } from "../Domain/Fields.js"
import { CursorExpired } from "../Domain/Errors.js"
import { pageSizeUpTo, QueryText } from "../Http/Params.js"
import { ChangesPage, type ChangeType, changeTypes, DEFAULT_LIMIT, MAX_LIMIT } from "./Domain.js"

const TYPE = `(?:${changeTypes.join("|")})`

/** `types`: a comma-separated subset of person, event and guest. */
export const TypesParam = Schema.transform(
  Schema.String.pipe(Schema.pattern(new RegExp(`^\\s*${TYPE}\\s*(?:,\\s*${TYPE}\\s*)*$`), {
    message: () => "must be a comma-separated list of person, event and guest"
  })),
  Schema.Array(Schema.Literal(...changeTypes)),
  {
    strict: true,
    decode: (text) => [...new Set(text.split(",").map((t) => t.trim() as ChangeType))],
    encode: (types) => types.join(",")
  }
).annotations({ description: "A comma-separated subset of person, event and guest; all three when absent." })

export class ChangesApi extends HttpApiGroup.make("changes")
  .add(
    HttpApiEndpoint.get("list", "/changes")
      .setUrlParams(Schema.Struct({
        after: optional(QueryText.annotations({
          description: "A `nextCursor` (or a change's `cursor`) from an earlier page: the page starts after it. " +
            "Without it, the feed starts at the oldest change it keeps."
        })),
        limit: optional(pageSizeUpTo(MAX_LIMIT).annotations({ description: `Changes per page, 1 to ${MAX_LIMIT}; ${DEFAULT_LIMIT} by default.` })),
        types: optional(TypesParam)
      }))
      .addSuccess(ChangesPage)
      .addError(CursorExpired.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "changes.list")
      .annotate(OpenApi.Summary, "Changes to persons, events and guests, in commit order, after a cursor")
      .annotate(
        OpenApi.Description,
        "Every change to a person, an event or a guest of the organization is recorded in the transaction of the write " +
          "that makes it; paging with `nextCursor` sees each exactly once, in commit order, also while others write. A change " +
          "names what changed (`type`, `id`, and `eventId` for a guest) and how (`action`): fetch the current state by id " +
          "(`GET /person?ids=...`, `GET /event/{id}/guestlist?personIds=...`, `GET /event/{id}`). `nextCursor` is always " +
          "given, also when `changes` is empty: store it and ask again with it; `hasMore` says more changes are waiting now " +
          "(with `types`, a page may hold fewer than `limit` changes, even none, while `hasMore` is true). Cursors are opaque " +
          "and belong to one organization: a changed or foreign one is a 400. Changes are kept `CHANGES_RETENTION` (30 days " +
          "by default); a cursor older than that answers 410 `cursor_expired`: start again without `after` and reconcile " +
          "with the list endpoints."
      )
  )
  .annotate(OpenApi.Title, "Change feed")
{}
