/**
 * Facts about the current request gathered along the way for its log line: the request id, the
 * client, and the caller once the access middleware has identified it.
 *
 * They are kept beside the request itself (keyed by the Node request that every view of it
 * shares: the API's body-reading wrappers and a path-prefix rewrite keep its `source`), not
 * provided as a service: providing one more service to every request would copy the request's
 * context and fiber references once more (bench/RESULTS.md, issue 18).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { AppConfigShape } from "../Config/AppConfig.js"
import { type Client, clientOf } from "./ClientAddress.js"

export interface RequestMetaShape {
  readonly requestId: string
  /** The client as `TRUSTED_PROXIES` lets us see it (see `ClientAddress`). */
  readonly client: Client
  callerId: string | undefined
  /** The matched route pattern, such as `GET /person/:id`. */
  route: string | undefined
  /** Headers the answer carries whatever it is (the rate limit's), set by the request lifecycle. */
  responseHeaders: Readonly<Record<string, string>> | undefined
}

const byRequest = new WeakMap<object, RequestMetaShape>()

const keyOf = (request: HttpServerRequest.HttpServerRequest): object => request.source as object

/** Records the facts of a request (the request lifecycle, once per request). */
export const setRequestMeta = (request: HttpServerRequest.HttpServerRequest, meta: RequestMetaShape): void => {
  byRequest.set(keyOf(request), meta)
}

/** The facts of a request, if the request lifecycle has seen it. */
export const requestMetaOf = (request: HttpServerRequest.HttpServerRequest): RequestMetaShape | undefined =>
  byRequest.get(keyOf(request))

/** The facts of the request a fiber serves (its context's `HttpServerRequest`), if any. */
export const requestMetaIn = (context: Context.Context<never>): RequestMetaShape | undefined => {
  const request = Context.getOption(context, HttpServerRequest.HttpServerRequest)
  return request._tag === "Some" ? requestMetaOf(request.value) : undefined
}

/** The client of the current request: computed once per request by the request lifecycle, else here. */
export const currentClient = (config: Pick<AppConfigShape, "trustedProxies">, request: HttpServerRequest.HttpServerRequest) =>
  Effect.sync(() => requestMetaOf(request)?.client ?? clientOf(config.trustedProxies, request.remoteAddress, request.headers, false))
