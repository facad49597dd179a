/**
 * `GET /metrics` (CONTRACT §19): the Prometheus text format (Telemetry/Scrape.ts), to a scraper
 * that sends `Authorization: Bearer <METRICS_TOKEN>`; 401 to any other request. Without
 * `METRICS_TOKEN` there is no such route (404, as for any unknown path). The token is compared
 * in constant time (the digests of both, so that their lengths tell nothing either). Not rate
 * limited, like the other operational endpoints, and not part of the API's OpenAPI document.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { createHash, timingSafeEqual } from "node:crypto"
import { AppConfig } from "../Config/AppConfig.js"
import { Scrape } from "../Telemetry/Scrape.js"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Whether `header` is `Bearer <token>` (the scheme in any case). */
export const bearerMatches = (header: string | undefined, token: Buffer): boolean => {
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header)
  return timingSafeEqual(digest(match?.[1] ?? ""), token) && match !== null
}

const unauthorized = HttpServerResponse.unsafeJson(
  { message: "Send Authorization: Bearer with the METRICS_TOKEN", code: "unauthorized" },
  { status: 401, headers: { "www-authenticate": `Bearer realm="convene-metrics"` } }
)

/** The route, when `METRICS_TOKEN` is set. */
export const MetricsLive = Layer.unwrapEffect(Effect.map(AppConfig, ({ metricsToken }) =>
  Option.match(metricsToken, {
    onNone: () => Layer.empty,
    onSome: (secret) => {
      const token = digest(Redacted.value(secret))
      return HttpApiBuilder.Router.use((router) =>
        Effect.gen(function*() {
          const scrape = yield* Scrape
          yield* router.get(
            "/metrics",
            Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
              bearerMatches(request.headers["authorization"], token)
                ? Effect.map(scrape.text, (text) =>
                  HttpServerResponse.text(text, {
                    contentType: "text/plain; version=0.0.4; charset=utf-8",
                    headers: { "cache-control": "no-store" }
                  }))
                : Effect.succeed(unauthorized))
          )
        })
      ).pipe(Layer.provide(Scrape.Default))
    }
  })))
