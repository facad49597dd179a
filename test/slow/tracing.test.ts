/**
 * Traces (CONTRACT §19): with `OTEL_EXPORTER_OTLP_ENDPOINT` set, the service (the build, as a
 * process) exports its spans over OTLP/HTTP as JSON to `<endpoint>/v1/traces`. A receiver of its
 * own here collects them: a request's span named by its route, the SQL statements beneath it, an
 * outbox delivery's span, and the webhook's POST beneath that, whose trace reaches the webhook's
 * receiver in `traceparent`. A caller's own `traceparent` is continued. Nothing secret in them.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { createEvent, eventually, expectStatus } from "../support/Fixtures.js"
import { startServer } from "../support/Process.js"
import { receiver } from "../support/Receiver.js"
import { API_TOKEN, send, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

interface Attribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: string | number; readonly boolValue?: boolean }
}

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<Attribute>
}

const attributeOf = (span: Span, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value?.stringValue ?? (value?.intValue === undefined ? value?.boolValue : Number(value.intValue))
}

/** A collector of OTLP/HTTP JSON exports: every span POSTed to `/v1/traces`, and the resources they came with. */
const otlpReceiver = Effect.gen(function*() {
  const spans: Array<Span> = []
  const resources: Array<ReadonlyArray<Attribute>> = []
  const paths: Array<string> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      paths.push(`${request.method} ${request.url} ${request.headers["content-type"]}`)
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: ReadonlyArray<{ resource: { attributes: ReadonlyArray<Attribute> }; scopeSpans: ReadonlyArray<{ spans: ReadonlyArray<Span> }> }>
      }
      for (const resourceSpans of body.resourceSpans) {
        resources.push(resourceSpans.resource.attributes)
        for (const scope of resourceSpans.scopeSpans) spans.push(...scope.spans)
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
    () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, resources, paths }
})

describe("traces over OTLP/HTTP", () => {
  it.scopedLive("a request with its SQL statements, a delivery and its webhook POST, whose trace reaches the receiver in traceparent", () =>
    Effect.gen(function*() {
      const collector = yield* otlpReceiver
      const hook = yield* receiver
      const dir = yield* temporaryDirectory
      const server = yield* startServer({
        ...testEnvironment(join(dir, "convene.db")),
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        INSTANCE_ID: "traced-1",
        LOG_LEVEL: "Error"
      })
      const api = send(server.url)
      // a receiver's URL may carry its own secret in its query: traces leave it out
      const registered = yield* api("POST", "/webhook", { body: { webhook: `${hook.url("/traced")}?key=receiver-secret`, type: "Event" } })
      expectStatus(registered, 200)
      const event = yield* createEvent({ request: api })
      const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
      expectStatus(
        yield* api("PATCH", `/event/${event.eventId}`, {
          body: { name: "Traced" },
          headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` }
        }),
        200
      )
      const delivered = yield* hook.next(15_000)
      expect(delivered.path).toBe("/traced?key=receiver-secret")
      const traceparent = String(delivered.headers["traceparent"])
      const [, deliveryTrace, postSpan] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(traceparent) ?? []
      expect(deliveryTrace, traceparent).toBeDefined()

      const spans = yield* eventually(
        Effect.sync(() => collector.spans),
        (all) => all.some((s) => s.name === "outbox.deliver webhook") && all.some((s) => s.spanId === postSpan),
        15_000,
        "200 millis"
      )
      expect(collector.paths[0]).toMatch(/^POST \/v1\/traces application\/json/)
      expect(collector.resources[0]).toEqual(expect.arrayContaining([
        { key: "service.name", value: { stringValue: "convene" } },
        { key: "service.instance.id", value: { stringValue: "traced-1" } }
      ]))

      // the request: named by its route, in the caller's trace, with its statements beneath it
      const patch = spans.find((s) => s.name === "PATCH /event/:id")!
      expect(patch).toBeDefined()
      expect(patch.traceId).toBe(callerTrace)
      expect(patch.parentSpanId).toBe("00f067aa0ba902b7")
      expect(patch.kind).toBe(2)
      expect(attributeOf(patch, "http.route")).toBe("/event/:id")
      expect(attributeOf(patch, "http.response.status_code")).toBe(200)
      const statements = spans.filter((s) => s.traceId === callerTrace && s.name === "sql.execute")
      expect(statements.length).toBeGreaterThan(0)
      expect(statements.map((s) => attributeOf(s, "db.query.text")).join("\n")).toMatch(/UPDATE events/i)

      // the delivery: its own trace, the POST beneath it, and that trace at the receiver
      const delivery = spans.find((s) => s.name === "outbox.deliver webhook" && s.traceId === deliveryTrace)!
      expect(delivery).toBeDefined()
      expect(attributeOf(delivery, "convene.outbox.channel")).toBe("webhook")
      const post = spans.find((s) => s.spanId === postSpan)!
      expect(post.traceId).toBe(deliveryTrace)
      expect(post.parentSpanId).toBe(delivery.spanId)
      expect(attributeOf(post, "url.full")).toBe(hook.url("/traced"))

      // nothing secret: no token, no receiver's secret, no signature
      const text = JSON.stringify(spans)
      for (const secret of [API_TOKEN, "receiver-secret", String(delivered.headers["webhook-signature"])]) expect(text).not.toContain(secret)
    }), 60_000)
})
