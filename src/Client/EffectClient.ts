/**
 * The Effect client (index.ts): `HttpApiClient.make(Api)` with the base URL and the credentials of
 * `ClientOptions` set, and the same as a service (`Convene`).
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Api } from "../Api.js"

/** Where and as whom a client calls. */
export interface ClientOptions {
  /** The installation's base URL, with its path prefix if it has one: `https://events.example.org`. */
  readonly baseUrl: string | URL
  /** An API token (`cvn_...`), sent as `x-api-key` (docs/integrators.md#api-tokens). */
  readonly token?: string | undefined
  /** Headers sent on every request, e.g. `authorization` and `organizationSlug` for a login access token. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

const withCredentials = (options: ClientOptions) => (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.mapRequest(client, (request) => {
    const withHeaders = options.headers === undefined ? request : HttpClientRequest.setHeaders(request, options.headers)
    return options.token === undefined ? withHeaders : HttpClientRequest.setHeader(withHeaders, "x-api-key", options.token)
  })

/**
 * The Effect client: every group and endpoint of the API, `client.persons.get({ path: { id } })`.
 * `transformClient` runs after the credentials are added (add retries, logging, a timeout there).
 */
export const make = (
  options: ClientOptions & {
    readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  }
) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) => {
      const credentialed = withCredentials(options)(client)
      return options.transformClient === undefined ? credentialed : options.transformClient(credentialed)
    }
  })

/** The Effect client's type. */
export type ConveneClient = Effect.Effect.Success<ReturnType<typeof make>>

/** The Effect client as a service, for programs that provide it once with `Convene.layer`. */
export class Convene extends Context.Tag("convene/client/Convene")<Convene, ConveneClient>() {
  /** The client for `options`, over the `HttpClient` the program provides. */
  static readonly layer = (options: ClientOptions) => Layer.effect(Convene, make(options))
}
