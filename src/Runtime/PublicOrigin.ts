/**
 * The service's public address (`PUBLIC_BASE_URL`, else `http://localhost:<port>` with the port the
 * server really listens on): what links in emails and pages, form actions, redirects, cookie paths
 * and the Origin checks of forms are built from.
 *
 * The address may carry a path prefix (`https://example.org/events`) when a reverse proxy serves
 * Convene under one. Every link the service makes then starts with the prefix. Requests may arrive
 * with the prefix (a proxy that passes the path on as it is) or without it (one that strips it):
 * `routePath` takes the prefix off before routing, so both work (see `Config/PublicBaseUrl.ts` for
 * the prefixes that are refused because they would be ambiguous).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "../Config/AppConfig.js"

export class PublicOrigin extends Effect.Service<PublicOrigin>()("Convene/PublicOrigin", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const server = yield* Effect.serviceOption(HttpServer.HttpServer)
    const port = Option.match(server, {
      onNone: () => config.port,
      onSome: ({ address }) => (address._tag === "TcpAddress" ? address.port : config.port)
    })
    const baseUrl = Option.getOrElse(config.publicBaseUrl, () => `http://localhost:${port}`)
    const parsed = new URL(baseUrl)
    /** `""`, or the path prefix without a trailing slash (`/events`). */
    const pathPrefix = parsed.pathname.replace(/\/+$/, "")
    /** A path of the service (`/app/events`) as clients reach it: with the prefix. */
    const href = (path: string) => `${pathPrefix}${path}`
    /** A path of the service as an absolute URL, for links that leave the page (emails, the API). */
    const url = (path: string) => `${parsed.origin}${href(path)}`

    /**
     * The path to route: the prefix taken off a request that arrived with it. The prefix alone is
     * left as it is: it may be a route of its own (`/events` lists events).
     */
    const routePath = (path: string): string =>
      pathPrefix !== "" && path.startsWith(`${pathPrefix}/`) ? path.slice(pathPrefix.length) : path

    /** An invitation's RSVP link up to its token (none for an event without an RSVP page). */
    const rsvpLinkPrefix = (slug: string | null) => slug === null ? null : `${url(`/rsvp/${encodeURIComponent(slug)}`)}?invite=`

    return {
      baseUrl: url(""),
      /** @deprecated the base URL with its prefix: use `baseUrl`, `url` or `webOrigin`. */
      origin: url(""),
      /** Scheme, host and port only: what a browser sends as `Origin`. */
      webOrigin: parsed.origin,
      /** Whether the public address is https (cookies are then `Secure`). */
      secure: parsed.protocol === "https:",
      /** Whether `PUBLIC_BASE_URL` was set (else the address is a guess from the port). */
      configured: Option.isSome(config.publicBaseUrl),
      pathPrefix,
      href,
      url,
      routePath,
      rsvpLinkPrefix,
      rsvpLink: (slug: string | null, token: string | null) => {
        const prefix = rsvpLinkPrefix(slug)
        return prefix === null || token === null ? null : prefix + token
      }
    } as const
  })
}) {}
