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
export { ConveneError, type ErrorIssue } from "./ConveneError.js"
export { type ClientOptions, Convene, type ConveneClient, make } from "./EffectClient.js"
export { type ConvenePromiseClient, createConveneClient } from "./PromiseClient.js"
export type {
  Change,
  ChangesPage,
  EndpointName,
  Event,
  GroupName,
  Guest,
  GuestRef,
  GuestUpdate,
  NewGuest,
  Payload,
  Person,
  PersonDetail,
  Success,
  UrlParams
} from "./Types.js"
