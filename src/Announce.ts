/** What a person starting the service reads: where it listens and, on first start, how to get in. */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig, databaseLabel } from "./Config/AppConfig.js"
import { FirstStart } from "./Auth/Bootstrap.js"
import { unsetAddressWarning } from "./Runtime/PublicAddressWarning.js"
import { PublicOrigin } from "./Runtime/PublicOrigin.js"

export const baseUrlOf = (address: HttpServer.Address): string =>
  address._tag === "UnixAddress"
    ? `http+unix://${address.path}`
    : `http://${address.hostname === "0.0.0.0" || address.hostname === "::" ? "localhost" : address.hostname}:${address.port}`

export const AnnounceLive = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const config = yield* AppConfig
  const firstStart = yield* FirstStart
  const url = baseUrlOf(server.address)
  const dashboard = Option.match(config.publicBaseUrl, { onNone: () => `${url}/app`, onSome: (base) => `${base}/app` })
  yield* Console.log(`Convene is listening on ${url} (database ${databaseLabel(config)}); API docs at ${url}/docs`)
  yield* Console.log(`Dashboard: ${dashboard}`)
  // every link that leaves the server is built on PUBLIC_BASE_URL (CONTRACT §16, "Public address")
  const publicAddress = (yield* PublicOrigin).baseUrl
  if (Option.isNone(config.publicBaseUrl)) yield* Effect.logWarning(unsetAddressWarning(publicAddress))
  if (Option.isSome(firstStart)) {
    const { adminEmail, adminPassword, apiToken, organizationSlug } = firstStart.value
    yield* Console.log([
      "",
      `First start: created organization "${organizationSlug}" with a Super Admin and an API token.`,
      "These are shown only now; keep them somewhere safe.",
      `  dashboard:      ${dashboard}  (sign in with the email and password below)`,
      `  admin email:    ${adminEmail}`,
      `  admin password: ${Redacted.value(adminPassword)}`,
      `  API token:      ${Redacted.value(apiToken)}`,
      `  public address: ${publicAddress}  (${
        Option.isSome(config.publicBaseUrl) ? "PUBLIC_BASE_URL" : "PUBLIC_BASE_URL is not set: set it to the address people use"
      }; your public events: ${publicAddress}/o/${organizationSlug})`,
      "Try it:",
      `  curl -H "x-api-key: ${Redacted.value(apiToken)}" ${url}/person`,
      ""
    ].join("\n"))
  }
}))
