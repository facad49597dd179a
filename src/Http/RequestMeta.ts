/**
 * Facts about the current request gathered along the way for its log line: the request id, the
 * client, and the caller once the access middleware has identified it.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AppConfigShape } from "../Config/AppConfig.js"
import { type Client, clientOf } from "./ClientAddress.js"

export interface RequestMetaShape {
  readonly requestId: string
  /** The client as `TRUSTED_PROXIES` lets us see it (see `ClientAddress`). */
  readonly client: Client
  callerId: string | undefined
  /** The matched route pattern, such as `GET /person/:id`. */
  route: string | undefined
}

export class RequestMeta extends Context.Tag("Convene/RequestMeta")<RequestMeta, RequestMetaShape>() {}

/** The client of the current request: computed once per request by the request lifecycle, else here. */
export const currentClient = (config: Pick<AppConfigShape, "trustedProxies">, request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(
    Effect.serviceOption(RequestMeta),
    Option.match({
      onSome: (meta) => meta.client,
      onNone: () => clientOf(config.trustedProxies, request.remoteAddress, request.headers, false)
    })
  )
