/**
 * The outermost server middleware: every response carries `X-Request-Id` (the caller's own when it
 * is 1-128 characters of `[A-Za-z0-9._-]`, else a new one), and every request ends in one
 * structured log line: request id, caller, method, path (never the query, nor a token in it),
 * status, duration; and is counted for `/metrics` (Telemetry/Requests.ts). An HTML page goes out
 * compressed when the request accepts it (PageCompression.ts).
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as LogLevel from "effect/LogLevel"
import { AppConfig } from "../Config/AppConfig.js"
import { Ids } from "../Domain/Ids.js"
import { logAt } from "../Runtime/Logging.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { observeRequest } from "../Telemetry/Requests.js"
import { clientOf } from "./ClientAddress.js"
import { compressPage } from "./PageCompression.js"
import { type RequestMetaShape, setRequestMeta } from "./RequestMeta.js"

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** Tokens the service issues: API (`cvn_`), login access (`cvs_`) and invitation (`cvi_`) tokens. */
const TOKEN_PREFIX = /^cv[nsi]_/i
/** What may be a link's token without its prefix: 32 or more URL-safe characters (a UUID is an id, not a secret). */
const TOKEN_LIKE = /^[A-Za-z0-9_-]{32,}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * The path as logged: a segment that may carry a secret (a token pasted into a path, the token of
 * an invitation link in `/member/invitations/<token>` or `/app/invitations/<token>`) becomes
 * `[redacted]`, so that logs never hold what would let their reader act.
 */
export const loggedPath = (path: string): string =>
  path.split("/").map((segment, i, segments) => {
    const text = decoded(segment)
    const afterInvitations = i > 0 && decoded(segments[i - 1]!).toLowerCase() === "invitations"
    const secret = TOKEN_PREFIX.test(text) || (afterInvitations && TOKEN_LIKE.test(text) && !UUID.test(text))
    return secret ? "[redacted]" : segment
  }).join("/")

/**
 * The status a request ended with. One interrupted before its answer was sent lost its client (the
 * server interrupts a request whose connection closes): 499, nginx's "client closed request", so
 * that a client going away is not counted as a server error.
 */
const statusOf = (exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>): number => {
  if (Exit.isSuccess(exit)) return exit.value.status
  if (Cause.isInterruptedOnly(exit.cause)) return 499
  // the framework answers some causes itself (an interruption by a client that went away: 499)
  const squashed = Cause.squash(exit.cause)
  return HttpServerResponse.isServerResponse(squashed) ? squashed.status : 500
}

/**
 * Runs once around every request, as two synchronous steps (one before the app, one when it ends)
 * rather than a chain of effects: a request pays for its id, client, route prefix and log line, not
 * for the fiber steps around them (bench/RESULTS.md, issue 18). Logs written inside the request
 * carry its `requestId` because the logger finds the request's facts from the fiber's request
 * (RequestMeta.ts, Runtime/Logging.ts).
 */
export const requestLifecycle = <E, R>(
  app: HttpApp.Default<E, R>
): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest | AppConfig | PublicOrigin | Ids> =>
  Effect.withFiberRuntime((fiber) => {
    const context = fiber.currentContext as Context.Context<HttpServerRequest.HttpServerRequest | AppConfig | PublicOrigin | Ids>
    const request = Context.get(context, HttpServerRequest.HttpServerRequest)
    const incoming = request.headers["x-request-id"]
    const serve = (requestId: string) => {
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const started = clock.unsafeCurrentTimeNanos()
      const client = clientOf(Context.get(context, AppConfig).trustedProxies, request.remoteAddress, request.headers, false)
      const meta: RequestMetaShape = { requestId, client, callerId: undefined, route: undefined, responseHeaders: undefined }
      // a request that arrived with PUBLIC_BASE_URL's path prefix is routed without it
      const path = pathOf(request.url)
      const routed = Context.get(context, PublicOrigin).routePath(path)
      setRequestMeta(request, meta)
      const served = routed === path ? app : Effect.provideService(
        app,
        HttpServerRequest.HttpServerRequest,
        request.modify({ url: routed + request.url.slice(path.length) })
      )
      return Effect.zipRight(
        // one handler for the headers of every answer: the request id, and the rate limit's once
        // the access gate has drawn from the caller's buckets; a page is compressed (PageCompression.ts)
        HttpApp.appendPreResponseHandler((_, answer) => {
          const response = compressPage(request, answer)
          return Effect.succeed(
            meta.responseHeaders === undefined
              ? HttpServerResponse.setHeader(response, "x-request-id", requestId)
              : HttpServerResponse.setHeaders(response, { ...meta.responseHeaders, "x-request-id": requestId })
          )
        }),
        Effect.onExit(served, (exit) =>
          Effect.withFiberRuntime<void>((ended) => {
            const status = statusOf(exit)
            const durationMs = Number(clock.unsafeCurrentTimeNanos() - started) / 1e6
            observeRequest(ended, request.method, meta, status, durationMs / 1000)
            logAt(ended, LogLevel.Info, "request", () => {
              const logged = loggedPath(path)
              return {
                requestId,
                callerId: meta.callerId ?? null,
                clientIp: client.ip,
                method: request.method,
                route: meta.route ?? logged,
                path: logged,
                status,
                durationMs
              }
            })
            return Effect.void
          }))
      )
    }
    return incoming !== undefined && REQUEST_ID.test(incoming)
      ? serve(incoming)
      : Effect.flatMap(Context.get(context, Ids).uuid, serve)
  })
