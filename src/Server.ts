/** The program's edge: every layer composed once. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "./Api.js"
import { BulkRoutes } from "./Auth/Access.js"
import { AccessLive, Gate } from "./Auth/AccessLive.js"
import { ApiTokens } from "./Auth/ApiTokens.js"
import { Auth } from "./Auth/Auth.js"
import { Passwords } from "./Auth/Passwords.js"
import { AuthHttp } from "./Auth/Http.js"
import { Calendars } from "./Calendar/Calendars.js"
import { CalendarHttp } from "./Calendar/Http.js"
import { Changes } from "./Changes/Changes.js"
import { ChangesHttp } from "./Changes/Http.js"
import { ChangesRetentionLive } from "./Changes/Retention.js"
import { SessionsPurgeLive } from "./Auth/Sessions.js"
import { Ids } from "./Domain/Ids.js"
import { Events } from "./Events/Events.js"
import { EventsHttp } from "./Events/Http.js"
import { GuestLists } from "./Guests/GuestLists.js"
import { EventUpdates } from "./Guests/EventUpdates.js"
import { GuestsHttp } from "./Guests/Http.js"
import { EventHistoryLive, GuestLinksLive } from "./Guests/Ports.js"
import { WebhookSamplesLive } from "./Guests/WebhookSamples.js"
import { Idempotency } from "./Idempotency/Idempotency.js"
import { IdempotentLive } from "./Idempotency/IdempotentLive.js"
import { csvBodyRules } from "./Csv/CsvBody.js"
import { BodyRules } from "./Http/BodyRules.js"
import { ErrorMappingLive } from "./Http/ErrorMapping.js"
import { requestLifecycle } from "./Http/RequestLifecycle.js"
import { DocsLive, OpenApiLive } from "./Ops/Docs.js"
import { GuideLive } from "./Ops/Guide.js"
import { OpsHttp } from "./Ops/Http.js"
import { MetricsLive } from "./Ops/Metrics.js"
import { serveObserved, TracingLive, withSqlSpans } from "./Telemetry/Tracing.js"
import { Readiness } from "./Runtime/Readiness.js"
import { ImportSlots } from "./Csv/ImportSlots.js"
import { StreamSlots } from "./Http/StreamSlots.js"
import { BootstrapLive } from "./Auth/Bootstrap.js"
import { OrganizationsHttp } from "./Organizations/Http.js"
import { Invitations, InvitationsRetentionLive } from "./Organizations/Invitations.js"
import { EventInvitations } from "./Invitations/Invitations.js"
import { InvitationsHttp } from "./Invitations/Http.js"
import { Members } from "./Organizations/Members.js"
import { Organizations } from "./Organizations/Organizations.js"
import { PaymentsHttp } from "./Payments/Http.js"
import { Payments } from "./Payments/Payments.js"
import { CustomFields } from "./Persons/CustomFields.js"
import { CustomFieldsHttp, PersonsHttp } from "./Persons/Http.js"
import { LoggingLive } from "./Runtime/Logging.js"
import { EmailChannel, EmailChannelLive, emailReferrer } from "./Email/EmailChannel.js"
import { invitationsReferrer } from "./Invitations/Retention.js"
import { StatusMailerLive } from "./Invitations/StatusEmails.js"
import { RemindersLive } from "./Invitations/Reminders.js"
import { Channels } from "./Outbox/Channel.js"
import { DispatcherLive } from "./Outbox/Dispatcher.js"
import { DeliveryReferrers, OutboxRetentionLive } from "./Outbox/Retention.js"
import { DeliveryLog } from "./Webhooks/DeliveryLog.js"
import { WebhookChannel, WebhookChannelLive, webhookReferrer } from "./Webhooks/WebhookChannel.js"
import { Persons } from "./Persons/Persons.js"
import { PublicOrigin } from "./Runtime/PublicOrigin.js"
import { RsvpRoutesLive } from "./Web/Rsvp/Routes.js"
import { OrgRoutesLive } from "./Web/Org/Routes.js"
import { OrganizationListing } from "./Guests/OrganizationListing.js"
import { PublicRoutesLive } from "./Web/Public/Routes.js"
import { SelfRegistration } from "./SelfRegistration/SelfRegistration.js"
import { RateLimiter } from "./RateLimit/RateLimiter.js"
import { DashboardLive, WebLive } from "./Web/Dashboard.js"
import { uploadBodyRules } from "./Web/Kit/Upload.js"
import { ImportDraftsRetentionLive } from "./Web/Imports/ImportDrafts.js"
import { Rsvp } from "./Rsvp/Rsvp.js"
import { GracefulShutdownLive, NodeServerLive } from "./Shutdown.js"
import { SqlLive } from "./Db/Sql.js"
import { WebhooksHttp } from "./Webhooks/Http.js"
import { Registrations } from "./Webhooks/Registrations.js"

/** What lower features ask of higher ones (ports: ARCHITECTURE.md, "Features"), answered by the higher ones. */
const PortsLive = Layer.mergeAll(GuestLinksLive, EventHistoryLive, WebhookSamplesLive, StatusMailerLive)

/** Domain services over the database. */
export const ServicesLive = Layer.mergeAll(
  Organizations.Default,
  Members.Default,
  Invitations.Default,
  Auth.Default,
  ApiTokens.Default,
  Passwords.Default,
  Persons.Default,
  CustomFields.Default,
  Events.Default,
  GuestLists.Default,
  EventUpdates.Default,
  Payments.Default,
  Registrations.Default,
  Calendars.Default,
  Changes.Default,
  EventInvitations.Default,
  Rsvp.Default,
  SelfRegistration.Default,
  Idempotency.Default,
  PublicOrigin.Default,
  Readiness.Default,
  ImportSlots.Default,
  StreamSlots.Default,
  Ids.Default,
  DeliveryLog.Default,
  // what refers to the outbox's deliveries, deleted with them by its owner (Outbox/Retention.ts)
  DeliveryReferrers.layer(emailReferrer, webhookReferrer, invitationsReferrer)
).pipe(Layer.provide(PortsLive))

const HandlersLive = Layer.mergeAll(
  OpsHttp,
  AuthHttp,
  OrganizationsHttp,
  PersonsHttp,
  CustomFieldsHttp,
  EventsHttp,
  GuestsHttp,
  PaymentsHttp,
  WebhooksHttp,
  InvitationsHttp,
  CalendarHttp,
  ChangesHttp
)

/** The access gate, given the bulk-limited routes of the whole API. */
const GateLive = Gate.Default.pipe(Layer.provide(BulkRoutes.inApi(Api)))

const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide(HandlersLive),
  Layer.provide(AccessLive.pipe(Layer.provide(GateLive))),
  Layer.provide(IdempotentLive)
)

/** The HTTP service on a given `http.Server`, with everything it needs but the database and config. */
export const HttpLive = serveObserved(requestLifecycle).pipe(
  Layer.provide(DocsLive),
  // GET /metrics, when METRICS_TOKEN is set
  Layer.provide(MetricsLive),
  // the integrator's guide at /docs/guide, a page with the dashboard's stylesheet and headers
  Layer.provide(GuideLive.pipe(Layer.provide(WebLive))),
  Layer.provide(OpenApiLive),
  Layer.provide(RsvpRoutesLive.pipe(Layer.provide(GateLive), Layer.provide(WebLive))),
  // the organization's public face, /o/<orgSlug> and its feeds (CONTRACT §16)
  Layer.provide(OrgRoutesLive.pipe(Layer.provide([GateLive, WebLive, OrganizationListing.Default]))),
  // the events' public pages and self-registration (CONTRACT §16)
  Layer.provide(PublicRoutesLive.pipe(Layer.provide(GateLive), Layer.provide(WebLive), Layer.provide(RateLimiter.Default))),
  Layer.provide(DashboardLive),
  // the dashboard's invitations pages (registered here rather than in Web/Dashboard.ts: once only)
  // bodies are JSON but on the dashboard's uploads and the API's CSV imports (Http/BodyRules.ts)
  Layer.provide(ErrorMappingLive.pipe(Layer.provide(BodyRules.layer(uploadBodyRules, csvBodyRules(Api))))),
  Layer.provide(ApiLive),
  Layer.provide(ServicesLive),
  // the ports, for the services the dashboard's areas build themselves (Tickets, Approvals)
  Layer.provide(PortsLive),
  // the router's default refuses path parameters over 100 characters as an unknown route; a long id
  // is an unknown id (404 from its handler, after validation), like any other
  Layer.provide(HttpRouter.setRouterConfig({ maxParamLength: 16_384 })),
  HttpMiddleware.withTracerDisabledWhen(() => true)
)

/** What outlives its use is deleted by the owner of its table (CONTRACT §18, "Retention"). */
const RetentionLive = Layer.mergeAll(
  ChangesRetentionLive,
  ImportDraftsRetentionLive,
  InvitationsRetentionLive,
  SessionsPurgeLive,
  OutboxRetentionLive
)

/**
 * The outbox's dispatcher over the features' channels (Outbox/Channel.ts): the channels' resources
 * (the HTTP agent, the SMTP connections) are closed after its pool stops.
 */
const OutboxLive = DispatcherLive.pipe(
  Layer.provide(Layer.effect(Channels, Effect.all([WebhookChannel, EmailChannel]))),
  Layer.provide([WebhookChannelLive, EmailChannelLive])
)

/** The whole application over a database: what `main` runs and what tests start. */
export const AppLive = Layer.mergeAll(HttpLive, OutboxLive, RetentionLive, RemindersLive).pipe(
  Layer.provideMerge(BootstrapLive),
  Layer.provideMerge(ServicesLive),
  Layer.provideMerge(withSqlSpans(SqlLive)),
  Layer.provide(LoggingLive)
)

/**
 * The service as `npm start` runs it: shut down gracefully before anything else closes. Tracing is
 * off unless `OTEL_EXPORTER_OTLP_ENDPOINT` names where to export spans (Telemetry/Tracing.ts):
 * spans would cost time per statement for nobody.
 */
export const MainLive = GracefulShutdownLive.pipe(
  Layer.provideMerge(AppLive),
  Layer.provideMerge(NodeServerLive),
  Layer.provide(TracingLive)
)
