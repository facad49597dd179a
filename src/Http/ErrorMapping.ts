/**
 * One error shape everywhere (docs/integrators.md#errors). This API-level middleware sits between the router and
 * the encoder of the API's errors: it turns what the framework raises (unknown route, schema
 * violation, malformed JSON, an oversize body, defects) into the API's own errors, adds the
 * headers some errors carry, logs defects without letting their details reach the body, and sends
 * the answer of a failure that is its own answer (`HttpServerRespondable`: a replayed idempotent
 * request's first answer, Idempotency/IdempotentLive.ts) as it is.
 *
 * It knows no feature: the routes whose bodies are not JSON are given to it (`BodyRules`, from the
 * composition), and the refusals for want of room are `Busy` (Errors.ts), whoever raises them.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerRespondable from "@effect/platform/HttpServerRespondable"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Readiness } from "../Runtime/Readiness.js"
import { ApiBase } from "./ApiBase.js"
import { BodyRules, MAX_BODY_BYTES } from "./BodyRules.js"
import { jsonBodies, tooLarge } from "./JsonBody.js"
import {
  Conflict,
  CursorExpired,
  Forbidden,
  IdempotencyKeyReused,
  InvalidRequest,
  invalidFromIssues,
  NotFound,
  RateLimited,
  Unauthorized,
  Unavailable
} from "../Domain/Errors.js"
import { DATABASE_LOST, databaseLost, POOL_BUSY, poolTimedOut } from "../Db/SqlErrors.js"
import { Internal, isBusy, PayloadTooLarge, RequestTimeout } from "./Errors.js"

type ApiError =
  | InvalidRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | CursorExpired
  | PayloadTooLarge
  | IdempotencyKeyReused
  | RateLimited
  | Unavailable
  | Internal

const apiErrors = [InvalidRequest, Unauthorized, Forbidden, NotFound, Conflict, CursorExpired, PayloadTooLarge, IdempotencyKeyReused, RateLimited, Unavailable, Internal]
const isApiError = (u: unknown): u is ApiError => apiErrors.some((E) => u instanceof E)

const bodyTooLarge = tooLarge(MAX_BODY_BYTES)

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const decodes = (path: string) => {
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

const withHeaders = (headers: Record<string, string>) =>
  HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))

const toApiError = (cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (error instanceof HttpApiError.HttpApiDecodeError) return Effect.fail(invalidFromIssues(error.issues))
    if (error instanceof HttpServerError.RouteNotFound) {
      const path = error.request.url.split("?")[0]!
      // the router cannot decode a path parameter with a malformed escape: a bad parameter, not a route
      return Effect.fail(
        decodes(path)
          ? new NotFound({ message: `No route for ${error.request.method} ${path}` })
          : new InvalidRequest({ message: "The request path is not valid percent-encoded UTF-8" })
      )
    }
    if (error instanceof RateLimited) {
      return Effect.zipRight(withHeaders({ "retry-after": String(error.retryAfter) }), Effect.fail(error))
    }
    if (error instanceof Unauthorized) {
      return Effect.zipRight(
        withHeaders({ "www-authenticate": `ApiKey realm="convene", Bearer realm="convene"` }),
        Effect.fail(error)
      )
    }
    if (isApiError(error)) return Effect.fail(error)
    // the platform's own errors are mapped to the API's above and below; any other that carries its answer gives it
    if (HttpServerRespondable.isRespondable(error) && !HttpServerError.isServerError(error)) return HttpServerRespondable.toResponse(error)
  }
  // kept whole: an interruption by a client that went away is told from others by its fiber id
  if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
  if (poolTimedOut(cause)) return Effect.as(Effect.logWarning(POOL_BUSY), busy)
  // a database restarting (CONTRACT §15): 503 with Retry-After, as for a busy pool, not a 500
  if (databaseLost(cause)) return Effect.as(Effect.logWarning(DATABASE_LOST, cause), databaseUnavailable)
  const defect = Cause.squash(cause)
  // no free import slot or streamed answer (Csv/ImportSlots.ts, Http/StreamSlots.ts), raised by
  // handlers whose endpoints declare no 503
  if (isBusy(defect)) return Effect.succeed(busyFor(defect.message, defect.retryAfter))
  if (defect instanceof RequestTimeout) return Effect.succeed(requestTimeout(defect))
  // the JSON body parser's refusals (see JsonBody) reach here as defects of the payload decoder
  if (defect instanceof InvalidRequest || defect instanceof PayloadTooLarge) return Effect.fail(defect)
  if (defect instanceof HttpServerError.RequestError && defect.reason === "Decode") {
    const message = defect.cause instanceof Error ? defect.cause.message : ""
    return Effect.fail(
      message === "maxBytes exceeded" ? bodyTooLarge : new InvalidRequest({ message: "The request body is not valid JSON" })
    )
  }
  return Effect.zipRight(
    Effect.logError("Unexpected failure", cause),
    Effect.fail(new Internal({ message: "Internal server error" }))
  )
}

/** A write refused while the database file is lost (see `Readiness`): 503, nothing changed. */
const unavailable = (error: Unavailable) =>
  HttpServerResponse.unsafeJson({ message: error.message, code: "unavailable" }, { status: 503 })

/** 503 `unavailable` for a request that found no room (nothing changed), to be sent again after `retryAfter` seconds. */
const busyFor = (message: string, retryAfter: number) =>
  HttpServerResponse.unsafeJson({ message, code: "unavailable" }, { status: 503, headers: { "retry-after": String(retryAfter) } })

/**
 * 408 `request_timeout` for a body not received in time (Http/JsonBody.ts); the connection is
 * closed after it, its unread rest discarded for a while first (Http/LingeringClose.ts).
 */
const requestTimeout = (error: RequestTimeout) =>
  HttpServerResponse.unsafeJson({ message: error.message, code: "request_timeout" }, { status: 408, headers: { connection: "close" } })

/** Every connection of the pool stayed busy for `DATABASE_ACQUIRE_TIMEOUT`: 503, to be retried shortly. */
const busy = busyFor("The service is busy; try again shortly", 1)
const databaseUnavailable = busyFor("The database is not reachable at the moment; try again shortly", 1)

/**
 * Bodies are JSON of at most 1 MiB, except on the routes a body rule names (`BodyRules`): the
 * endpoints that take a CSV file (docs/integrators.md#csv-export-and-import), text of at most
 * 10 MiB there, and only there; the dashboard's uploads, which read their own.
 */
export const ErrorMappingLive = HttpApiBuilder.middleware(ApiBase, Effect.map(Effect.all([Readiness, BodyRules]), ([readiness, rules]) => {
  const ruleOf = (method: string, path: string) => {
    for (const routes of rules) {
      const rule = routes(method, path)
      if (rule !== undefined) return rule
    }
    return undefined
  }
  return (app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const rule = ruleOf(request.method, pathOf(request.url))
      // a route that reads its own body (the dashboard's uploads: Web/Upload.ts) bounds it and answers pages
      const own = rule?.read === "own"
      const maxBytes = rule?.maxBytes ?? MAX_BODY_BYTES
      const declared = Number(request.headers["content-length"] ?? 0)
      if (!own && declared > maxBytes) return yield* (rule === undefined ? bodyTooLarge : tooLarge(maxBytes))
      // reads take no body (HttpApi decodes a GET's parameters from its URL): nothing to wrap
      if (request.method === "GET" || request.method === "HEAD") return yield* app
      const refused = yield* Effect.flip(readiness.writable).pipe(Effect.option)
      if (Option.isSome(refused)) return unavailable(refused.value)
      const body = rule === undefined ? jsonBodies(request, maxBytes) : rule.read === "own" ? request : rule.read(request, maxBytes)
      return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, body).pipe(
        HttpIncomingMessage.withMaxBodySize(Option.some(maxBytes))
      )
    }).pipe(
      Effect.catchAllCause(toApiError),
      // The API-level type lists only the errors every endpoint can answer; the others re-raised
      // here come from endpoints that declare them, so the error encoder knows each of them.
      (effect) => effect as Effect.Effect<HttpServerResponse.HttpServerResponse, InvalidRequest | NotFound | Internal>
    )
}))
