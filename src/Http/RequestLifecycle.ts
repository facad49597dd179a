/**
 * The outermost server middleware: every response carries `X-Request-Id` (the caller's own when it
 * is 1-128 characters of `[A-Za-z0-9._-]`, else a new one), and every request ends in one
 * structured log line: request id, caller, method, path (never the query), status, duration.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { Ids } from "../Domain/Ids.js"
import { RequestMeta, type RequestMetaShape } from "./RequestMeta.js"

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

export const requestLifecycle = <E, R>(app: HttpApp.Default<E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const incoming = request.headers["x-request-id"]
    const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : yield* (yield* Ids).uuid
    const meta: RequestMetaShape = { requestId, callerId: undefined, route: undefined }
    const started = yield* Clock.currentTimeNanos
    yield* HttpApp.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", requestId))
    )
    return yield* app.pipe(
      Effect.provideService(RequestMeta, meta),
      Effect.annotateLogs("requestId", requestId),
      Effect.onExit((exit) =>
        Effect.flatMap(Clock.currentTimeNanos, (ended) =>
          Effect.logInfo("request").pipe(Effect.annotateLogs({
            requestId,
            callerId: meta.callerId ?? null,
            method: request.method,
            route: meta.route ?? pathOf(request.url),
            path: pathOf(request.url),
            status: Exit.isSuccess(exit) ? exit.value.status : 500,
            durationMs: Number(ended - started) / 1e6
          })))
      )
    )
  })
