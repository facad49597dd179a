/**
 * Answers that grow with the data, written to the socket as they are read (STYLE 13): a `Stream`
 * of batches becomes a streamed response, so memory holds one batch whatever the answer's size.
 * - Back-pressure: `NodeHttpServer` writes each chunk and, when the socket's buffer is full, waits
 *   for it to drain before pulling the next one; a batch is written in chunks of at most
 *   `WRITE_BYTES` and nothing reads ahead, so a slow client holds at most a batch or two in the
 *   server.
 * - Slow readers (CONTRACT §18): a client that reads nothing for `STREAM_IDLE_TIMEOUT` is
 *   disconnected, and what its answer held is given back (`paced`).
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
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { ClientTimeouts } from "./ClientTimeouts.js"
import type { JsonText } from "./JsonText.js"

export interface StreamedOptions {
  readonly contentType: string
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * The most bytes handed to the socket in one write. The server writes the next piece only once the
 * last one has gone to the client's connection; with pieces of this size, a client that reads
 * anything at all (64 KiB in `STREAM_IDLE_TIMEOUT`, some 2 KB/s) keeps its answer going.
 */
export const WRITE_BYTES = 64 * 1024

/** Resumes after the event loop's next I/O phase. */
const afterIo = Effect.async<void>((resume) => {
  const timer = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(timer))
})

/**
 * `pieces` as the response writes them: in writes of at most `WRITE_BYTES`, each asked for once
 * the previous one has been taken by the socket. When the client reads nothing for
 * `STREAM_IDLE_TIMEOUT` (Http/ClientTimeouts.ts), the socket stays full, no write is asked for,
 * and `cutOff` runs: the connection is destroyed, the request interrupted, and what the answer held
 * (its snapshot, its share of the streamed answers) given back with its scope.
 */
const paced = <E>(
  pieces: Stream.Stream<Uint8Array, E>,
  idle: Duration.Duration,
  cutOff: Effect.Effect<void>
): Stream.Stream<Uint8Array, E> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const pull = yield* Stream.toPull(pieces)
    const clock = yield* Effect.clock
    const idleMillis = Duration.toMillis(idle)
    const pending: Array<Uint8Array> = []
    // when the last write was handed over while the next one has not been asked for yet
    let waitingSince: number | undefined
    const watch: Effect.Effect<void> = Effect.suspend(() => {
      const now = clock.unsafeCurrentTimeMillis()
      if (waitingSince !== undefined && now - waitingSince >= idleMillis) return cutOff
      return Effect.zipRight(Effect.sleep(waitingSince === undefined ? idleMillis : waitingSince + idleMillis - now), watch)
    })
    yield* Effect.forkScoped(watch)
    const write = (): Chunk.Chunk<Uint8Array> => {
      const piece = pending.shift()!
      if (piece.length > WRITE_BYTES) pending.unshift(piece.subarray(WRITE_BYTES))
      waitingSince = clock.unsafeCurrentTimeMillis()
      return Chunk.of(piece.subarray(0, WRITE_BYTES))
    }
    const next: Effect.Effect<Chunk.Chunk<Uint8Array>, Option.Option<E>> = Effect.suspend(() => {
      waitingSince = undefined
      if (pending.length > 0) return Effect.succeed(write())
      return Effect.flatMap(pull, (chunk) => {
        for (const piece of chunk) if (piece.length > 0) pending.push(piece)
        return pending.length > 0 ? Effect.succeed(write()) : next
      })
    })
    return Stream.repeatEffectChunkOption(next)
  }))

/**
 * A response whose body is `pieces` (text, sent as UTF-8, or bytes), each written as it comes. The stream runs in
 * the handler's context, after the handler has returned.
 */
export const streamed = <E, R>(
  pieces: Stream.Stream<string | Uint8Array, E, R>,
  options: StreamedOptions
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const context = yield* Effect.context<R>()
    const { streamIdle } = yield* ClientTimeouts
    // on Node's server (the only one the service runs on) the response is its `http.ServerResponse`
    const destroy = Effect.sync(() => NodeHttpServerRequest.toServerResponse(request)?.destroy())
    const abort = (cause: Cause.Cause<E>) =>
      Effect.zipRight(Effect.logError("a streamed answer failed after it started: connection aborted", cause), destroy)
    const cutOff = Effect.zipRight(
      Effect.logInfo(`a streamed answer's client read nothing for ${Duration.format(streamIdle)}: connection closed`),
      destroy
    )
    const body = pieces.pipe(
      Stream.mapEffect((piece) => Effect.as(afterIo, typeof piece === "string" ? Buffer.from(piece, "utf8") as Uint8Array : piece)),
      // an interruption is the client leaving (or shutdown): nothing to log, nobody to tell
      Stream.tapErrorCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : abort(cause))),
      Stream.provideContext(context),
      (bytes) => paced(bytes, streamIdle, cutOff)
    )
    return HttpServerResponse.stream(body, {
      contentType: options.contentType,
      ...(options.headers === undefined ? {} : { headers: options.headers })
    })
  })

type ItemOf<T> = T extends ReadonlyArray<infer A> ? A : never

const COMMA = 0x2c

/**
 * `prefix`, then `texts` separated by commas, as UTF-8 bytes written straight into one buffer.
 * Joining a batch into one string first, as it was, made a string of some 700 KB per 1,000 guests:
 * past V8's young generation, so only a full collection freed it, and 20 lists read at once kept
 * V8's collector busy on a third of the CPU (bench/RESULTS.md, issue 18). The buffer is sized for
 * ASCII and grows when a text needs more.
 */
export const utf8Joined = (prefix: string, texts: ReadonlyArray<string>): Uint8Array => {
  let capacity = prefix.length + texts.length
  for (let i = 0; i < texts.length; i++) capacity += texts[i]!.length
  let buffer = Buffer.allocUnsafe(Math.max(capacity, 64))
  let length = 0
  const reserve = (text: string, extra: number) => {
    // a UTF-16 unit is at most 3 bytes of UTF-8; only a text that may not fit is measured
    if (length + text.length * 3 + extra <= buffer.length) return
    const needed = length + Buffer.byteLength(text, "utf8") + extra
    if (needed <= buffer.length) return
    const grown = Buffer.allocUnsafe(Math.max(needed, Math.ceil(buffer.length * 1.5)))
    buffer.copy(grown, 0, 0, length)
    buffer = grown
  }
  reserve(prefix, 0)
  length += buffer.write(prefix, length, "utf8")
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!
    reserve(text, 1)
    if (i > 0) buffer[length++] = COMMA
    length += buffer.write(text, length, "utf8")
  }
  return buffer.subarray(0, length)
}

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
        Stream.mapAccum(true, (first, batch) => [false, utf8Joined(first ? "" : ",", batch)])
      )),
      Stream.concat(Stream.make("]}"))
    ),
    { contentType: "application/json" }
  )
