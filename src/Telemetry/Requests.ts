/**
 * A request answered, counted for `/metrics` by its route pattern (`GET /person/:id` counts as
 * `/person/:id`, never as the path it was asked for), method and status, and timed
 * (Metrics.ts). The request lifecycle (Http/RequestLifecycle.ts) calls `observeRequest` once per
 * request, synchronously, as it writes the request's log line.
 *
 * The route: the access gate records it for the API's routes (RequestMeta `route`); for the
 * others (the dashboard, the docs, the RSVP pages, `/healthz`) the router gives it to the request's
 * parent span (`http.route`, as OpenTelemetry names it) when it matches one. With tracing on
 * (Tracing.ts) that is the request's own span; with tracing off, `routeRecorder` stands in for
 * one, provided once to every request (`HttpLive`, src/Server.ts), and keeps the route beside the
 * request's facts: a span made per request would cost every request a copy of its context.
 */
import * as Context from "effect/Context"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { type RequestMetaShape, requestMetaIn } from "../Http/RequestMeta.js"
import { countRequest } from "./Metrics.js"

/** Routes the router matched, by request (tracing off). */
const matched = new WeakMap<RequestMetaShape, string>()

/**
 * A span in name only, the parent of every request while tracing is off: the router tells it the
 * route it matched (`http.route`), and it keeps that for the request whose fiber is running.
 * Spans made beneath it are not propagated (`DisablePropagation`).
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
    const fiber = Option.getOrUndefined(Fiber.getCurrentFiber())
    const meta = fiber === undefined ? undefined : requestMetaIn(fiber.currentContext)
    if (meta !== undefined) matched.set(meta, value)
  },
  event: () => {},
  addLinks: () => {}
}

/** `routeRecorder` as every request's parent span (tracing off). */
export const RouteRecorderLive = Layer.succeed(Tracer.ParentSpan, routeRecorder)

/** The route pattern a request matched: the gate's, or the router's, told to the request's parent span. */
const routeOf = (meta: RequestMetaShape, span: Tracer.AnySpan | undefined): string | undefined => {
  if (meta.route !== undefined) return meta.route.slice(meta.route.indexOf(" ") + 1)
  if (span === routeRecorder) return matched.get(meta)
  const route = span?._tag === "Span" ? span.attributes.get("http.route") : undefined
  return typeof route === "string" ? route : undefined
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
  const route = routeOf(meta, span)
  countRequest(route ?? "unmatched", method, status, seconds)
  if (span?._tag !== "Span" || span === routeRecorder) return
  span.attribute("http.response.status_code", status)
  if (route === undefined) return
  span.attribute("http.route", route)
  // the span's name, once its route is known (OpenTelemetry's `{method} {route}`), where the
  // tracer lets it be changed (the OTLP tracer's spans are plain objects)
  if (Object.getOwnPropertyDescriptor(span, "name")?.writable === true) (span as { name: string }).name = `${method} ${route}`
}
