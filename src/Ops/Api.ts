/** Unauthenticated operational endpoints (docs/integrators.md#operations); not rate limited. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { Unavailable } from "../Domain/Errors.js"

const Status = Schema.Struct({ status: Schema.Literal("ok") })

export class OpsApi extends HttpApiGroup.make("ops")
  .add(
    HttpApiEndpoint.get("healthz", "/healthz")
      .addSuccess(Status)
      .annotate(OpenApi.Identifier, "ops.healthz")
      .annotate(OpenApi.Summary, "The process is up")
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Status)
      .addError(Unavailable.Wire)
      .annotate(OpenApi.Identifier, "ops.readyz")
      .annotate(OpenApi.Summary, "The database is reachable and migrated; 503 while shutting down")
  )
  .annotate(OpenApi.Title, "Operations")
{}
