/**
 * How long the server waits for a client that controls the pace (CONTRACT §18, "Streamed answers"
 * and "Request bodies"): what its request or answer holds meanwhile (a database snapshot or
 * connection, a share of the streamed answers, an import's memory) is given back when it runs out.
 * - A request body must arrive whole within `JSON_BODY_TIMEOUT` (forms and JSON) or
 *   `CSV_BODY_TIMEOUT` (a CSV import, up to 10 MiB), counted from when the server starts reading
 *   it, and no `BODY_STALL_TIMEOUT` may pass without a byte of it: otherwise 408
 *   `request_timeout` (Http/JsonBody.ts).
 * - A streamed answer whose client reads nothing for `STREAM_IDLE_TIMEOUT` is cut off
 *   (Http/JsonStream.ts).
 * The times run on the fiber's `Clock` (so `TestClock` moves them). Tests may also shorten them:
 * `AppLive.pipe(Layer.provide(Layer.succeed(ClientTimeouts, { ... })))` serves every request with
 * those; without it, the constants below apply.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"

export const JSON_BODY_TIMEOUT = Duration.seconds(60)
export const CSV_BODY_TIMEOUT = Duration.seconds(300)
export const BODY_STALL_TIMEOUT = Duration.seconds(30)
export const STREAM_IDLE_TIMEOUT = Duration.seconds(30)

export interface ClientTimeoutsShape {
  /** A JSON body or a form, whole. */
  readonly jsonBody: Duration.Duration
  /** A CSV import's body (the API's or the dashboard's upload), whole. */
  readonly csvBody: Duration.Duration
  /** Any body, between two of its bytes. */
  readonly bodyStall: Duration.Duration
  /** A streamed answer, between two reads of its client. */
  readonly streamIdle: Duration.Duration
}

export class ClientTimeouts extends Context.Reference<ClientTimeouts>()("Convene/ClientTimeouts", {
  defaultValue: (): ClientTimeoutsShape => ({
    jsonBody: JSON_BODY_TIMEOUT,
    csvBody: CSV_BODY_TIMEOUT,
    bodyStall: BODY_STALL_TIMEOUT,
    streamIdle: STREAM_IDLE_TIMEOUT
  })
}) {}
