/**
 * Request bodies are JSON, whatever `Content-Type` says. The framework would pick a decoder by
 * content type (multipart, form, text), and the API's payload schemas only describe JSON: a form or
 * multipart body would then fail in ways the error mapping cannot explain (or crash the multipart
 * parser). So every body is parsed as JSON, with a clear 400 when it is not, with a cap on nesting
 * (the schema's error messages walk the value they reject, and a body nested thousands of levels
 * deep would overflow the stack there), and without the NUL character in any string.
 *
 * The request handed to the API keeps everything else (body stream, url, headers), so the checks
 * still run in the CONTRACT's order: this parse happens when the endpoint decodes its payload, after
 * routing, rate limits, credentials and roles.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpMethod from "@effect/platform/HttpMethod"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import { InvalidRequest } from "./Errors.js"

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

/**
 * The request as the API sees it: a body of any content type is read as JSON. Failures are the
 * API's own `InvalidRequest`; the framework raises them as defects, and the error mapping answers
 * them as they are.
 */
export const jsonBodies = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  if (!HttpMethod.hasBody(request.method)) return request
  const contentType = request.headers["content-type"]
  // the framework parses JSON only for a content type containing `application/json` (or none)
  const base = contentType === undefined || contentType.toLowerCase().includes("application/json")
    ? request
    : request.modify({ headers: Headers.set(request.headers, "content-type", "application/json") })
  // `text` caches the body on the object it is read through: both the JSON parse here and any other
  // reader (the idempotency fingerprint) go through `self`, so the stream is read once.
  const self: HttpServerRequest.HttpServerRequest = Object.create(base, {
    json: { get: () => Effect.flatMap(self.text, parse) }
  })
  return self
}
