import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "./Config/AppConfig.js"

/**
 * The origin the public RSVP links are built on: `PUBLIC_BASE_URL`, else `http://localhost:<port>`
 * with the port the server really listens on (`PORT=0` picks one).
 */
export class PublicOrigin extends Effect.Service<PublicOrigin>()("Convene/PublicOrigin", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const server = yield* Effect.serviceOption(HttpServer.HttpServer)
    const port = Option.match(server, {
      onNone: () => config.port,
      onSome: ({ address }) => (address._tag === "TcpAddress" ? address.port : config.port)
    })
    const origin = Option.getOrElse(config.publicBaseUrl, () => `http://localhost:${port}`)
    return {
      origin,
      rsvpLink: (slug: string | null, token: string | null) =>
        slug === null || token === null ? null : `${origin}/rsvp/${encodeURIComponent(slug)}?invite=${token}`
    } as const
  })
}) {}
