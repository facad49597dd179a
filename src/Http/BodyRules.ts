/**
 * How the error mapping (ErrorMapping.ts) reads a request's body, by route. By default a body is
 * JSON of at most `MAX_BODY_BYTES` (JsonBody.ts `jsonBodies`); a route that takes another kind of
 * body has a rule: its limit, and how its body is read (the CSV imports: Csv/CsvBody.ts), or that
 * it reads and bounds its own (the dashboard's uploads: Web/Upload.ts). The rules are the
 * composition's to give (src/Server.ts), as only it knows the API and the dashboard: the HTTP edge
 * knows no feature.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/** 1 MiB: the largest JSON body. */
export const MAX_BODY_BYTES = 1_048_576

export interface BodyRule {
  /** The largest body the route takes. */
  readonly maxBytes: number
  /**
   * The request as the route's endpoint reads it, its body bounded by `maxBytes`; or `"own"`: the
   * route reads and bounds its own body and answers with its own pages (no 413 from the mapping).
   */
  readonly read: "own" | ((request: HttpServerRequest.HttpServerRequest, maxBytes: number) => HttpServerRequest.HttpServerRequest)
}

/** The rule of a request (its method, and its path without the query), if its route has one. */
export type BodyRoutes = (method: string, path: string) => BodyRule | undefined

/** The rules of the routes whose bodies are not JSON: the first that answers wins. */
export class BodyRules extends Context.Tag("Convene/BodyRules")<BodyRules, ReadonlyArray<BodyRoutes>>() {
  static readonly layer = (...routes: ReadonlyArray<BodyRoutes>): Layer.Layer<BodyRules> => Layer.succeed(BodyRules, routes)
}
