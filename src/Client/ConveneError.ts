/**
 * The promise client's failures: every one a `ConveneError`, made from the last answer the call
 * got (its status, the error body's `code`, `message` and `issues`, a 429's `Retry-After`), or from
 * a request refused before it was sent, or from no answer at all. `run` runs an Effect client call
 * as a promise with that error.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"

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

export const remember = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
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

export const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(
    Effect.catchAll(effect, (error) => Effect.flatMap(FiberRef.get(lastAnswer), (answer) => Effect.fail(toConveneError(error, answer))))
  ).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    throw Option.isSome(failure) ? failure.value : toConveneError(Cause.squash(exit.cause), Option.none())
  })
