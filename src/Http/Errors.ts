/**
 * The errors only the HTTP edge raises, never a service: a request body over its limit or not
 * received in time, and the answer to a defect. The errors services fail with are in Domain/Errors.ts.
 */
import * as Schema from "effect/Schema"
import { fields, wire } from "../Domain/Errors.js"

/** 413: a body over 1 MiB. */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", fields) {
  static readonly Wire = wire(PayloadTooLarge, {
    code: "payload_too_large",
    status: 413,
    description: "The request body is over 1,048,576 bytes.",
    make: (body) => new PayloadTooLarge(body)
  })
}

/** 408: a request body not received in time (Http/ClientTimeouts.ts). */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", fields) {
  static readonly Wire = wire(RequestTimeout, {
    code: "request_timeout",
    status: 408,
    description: "The request body did not arrive in time: whole within 60 s (300 s for a CSV import), with no pause of 30 s.",
    make: (body) => new RequestTimeout(body)
  })
}

/**
 * A refusal for want of room (no free import slot, no share of the streamed answers): 503
 * `unavailable` with `Retry-After`, nothing changed. Raised as a defect by handlers whose
 * endpoints declare no 503; the error mapping answers any defect that is `Busy` so.
 */
export interface Busy {
  readonly [BusyTypeId]: BusyTypeId
  readonly message: string
  /** Seconds after which trying again is sensible. */
  readonly retryAfter: number
}
export const BusyTypeId: unique symbol = Symbol.for("Convene/Busy")
export type BusyTypeId = typeof BusyTypeId
export const isBusy = (u: unknown): u is Busy => typeof u === "object" && u !== null && BusyTypeId in u

/** 500: a defect. The body never carries a stack trace or SQL. */
export class Internal extends Schema.TaggedError<Internal>()("Internal", fields) {
  static readonly Wire = wire(Internal, {
    code: "internal",
    status: 500,
    description: "An unexpected error; it is logged with the request id.",
    make: (body) => new Internal(body)
  })
}
