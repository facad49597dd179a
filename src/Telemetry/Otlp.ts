/**
 * The OTLP/HTTP exporter of traces (Tracing.ts), loaded only when `OTEL_EXPORTER_OTLP_ENDPOINT` is
 * set: `@effect/opentelemetry`'s OTLP tracer, which batches ended spans and POSTs them as JSON
 * every `EXPORT_EVERY` (and what is left when the service stops), over an HTTP client of its own.
 * It needs no OpenTelemetry SDK. Spans name the service (`convene`, its instance as
 * `service.instance.id`). What the HTTP client records of a webhook's POST is trimmed: the URL
 * without its query (a receiver's URL may carry its own secret there), and no signature.
 */
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tracer from "effect/Tracer"

const EXPORT_EVERY = "2 seconds"

/** Attributes left out of every span, and those trimmed. */
const DROPPED = new Set(["url.query", "http.request.header.webhook-signature"])

const trimmed = (key: string, value: unknown): unknown => {
  if (key !== "url.full" || typeof value !== "string") return value
  const query = value.search(/[?#]/)
  return query === -1 ? value : value.slice(0, query)
}

/** `tracer`, its spans' attributes trimmed as above. */
const trimming = (tracer: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span: (...args) => {
      const span = tracer.span(...args)
      const attribute = span.attribute.bind(span)
      return Object.assign(span, {
        attribute: (key: string, value: unknown) => {
          if (!DROPPED.has(key)) attribute(key, trimmed(key, value))
        }
      })
    },
    context: (f, fiber) => tracer.context(f, fiber)
  })

export const otlpTracing = (options: { readonly url: string; readonly instanceId: string }) =>
  Layer.unwrapScoped(Effect.map(
    OtlpTracer.make({
      url: options.url,
      resource: { serviceName: "convene", attributes: { "service.instance.id": options.instanceId } },
      exportInterval: EXPORT_EVERY
    }),
    (tracer) => Layer.setTracer(trimming(tracer))
  )).pipe(Layer.provide([OtlpSerialization.layerJson, NodeHttpClient.layer]))
