/**
 * A request answered, counted for `/metrics` by its route pattern (`GET /person/:id` counts as
 * `/person/:id`, never as the path it was asked for), method and status, and timed
 * (Metrics.ts). The request lifecycle (Http/RequestLifecycle.ts) calls `observeRequest` once per
 * request, synchronously, before it writes the request's log line.
 *
 * The route (RequestMeta `route`, which the log line carries too): the access gate records it for
 * the API's routes; for the others (the dashboard, the docs, the RSVP pages, `/healthz`) the
 * router gives it to the request's parent span (`http.route`, as OpenTelemetry names it) when it
 * matches one. With tracing on (Tracing.ts) that is the request's own span, read at the end; with
 * tracing off, `routeRecorder` stands in for one, provided once to every request (`HttpLive`,
 * src/Server.ts), and records it at once: a span made per request would cost every request a
 * copy of its context.
 */
import * as Context from "effect/Context"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type RequestMetaShape, requestMetaOf } from "../Http/RequestMeta.js"
import { countRequest } from "./Metrics.js"

/**
 * A span in name only, the parent of every request while tracing is off: the router tells it the
 * route it matched (`http.route`), and it records that as the route of the request whose fiber is
 * running. Spans made beneath it are not propagated (`DisablePropagation`).
 */
export const routeRecorder: Tracer.Span = {
  _tag: "Span",
  name: "convene.request",
  spanId: "0000000000000000",
  traceId: "00000000000000000000000000000000",
  parent: Option.none(),
  context: Context.make(Tracer.DisablePropagation, true),
  status: { _tag: "Started", startTime: BigInt(0) },
  attributes: new Map(),
  links: [],
  sampled: false,
  kind: "internal",
  end: () => {},
  attribute: (key, value) => {
    if (key !== "http.route" || typeof value !== "string") return
    const fiber = Fiber.getCurrentFiber()
    if (fiber._tag === "None") return
    const request = Context.getOption(fiber.value.currentContext, HttpServerRequest.HttpServerRequest)
    if (request._tag === "None") return
    const meta = requestMetaOf(request.value)
    if (meta !== undefined && meta.route === undefined) meta.route = `${request.value.method} ${value}`
  },
  event: () => {},
  addLinks: () => {}
}

/** `routeRecorder` as every request's parent span (tracing off). */
export const RouteRecorderLive = Layer.succeed(Tracer.ParentSpan, routeRecorder)

/**
 * The route pattern a request matched (`/person/:id`): recorded as it was matched (`METHOD
 * /pattern`), or told to the request's own span (tracing on), then recorded.
 */
const routeOf = (method: string, meta: RequestMetaShape, span: Tracer.AnySpan | undefined): string | undefined => {
  if (meta.route === undefined && span?._tag === "Span" && span !== routeRecorder) {
    const route = span.attributes.get("http.route")
    if (typeof route === "string") meta.route = `${method} ${route}`
  }
  return meta.route?.slice(meta.route.indexOf(" ") + 1)
}

/**
 * Counts and times a request that ended with `status` after `seconds`, in the fiber that served it
 * (`ended`); a request span of its own (tracing on) is given its route and status, and named by
 * them (`GET /person/:id`).
 */
export const observeRequest = (
  ended: Fiber.RuntimeFiber<unknown, unknown>,
  method: string,
  meta: RequestMetaShape,
  status: number,
  seconds: number
): void => {
  const span = Option.getOrUndefined(Context.getOption(ended.currentContext, Tracer.ParentSpan))
  const route = routeOf(method, meta, span)
  countRequest(route ?? "unmatched", method, status, seconds)
  if (span?._tag !== "Span" || span === routeRecorder) return
  span.attribute("http.response.status_code", status)
  if (route === undefined) return
  span.attribute("http.route", route)
  // the span's name, once its route is known (OpenTelemetry's `{method} {route}`), where the
  // tracer lets it be changed (the OTLP tracer's spans are plain objects)
  if (Object.getOwnPropertyDescriptor(span, "name")?.writable === true) (span as { name: string }).name = `${method} ${route}`
}
