import * as Context from "effect/Context"
/**
 * Facts about the current request gathered along the way for its log line: the request id, and
 * the caller once the access middleware has identified it.
 */
export interface RequestMetaShape {
  readonly requestId: string
  callerId: string | undefined
  /** The matched route pattern, such as `GET /person/:id`. */
  route: string | undefined
}

export class RequestMeta extends Context.Tag("Convene/RequestMeta")<RequestMeta, RequestMetaShape>() {}
