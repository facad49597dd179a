/**
 * A typed client for Convene, made from the very HttpApi definition the server runs (`src/Api.ts`),
 * so its requests and answers have the server's types and schemas and cannot drift from them.
 * Outside this repository it is imported as `convene/client`.
 *
 * Two ways to use it:
 *
 * - **Effect**: `make({ baseUrl, token })` is `HttpApiClient.make(Api)` with the base URL and the
 *   `x-api-key` header set. It needs an `HttpClient` (`FetchHttpClient.layer` from
 *   `@effect/platform`, or Node's). Every endpoint is `client.<group>.<name>({ path, urlParams,
 *   payload })`; an error answer fails with the API's own error class (`NotFound`, `Conflict`,
 *   `InvalidRequest`, `RateLimited` with `retryAfter`, ...), told apart by `_tag`.
 * - **Promises**, for code that does not use Effect: `createConveneClient({ baseUrl, token })`
 *   answers plain async functions for persons, events, guest lists and the change feed (and
 *   `call`, the whole Effect client behind promises). An error answer is thrown as a
 *   `ConveneError` carrying the answer's status and its body's `code`, `message` and `issues`
 *   (docs/integrators.md#errors); a 429 also carries `retryAfter` in seconds.
 *
 * What it does not do: retry (a 429 or a network error is the caller's to handle), or send
 * `Idempotency-Key` per request (pass `headers` for headers sent on every request). Requests are
 * checked against the API's schemas before they are sent, on the side the server's handlers see:
 * strings must already be trimmed, limits in range, emails shaped like emails. A value the server
 * would refuse with 400 is then refused here already, as a `ParseError` (Effect) or a
 * `ConveneError` with status 0 and code `invalid_request` (promises), and nothing is sent.
 *
 * Its import graph holds the API's declarations only (schemas, endpoint and middleware tags), never
 * the server's implementation, database or templates; test/api/client.test.ts checks this.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import { Api } from "../Api.js"

export { Api } from "../Api.js"
export {
  Conflict,
  CursorExpired,
  Forbidden,
  IdempotencyKeyReused,
  InvalidRequest,
  NotFound,
  RateLimited,
  Unauthorized,
  Unavailable
} from "../Domain/Errors.js"
export { Internal, PayloadTooLarge } from "../Http/Errors.js"

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

// ---------------------------------------------------------------------------------------------
// The Effect client
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Types taken from the API definition
// ---------------------------------------------------------------------------------------------

type Groups = typeof Api extends HttpApi.HttpApi<infer _Id, infer G, infer _E, infer _R> ? G : never
/** The names of the API's groups (`persons`, `events`, `guests`, `changes`, ...). */
export type GroupName = HttpApiGroup.HttpApiGroup.Name<Groups>
type EndpointOf<G extends GroupName, N extends string> = HttpApiEndpoint.HttpApiEndpoint.WithName<
  HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, G>,
  N
>
/** The names of a group's endpoints. */
export type EndpointName<G extends GroupName> = HttpApiEndpoint.HttpApiEndpoint.Name<
  HttpApiGroup.HttpApiGroup.EndpointsWithName<Groups, G>
>
/** What an endpoint answers on success, as the client gives it. */
export type Success<G extends GroupName, N extends EndpointName<G>> = HttpApiEndpoint.HttpApiEndpoint.Success<EndpointOf<G, N>>
/** An endpoint's request body, as the client takes it. */
export type Payload<G extends GroupName, N extends EndpointName<G>> = HttpApiEndpoint.HttpApiEndpoint.Payload<EndpointOf<G, N>>
/** An endpoint's query parameters, as the client takes them. */
export type UrlParams<G extends GroupName, N extends EndpointName<G>> = HttpApiEndpoint.HttpApiEndpoint.UrlParams<EndpointOf<G, N>>

/** A person as lists answer it (`GET /person`, `GET /person?ids=`). */
export type Person = Success<"persons", "list">["persons"][number]
/** One person with custom fields and event history (`GET /person/{id}`). */
export type PersonDetail = Success<"persons", "get">
/** An event. */
export type Event = Success<"events", "get">
/** A guest: a person on an event's guest list. */
export type Guest = Success<"guests", "list">["guests"][number]
/** A page of the change feed, and one change (docs/integrators.md#syncing-with-the-change-feed). */
export type ChangesPage = Success<"changes", "list">
export type Change = ChangesPage["changes"][number]

// ---------------------------------------------------------------------------------------------
// The promise wrapper
// ---------------------------------------------------------------------------------------------

/** One problem of a 400, naming the field with dots (`guests.3.personId`). */
export interface ErrorIssue {
  readonly path: string
  readonly message: string
}

/**
 * A request that did not succeed. `status` is the HTTP status (0 when no answer came: the network
 * failed, or the request broke the API's schemas before it was sent); `code` is the error body's
 * `code` (docs/integrators.md#error-codes), or `request_failed` (no answer), `invalid_request` (refused
 * before sending), `invalid_response` (an answer the client could not read) or `unexpected_status`
 * (an answer without Convene's error body, e.g. from a proxy); `details` is the error body as sent.
 */
export class ConveneError extends Error {
  override readonly name = "ConveneError"
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: ReadonlyArray<ErrorIssue>,
    readonly details: unknown,
    /** Seconds to wait before retrying, from a 429's `Retry-After`. */
    readonly retryAfter: number | undefined,
    options?: { readonly cause?: unknown }
  ) {
    super(message, options)
  }
}

/** The last answer a promise call got, read when the call fails (each call runs in its own fiber). */
interface LastAnswer {
  readonly status: number
  readonly body: string | undefined
  readonly retryAfter: string | undefined
}
const lastAnswer = FiberRef.unsafeMake<Option.Option<LastAnswer>>(Option.none())

const remember = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.tap(client, (response) =>
    Effect.flatMap(
      response.status < 400 ? Effect.succeed(undefined) : Effect.orElseSucceed(response.text, () => undefined),
      (body) =>
        FiberRef.set(
          lastAnswer,
          Option.some({ status: response.status, body, retryAfter: response.headers["retry-after"] })
        )
    ))

const parseJson = (text: string | undefined): unknown => {
  if (text === undefined || text === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const issuesOf = (body: unknown): ReadonlyArray<ErrorIssue> => {
  const issues = typeof body === "object" && body !== null ? (body as { issues?: unknown }).issues : undefined
  return Array.isArray(issues)
    ? issues.filter((i): i is ErrorIssue => typeof i?.path === "string" && typeof i?.message === "string")
    : []
}

const toConveneError = (error: unknown, answer: Option.Option<LastAnswer>): ConveneError => {
  if (Option.isSome(answer) && answer.value.status >= 400) {
    const { status, body: text, retryAfter } = answer.value
    const body = parseJson(text)
    const fields = typeof body === "object" && body !== null ? body as { code?: unknown; message?: unknown } : {}
    const code = typeof fields.code === "string" ? fields.code : "unexpected_status"
    const message = typeof fields.message === "string" ? fields.message : `HTTP ${status}`
    const seconds = retryAfter === undefined ? undefined : Number(retryAfter)
    return new ConveneError(status, code, message, issuesOf(body), body ?? text, Number.isFinite(seconds) ? seconds : undefined, {
      cause: error
    })
  }
  if (ParseResult.isParseError(error)) {
    const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => ({
      path: i.path.map(String).join("."),
      message: i.message
    }))
    return Option.isSome(answer)
      ? new ConveneError(answer.value.status, "invalid_response", `The answer could not be read: ${error.message}`, issues, undefined, undefined, { cause: error })
      : new ConveneError(0, "invalid_request", `The request breaks the API's schema: ${error.message}`, issues, undefined, undefined, { cause: error })
  }
  const message = error instanceof Error ? error.message : String(error)
  return new ConveneError(0, "request_failed", message, [], undefined, undefined, { cause: error })
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(
    Effect.catchAll(effect, (error) => Effect.flatMap(FiberRef.get(lastAnswer), (answer) => Effect.fail(toConveneError(error, answer))))
  ).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    throw Option.isSome(failure) ? failure.value : toConveneError(Cause.squash(exit.cause), Option.none())
  })

/** Guest-list write items, as `POST`, `PUT` and `DELETE /event/{id}/guestlist` take them. */
export type NewGuest = Payload<"guests", "add">["guests"][number]
export type GuestUpdate = Payload<"guests", "update">["guests"][number]
export type GuestRef = Payload<"guests", "remove">["guests"][number]

/**
 * The promise client: plain async functions over the Effect client, on the global `fetch`.
 * Parameters and answers have the API's types; every failure is a `ConveneError`.
 */
export const createConveneClient = (options: ClientOptions) => {
  const client: ConveneClient = Effect.runSync(
    make({ ...options, transformClient: remember }).pipe(Effect.provide(FetchHttpClient.layer))
  )
  const ids = (values: ReadonlyArray<string>) => values.join(",")
  return {
    persons: {
      /** A page of the active persons, in creation order (`limit` 1 to 100, `skip`). */
      list: (params: Omit<UrlParams<"persons", "list">, "ids"> = {}) => run(client.persons.list({ urlParams: params })),
      /** The persons with these ids (1 to 100), archived ones included; unknown ids are left out. */
      byIds: (personIds: ReadonlyArray<string>) => run(client.persons.list({ urlParams: { ids: ids(personIds) } })),
      search: (params: UrlParams<"persons", "search">) => run(client.persons.search({ urlParams: params })),
      get: (id: string) => run(client.persons.get({ path: { id } })),
      create: (person: Payload<"persons", "create">) => run(client.persons.create({ payload: person })),
      /** Changes the fields given (`personId` is added from `id`). */
      update: (id: string, changes: Omit<Payload<"persons", "update">, "personId">) =>
        run(client.persons.update({ path: { id }, payload: { ...changes, personId: id } as Payload<"persons", "update"> })),
      /** `DELETE /person/{id}`: archives the person. */
      archive: (id: string) => run(client.persons.archive({ path: { id } })),
      unarchive: (id: string) => run(client.persons.unarchive({ path: { id } })),
      /** The active (or, with `archived: true`, the archived) persons as CSV text. */
      exportCsv: (params: UrlParams<"persons", "exportCsv"> = {}) => run(client.persons.exportCsv({ urlParams: params }))
    },
    events: {
      list: (params: UrlParams<"events", "list"> = {}) => run(client.events.list({ urlParams: params })),
      get: (id: string) => run(client.events.get({ path: { id } })),
      create: (event: Payload<"events", "create">) => run(client.events.create({ payload: event })),
      update: (id: string, changes: Payload<"events", "update">) => run(client.events.update({ path: { id }, payload: changes }))
    },
    guests: {
      /** Every guest of the event, in the order they were added. */
      list: (eventId: string) => run(client.guests.list({ path: { id: eventId }, urlParams: {} })),
      /** The guests with these personIds (1 to 100); persons not on the list are left out. */
      byPersonIds: (eventId: string, personIds: ReadonlyArray<string>) =>
        run(client.guests.list({ path: { id: eventId }, urlParams: { personIds: ids(personIds) } })),
      search: (eventId: string, params: UrlParams<"guests", "search">) =>
        run(client.guests.search({ path: { id: eventId }, urlParams: params })),
      add: (eventId: string, guests: ReadonlyArray<NewGuest>) =>
        run(client.guests.add({ path: { id: eventId }, payload: { guests } as Payload<"guests", "add"> })),
      update: (eventId: string, guests: ReadonlyArray<GuestUpdate>) =>
        run(client.guests.update({ path: { id: eventId }, payload: { guests } as Payload<"guests", "update"> })),
      remove: (eventId: string, guests: ReadonlyArray<GuestRef>) =>
        run(client.guests.remove({ path: { id: eventId }, payload: { guests } as Payload<"guests", "remove"> }))
    },
    changes: {
      /** A page of the change feed after `after` (docs/integrators.md#syncing-with-the-change-feed). */
      list: (params: UrlParams<"changes", "list"> = {}) => run(client.changes.list({ urlParams: params }))
    },
    /** Any other endpoint: `call((c) => c.webhooks.list({}))` runs an Effect client call as a promise. */
    call: <A, E>(f: (client: ConveneClient) => Effect.Effect<A, E>) => run(f(client))
  }
}

/** The promise client's type. */
export type ConvenePromiseClient = ReturnType<typeof createConveneClient>
