/**
 * Traces (CONTRACT §19): with `OTEL_EXPORTER_OTLP_ENDPOINT` set, requests, SQL statements and
 * outbox deliveries are spans, exported over OTLP/HTTP (JSON) to `<endpoint>/v1/traces`
 * (Otlp.ts, `@effect/opentelemetry`'s OTLP tracer, loaded only then); a webhook's POST is a span
 * beneath its delivery's and carries its trace in `traceparent`. Unset, tracing is off as before:
 * no span is made, no OpenTelemetry module is read, and requests pass through as they did (the
 * router's route for `/metrics` goes to `routeRecorder`, Requests.ts).
 *
 * - a request: `GET /person/:id` once its route is known (`http.route`, `http.response.status_code`,
 *   `url.path` as the logs write it, secret segments `[redacted]`), a child of the caller's trace
 *   when it sent `traceparent`;
 * - a statement: `sql.execute` with its text (placeholders, never values): `@effect/sql`'s own,
 *   and the repositories' direct statements (`DirectSql`), wrapped here;
 * - a delivery attempt: `outbox.deliver webhook` (Deliveries.ts), the root of its trace.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import type * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppConfig } from "../Config/AppConfig.js"
import { DirectSql, type DirectSqlShape } from "../Db/DirectSql.js"
import { loggedPath } from "../Http/RequestLifecycle.js"
import { RouteRecorderLive } from "./Requests.js"

/** The tracer: OTLP's when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else none (tracing off). */
export const TracingLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { instanceId, otlpEndpoint } = yield* AppConfig
  if (Option.isNone(otlpEndpoint)) return Layer.setTracerEnabled(false)
  const { otlpTracing } = yield* Effect.promise(() => import("./Otlp.js"))
  return otlpTracing({ url: `${otlpEndpoint.value}/v1/traces`, instanceId })
}))

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Each request in a span of its own, named, given its route and status by `observeRequest` (Requests.ts). */
const requestSpans = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.useSpan(
      `http.server ${request.method}`,
      { kind: "server", captureStackTrace: false, parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)) },
      (span) => {
        span.attribute("http.request.method", request.method)
        span.attribute("url.path", loggedPath(pathOf(request.url)))
        return Effect.withParentSpan(app, span)
      }
    ))

/** `HttpApiBuilder.serve(middleware)`, each request in a span when tracing is on. */
export const serveObserved = <R>(middleware: (app: HttpApp.Default) => HttpApp.Default<never, R>) =>
  Layer.unwrapEffect(Effect.map(AppConfig, ({ otlpEndpoint }) =>
    Option.isNone(otlpEndpoint)
      ? HttpApiBuilder.serve(middleware).pipe(Layer.provide(RouteRecorderLive))
      : HttpApiBuilder.serve((app) => requestSpans(middleware(app)))))

/** The repositories' direct statements, each in a span, as `@effect/sql`'s own statements are. */
const spannedDirectSql = (direct: DirectSqlShape, system: string): DirectSqlShape => {
  const spanned = <A, E>(statement: Statement.Statement<unknown>, run: Effect.Effect<A, E>) =>
    Effect.useSpan(
      "sql.execute",
      { kind: "client", captureStackTrace: false, attributes: { "db.system.name": system, "db.query.text": statement.compile()[0] } },
      () => run
    )
  return {
    ...direct,
    rows: (schema, statement) => spanned(statement, direct.rows(schema, statement)),
    first: (schema, statement) => spanned(statement, direct.first(schema, statement)),
    unchecked: {
      rows: (statement) => spanned(statement, direct.unchecked.rows(statement)),
      first: (statement) => spanned(statement, direct.unchecked.first(statement))
    },
    run: (statement) => spanned(statement, direct.run(statement)),
    insert: (statement) => spanned(statement, direct.insert(statement))
  }
}

/** The database's layer, its direct statements traced when tracing is on. */
export const withSqlSpans = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R | AppConfig> =>
  Layer.unwrapEffect(Effect.map(AppConfig, ({ databaseUrl, otlpEndpoint }) =>
    Option.isNone(otlpEndpoint)
      ? layer
      : Layer.map(layer, (context) => {
        const direct = Context.getOption(context as Context.Context<unknown>, DirectSql)
        return Option.isNone(direct)
          ? context
          : Context.add(context, DirectSql, spannedDirectSql(direct.value, Option.isSome(databaseUrl) ? "postgresql" : "sqlite")) as Context.Context<A>
      })))
