/**
 * Request bodies are JSON, whatever `Content-Type` says. The framework would pick a decoder by
 * content type (multipart, form, text), and the API's payload schemas only describe JSON: a form or
 * multipart body would then fail in ways the error mapping cannot explain (or crash the multipart
 * parser). So every body is parsed as JSON, with a clear 400 when it is not, with a cap on nesting
 * (the schema's error messages walk the value they reject, and a body nested thousands of levels
 * deep would overflow the stack there), and without the NUL character in any string.
 *
 * The request handed to the API keeps everything else (body stream, url, headers), so the checks
 * still run in their order (docs/integrators.md#the-order-of-checks): this parse happens when the endpoint decodes its payload, after
 * routing, rate limits, credentials and roles.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpMethod from "@effect/platform/HttpMethod"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import { InvalidRequest } from "../Domain/Errors.js"
import { ClientTimeouts } from "./ClientTimeouts.js"
import { PayloadTooLarge, RequestTimeout } from "./Errors.js"

/** Deeper than any payload of the API (the deepest, a person's custom fields in a bulk update, is 4). */
export const MAX_DEPTH = 32

const tooDeep = (value: unknown): boolean => {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [next, depth] = stack.pop()!
    if (typeof next !== "object" || next === null) continue
    if (depth > MAX_DEPTH) return true
    for (const child of Array.isArray(next) ? next : Object.values(next)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}

/**
 * The path (`guests.3.firstName`) of the first string holding U+0000, if any. SQLite's text
 * functions (LIKE, full-text search) stop at it, so a NUL would make stored text match differently
 * from what it shows; no field of the API has a use for it.
 */
const nulAt = (value: unknown): string | undefined => {
  const stack: Array<[unknown, ReadonlyArray<string>]> = [[value, []]]
  while (stack.length > 0) {
    const [next, path] = stack.pop()!
    if (typeof next === "string") {
      if (next.includes("\u0000")) return path.join(".")
    } else if (typeof next === "object" && next !== null) {
      for (const [key, child] of Object.entries(next)) {
        if (key.includes("\u0000")) return [...path, key].join(".")
        stack.push([child, [...path, key]])
      }
    }
  }
  return undefined
}

const parse = (text: string): Effect.Effect<unknown, InvalidRequest> =>
  Effect.suspend(() => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return Effect.fail(new InvalidRequest({ message: "The request body is not valid JSON" }))
    }
    if (tooDeep(value)) {
      return Effect.fail(new InvalidRequest({ message: `The request body is nested deeper than ${MAX_DEPTH} levels` }))
    }
    // JSON can carry U+0000 only escaped; most bodies do not hold the escape at all
    const nul = text.includes("\\u0000") ? nulAt(value) : undefined
    return nul === undefined
      ? Effect.succeed(value)
      : Effect.fail(InvalidRequest.at(nul, "must not contain the NUL character (U+0000)"))
  })

/** 413: a body over the limit, whether announced by `Content-Length` or found while reading. */
export const tooLarge = (maxBytes: number) =>
  new PayloadTooLarge({ message: `The request body is over ${maxBytes} bytes` })

/** What a body is, for its time limit (Http/ClientTimeouts.ts): JSON or a form, or a CSV import's file. */
export type BodyKind = "json" | "csv"

/**
 * Reads a request body of at most `maxBytes` bytes. Over the limit, reading stops and the rest of
 * the body is discarded as it arrives (not refused by destroying the socket, which would reset the
 * connection before the client could read the 413: Http/LingeringClose.ts bounds what is
 * discarded). The body must arrive whole within its kind's time and without a stall
 * (Http/ClientTimeouts.ts): otherwise 408, and the rest is discarded in the same way. A client
 * that goes away before the body ends interrupts the request: nobody is left to answer, and the
 * log line says 499.
 */
export const readBoundedBytes = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number,
  kind: BodyKind = "json"
): Effect.Effect<Buffer, PayloadTooLarge | RequestTimeout> =>
  Effect.gen(function*() {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    if (source.readableEnded) return Buffer.alloc(0)
    const timeouts = yield* ClientTimeouts
    const clock = yield* Effect.clock
    const started = clock.unsafeCurrentTimeMillis()
    const within = kind === "csv" ? timeouts.csvBody : timeouts.jsonBody
    const deadline = started + Duration.toMillis(within)
    const stallMillis = Duration.toMillis(timeouts.bodyStall)
    let lastByte = started
    const read = Effect.async<Buffer, PayloadTooLarge>((resume) => {
      const chunks: Array<Buffer> = []
      let bytes = 0
      const cleanup = () => {
        source.off("data", onData)
        source.off("end", onEnd)
        source.off("error", onGone)
        source.off("aborted", onGone)
      }
      const onData = (chunk: Buffer) => {
        lastByte = clock.unsafeCurrentTimeMillis()
        bytes += chunk.length
        if (bytes > maxBytes) {
          cleanup()
          chunks.length = 0
          // keep the connection readable: the rest is discarded as it arrives
          source.resume()
          resume(Effect.fail(tooLarge(maxBytes)))
          return
        }
        chunks.push(chunk)
      }
      const onEnd = () => {
        cleanup()
        resume(Effect.succeed(Buffer.concat(chunks)))
      }
      const onGone = () => {
        cleanup()
        resume(Effect.interruptWith(HttpServerError.clientAbortFiberId))
      }
      source.on("data", onData)
      source.once("end", onEnd)
      source.once("error", onGone)
      source.once("aborted", onGone)
      // out of time: stop collecting, and discard the rest as it arrives
      return Effect.sync(() => {
        cleanup()
        source.resume()
      })
    })
    // one watcher for both limits, woken at the nearer of the two
    const watch: Effect.Effect<never, RequestTimeout> = Effect.suspend(() => {
      const now = clock.unsafeCurrentTimeMillis()
      if (now >= deadline) return Effect.fail(timedOut(`did not arrive within ${seconds(within)}`))
      if (now >= lastByte + stallMillis) return Effect.fail(timedOut(`stalled: no byte of it for ${seconds(timeouts.bodyStall)}`))
      return Effect.zipRight(Effect.sleep(Math.min(deadline, lastByte + stallMillis) - now), watch)
    })
    return yield* Effect.raceFirst(read, watch)
  })

const seconds = (duration: Duration.Duration) => `${Math.round(Duration.toSeconds(duration))} seconds`

/** 408: a body not received in time. */
const timedOut = (why: string) => new RequestTimeout({ message: `The request body ${why}` })

/**
 * `read`, run once, by whoever asks first (the payload's decoder, or the idempotency fingerprint
 * before it): later askers get its outcome. It runs in the asker's fiber (a `Deferred` holds the
 * outcome; no fiber of its own, as `Effect.runSync(Effect.cached(read))` would start on every
 * request: bench/RESULTS.md, issue 18).
 */
export const once = <A>(read: Effect.Effect<A>): Effect.Effect<A> => {
  let outcome: Deferred.Deferred<A> | undefined
  return Effect.suspend(() => {
    if (outcome !== undefined) return Deferred.await(outcome)
    const deferred = Deferred.unsafeMake<A>(FiberId.none)
    outcome = deferred
    return Effect.onExit(read, (exit) => Deferred.done(deferred, exit))
  })
}

/** Reads a JSON or form body of at most `maxBytes` bytes as UTF-8 text (see `readBoundedBytes`). */
export const readBoundedText = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<string, PayloadTooLarge | RequestTimeout> => Effect.map(readBoundedBytes(request, maxBytes), (bytes) => bytes.toString("utf8"))

/**
 * The request as the API sees it: a body of any content type is read as JSON, at most `maxBytes`
 * of it. Failures are the API's own `InvalidRequest`, `PayloadTooLarge` and `RequestTimeout`; the
 * framework raises them as defects, and the error mapping answers them as they are.
 */
export const jsonBodies = (request: HttpServerRequest.HttpServerRequest, maxBytes: number): HttpServerRequest.HttpServerRequest => {
  if (!HttpMethod.hasBody(request.method)) return request
  const contentType = request.headers["content-type"]
  // the framework parses JSON only for a content type containing `application/json` (or none)
  const base = contentType === undefined || contentType.toLowerCase().includes("application/json")
    ? request
    : request.modify({ headers: Headers.set(request.headers, "content-type", "application/json") })
  // the body is read once, whoever asks first: the JSON parse here, or the idempotency fingerprint
  const text = once(Effect.orDie(readBoundedText(request, maxBytes)))
  const self: HttpServerRequest.HttpServerRequest = Object.create(base, {
    text: { get: () => text },
    json: { get: () => Effect.flatMap(self.text, parse) }
  })
  return self
}
