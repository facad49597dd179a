/** The guest-list endpoints (reference "Events" table and rules, CONTRACT §7). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { optional } from "../Domain/Fields.js"
import { TeamMemberAccess, ViewerAccess } from "../Auth/Access.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { NotFound, PayloadTooLarge } from "../Http/Errors.js"
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

export class GuestsApi extends HttpApiGroup.make("guests")
  .add(
    HttpApiEndpoint.get("list", "/event/:id/guestlist")
      .setPath(IdPath)
      .addSuccess(Guests)
      .addError(NotFound.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Summary, "Every guest of the event (removed guests are not returned)")
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
