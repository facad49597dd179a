/** The event endpoints (docs/integrators.md#events). */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { optional } from "../Domain/Fields.js"
import { AdminAccess, ViewerAccess } from "../Auth/Access.js"
import { Idempotent } from "../Idempotency/Idempotent.js"
import { Conflict, NotFound } from "../Domain/Errors.js"
import { PayloadTooLarge } from "../Http/Errors.js"
import { BooleanParam, Limit, Skip } from "../Http/Params.js"
import { CreateEvent, Event, UpdateEvent } from "./Domain.js"

const ListParams = Schema.Struct({
  limit: optional(Limit),
  skip: optional(Skip),
  includePastEvents: optional(BooleanParam),
  showOrganizationEvents: optional(BooleanParam)
})
const EventList = Schema.Struct({ events: Schema.Array(Event) })
const IdPath = Schema.Struct({ id: Schema.String })

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/event")
      .setUrlParams(ListParams)
      .addSuccess(EventList)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "events.list")
      .annotate(OpenApi.Summary, "Upcoming events (past ones with includePastEvents), by date")
  )
  .add(
    HttpApiEndpoint.get("listAlias", "/events")
      .setUrlParams(ListParams)
      .addSuccess(EventList)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "events.listAlias")
      .annotate(OpenApi.Summary, "Alias of GET /event")
  )
  .add(
    HttpApiEndpoint.post("create", "/event")
      .setPayload(CreateEvent)
      .addSuccess(Event)
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "events.create")
      .annotate(OpenApi.Summary, "Create an event (extension)")
  )
  .add(
    HttpApiEndpoint.get("get", "/event/:id")
      .setPath(IdPath)
      .addSuccess(Event)
      .addError(NotFound.Wire)
      .middleware(ViewerAccess)
      .annotate(OpenApi.Identifier, "events.get")
      .annotate(OpenApi.Summary, "One event (extension)")
  )
  .add(
    HttpApiEndpoint.patch("update", "/event/:id")
      .setPath(IdPath)
      .setPayload(UpdateEvent)
      .addSuccess(Event)
      .addError(NotFound.Wire)
      .addError(Conflict.Wire)
      .addError(PayloadTooLarge.Wire)
      .middleware(Idempotent)
      .middleware(AdminAccess)
      .annotate(OpenApi.Identifier, "events.update")
      .annotate(OpenApi.Summary, "Update an event partially; emits an Event notification when something changed (extension)")
  )
  .annotate(OpenApi.Title, "Events")
{}
