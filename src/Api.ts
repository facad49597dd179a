/**
 * The whole API: the groups of every feature, joined onto `ApiBase` (the API's id and the errors
 * any endpoint can answer). The server, `/openapi.json` and `/docs` all come from it. Only the
 * composition imports it (src/Server.ts; and src/Client/, its typed client): the features build
 * their handlers against their own group (ARCHITECTURE.md).
 *
 * Every endpoint names its `operationId` itself with `OpenApi.Identifier`, as `<group>.<name>`
 * (`persons.list`, `webhooks.retry`): client generators turn operationIds into method names, so an
 * id must never follow a rename in the code. Keep the id of a published operation as it is;
 * test/api/openapi.test.ts pins them all.
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { AuthApi } from "./Auth/Api.js"
import { CalendarApi } from "./Calendar/Api.js"
import { ChangesApi } from "./Changes/Api.js"
import { InvitationsApi } from "./Invitations/Api.js"
import { EventsApi } from "./Events/Api.js"
import { GuestsApi } from "./Guests/Api.js"
import { ApiBase } from "./Http/ApiBase.js"
import { completeOpenApi } from "./Http/OpenApiDocument.js"
import { OpsApi } from "./Ops/Api.js"
import { OrganizationsApi } from "./Organizations/Api.js"
import { PaymentsApi } from "./Payments/Api.js"
import { CustomFieldsApi, PersonsApi } from "./Persons/Api.js"
import { WebhooksApi } from "./Webhooks/Api.js"

export class Api extends ApiBase
  .add(OpsApi)
  .add(AuthApi)
  .add(OrganizationsApi)
  .add(PersonsApi)
  .add(CustomFieldsApi)
  .add(EventsApi)
  .add(GuestsApi)
  .add(PaymentsApi)
  .add(WebhooksApi)
  .add(InvitationsApi)
  .add(CalendarApi)
  .add(ChangesApi)
  .annotate(OpenApi.Title, "Convene")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "Self-hosted event management: contacts, events, guest lists, invitations by email, calendar files and webhooks. " +
      "Authenticate with `x-api-key: <API token>`, or with `Authorization: Bearer <access token>` " +
      "from POST /login plus an `organizationSlug` header.\n\n" +
      "This reference lists every operation with its exact shapes. The **[integrator's guide](docs/guide)** " +
      "(`/docs/guide` on this server, `docs/integrators.md` in the source) explains the rest: roles, errors and " +
      "the order of checks, rate limits, pagination, idempotency keys, what each resource's fields mean, webhooks " +
      "and how to verify their signatures, syncing with the change feed, CSV, email invitations, calendar files and the RSVP page."
  )
  .annotate(OpenApi.Transform, completeOpenApi)
{}
