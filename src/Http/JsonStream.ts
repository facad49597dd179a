/**
 * Answers that grow with the data, written to the socket as they are read (STYLE 13): a `Stream`
 * of batches becomes a streamed response, so memory holds one batch whatever the answer's size.
 * - Back-pressure: `NodeHttpServer` writes each chunk and, when the socket's buffer is full, waits
 *   for it to drain before pulling the next one; one chunk is one batch and nothing reads ahead, so
 *   a slow client holds at most a batch or two in the server.
 * - Fairness: a piece is made synchronously (a batch's query, rendering and JSON), and when the
 *   client reads fast every write completes at once and "drain" comes back as a next-tick
 *   callback, so without a pause the whole answer would be made without the event loop ever
 *   polling: no other request would even be accepted meanwhile. Each piece therefore waits for one
 *   turn of the event loop (`setImmediate`, after I/O) before it is written.
 * - Failures: whatever can fail before the first byte (credentials, role, unknown id) must fail
 *   before the response is built. Once the status line is sent, a failure can no longer become an
 *   error answer: it is logged and the connection is destroyed, so the client sees a broken
 *   response rather than a well-formed one cut short (a chunked body ended cleanly would be).
 * CSV exports reuse `streamed` with their own header row and lines.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { JsonText } from "./JsonText.js"

export interface StreamedOptions {
  readonly contentType: string
  readonly headers?: Readonly<Record<string, string>>
}

/** Resumes after the event loop's next I/O phase. */
const afterIo = Effect.async<void>((resume) => {
  const timer = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(timer))
})

/**
 * A response whose body is `pieces` (UTF-8 text), each written as it comes. The stream runs in
 * the handler's context, after the handler has returned.
 */
export const streamed = <E, R>(
  pieces: Stream.Stream<string, E, R>,
  options: StreamedOptions
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const context = yield* Effect.context<R>()
    const abort = (cause: Cause.Cause<E>) =>
      Effect.zipRight(
        Effect.logError("a streamed answer failed after it started: connection aborted", cause),
        // on Node's server (the only one the service runs on) the response is its `http.ServerResponse`
        Effect.sync(() => NodeHttpServerRequest.toServerResponse(request)?.destroy())
      )
    const body = pieces.pipe(
      Stream.mapEffect((piece) => Effect.as(afterIo, Buffer.from(piece, "utf8") as Uint8Array)),
      // an interruption is the client leaving (or shutdown): nothing to log, nobody to tell
      Stream.tapErrorCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : abort(cause))),
      Stream.provideContext(context)
    )
    return HttpServerResponse.stream(body, {
      contentType: options.contentType,
      ...(options.headers === undefined ? {} : { headers: options.headers })
    })
  })

type ItemOf<T> = T extends ReadonlyArray<infer A> ? A : never

/**
 * The JSON document `{"<key>":[...]}` of `schema`, its array written batch by batch from the
 * items' JSON texts (JsonText.ts: typed by what they decode to, made by a renderer or by
 * `jsonText`). As with `jsonAs` (Json.ts), the items are sent without the schema's encoder, so
 * only for schemas whose encoding is the identity and whose only field is `key`: the types keep
 * the handler honest, and a test decodes the answers.
 */
export const jsonArrayAs = <S extends Schema.Schema.Any, const K extends keyof Schema.Schema.Type<S> & string, E, R>(
  _schema: S,
  key: K,
  batches: Stream.Stream<ReadonlyArray<JsonText<ItemOf<Schema.Schema.Type<S>[K]>>>, E, R>
) =>
  streamed(
    Stream.make(`{${JSON.stringify(key)}:[`).pipe(
      Stream.concat(batches.pipe(
        Stream.filter((batch) => batch.length > 0),
        Stream.mapAccum(true, (first, batch) => [false, (first ? "" : ",") + batch.join(",")])
      )),
      Stream.concat(Stream.make("]}"))
    ),
    { contentType: "application/json" }
  )
