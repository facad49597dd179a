/**
 * The server's implementation of the `Idempotent` middleware declared in `Idempotent.ts`
 * (docs/integrators.md#idempotency-keys): it checks the request's `Idempotency-Key` in the key
 * store (`Idempotency.ts`), replays a kept answer, refuses a reused or running key, and otherwise
 * runs the request in one write transaction that its answer commits with.
 *
 * How the handler comes to run in that transaction: HttpApi composes an endpoint's middleware and
 * its handler in one fiber, one after the other (`HttpApiBuilder`'s `applyMiddleware`: this
 * middleware, then the handler, inside the access middleware's `provideService`), and does not let
 * a middleware wrap the handler. So this middleware adds the transaction's connection to the
 * fiber's context (`FiberRef.currentContext`) as `@effect/sql`'s `TransactionConnection`, as
 * `sql.withTransaction` adds it around its effect: the handler, which runs next in this fiber, finds
 * it, and every statement it makes runs on that connection (`sql` and `DirectSql` alike, on both
 * engines), its services' own `sql.withTransaction` becoming savepoints. The context is restored
 * when the access middleware's `provideService` ends, after the handler. The answer is known only
 * once it is encoded (an error's body included), so the transaction ends in a pre-response handler,
 * which runs before the response is sent: the answer written in it, then COMMIT; a 5xx, or a
 * request interrupted on the way (its client left, the server stopping: it may have been cut
 * anywhere), rolls everything back. A request that ends any other way without reaching it is
 * rolled back when the request's scope closes (`DirectSql.open`); a crash rolls back by itself.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerRespondable from "@effect/platform/HttpServerRespondable"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import { CurrentCaller, CurrentSession } from "../Domain/Caller.js"
import { Conflict, IdempotencyKeyReused, InvalidRequest } from "../Domain/Errors.js"
import { Idempotency, type Running, type StoredResponse } from "./Idempotency.js"
import { Idempotent } from "./Idempotent.js"

/**
 * A replayed answer. A middleware cannot answer by itself, only fail: it fails with this, an error
 * that is its own response (`HttpServerRespondable`), which the error mapping sends as it is. The
 * API declares no schema for it: its status and body are whatever the first answer's were.
 */
export class IdempotentReplay implements HttpServerRespondable.Respondable {
  readonly _tag = "IdempotentReplay"
  constructor(readonly response: StoredResponse) {}
  [HttpServerRespondable.symbol]() {
    return Effect.succeed(HttpServerResponse.uint8Array(this.response.body, {
      status: this.response.status,
      ...(this.response.contentType === null ? {} : { contentType: this.response.contentType }),
      headers: { "idempotent-replayed": "true" }
    }))
  }
}

const KEY = /^[\x20-\x7e]{1,255}$/

const bodyOf = (response: HttpServerResponse.HttpServerResponse): StoredResponse => ({
  status: response.status,
  contentType: response.body._tag === "Empty" ? null : response.body.contentType ?? null,
  body: response.body._tag === "Uint8Array" ? response.body.body : new Uint8Array()
})

/**
 * Whose keys a request's key is among: the caller in the organization it acts in (one login access
 * token acts in every organization of its user, chosen by the `organizationSlug` header, so the
 * same key and request sent for another organization is another request), or a signed-in user
 * acting in no organization (accepting an invitation link).
 */
const scopeOfRequest = Effect.gen(function*() {
  const caller = yield* Effect.serviceOption(CurrentCaller)
  if (Option.isSome(caller)) return `${caller.value.callerKey} org:${caller.value.organizationId}`
  const session = yield* Effect.serviceOption(CurrentSession)
  if (Option.isSome(session)) return session.value.callerKey
  return yield* Effect.dieMessage("Idempotent must run after the access middleware")
})

/** The answer when the transaction could not commit: nothing of the request was kept. */
const notCommitted = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.unsafeJson({ message: "Internal server error", code: "internal" }, { status: 500, headers: response.headers })

/**
 * The pre-response handler that ends the request's transaction (it may run twice: the platform
 * runs the handlers again on the 500 that replaces an answer whose handlers failed).
 */
const finish = (running: Running) => {
  let done = false
  return (_: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) =>
    Effect.suspend(() => {
      if (done) return Effect.succeed(response)
      done = true
      return Effect.zipRight(
        // nothing after this answer may find the transaction, which is over
        FiberRef.update(FiberRef.currentContext, Context.omit(SqlClient.TransactionConnection)),
        Effect.flatMap(FiberRef.get(FiberRef.interruptedCause), (interrupted) =>
          // an interrupted request may have been cut anywhere: nothing of it is kept, whatever its answer
          !Cause.isEmpty(interrupted)
            ? Effect.as(running.transaction.rollback, response)
            : running.complete(bodyOf(response)).pipe(
              Effect.as(response),
              Effect.catchAllCause((cause) =>
                Effect.as(Effect.logError("Idempotency-Key: the request's transaction did not commit", cause), notCommitted(response))
              )
            ))
      )
    })
}

export const IdempotentLive = Layer.effect(
  Idempotent,
  Effect.map(Idempotency, (store) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = request.headers["idempotency-key"]
      if (key === undefined) return
      if (!KEY.test(key)) return yield* InvalidRequest.at("Idempotency-Key", "must be 1 to 255 printable ASCII characters")
      const scope = yield* scopeOfRequest
      const body = yield* Effect.orElseSucceed(request.text, () => "")
      const fingerprint = createHash("sha256").update(`${request.method} ${request.url}\n`).update(body).digest()
      const claim = yield* store.claim(scope, key, fingerprint)
      switch (claim._tag) {
        case "Mismatch":
          return yield* new IdempotencyKeyReused({
            message: "This Idempotency-Key was used with a different request"
          })
        case "InProgress":
          return yield* new Conflict({ message: "A request with this Idempotency-Key is still in progress" })
        case "Replay":
          // not among the declared failures (see IdempotentReplay)
          return yield* (Effect.fail(new IdempotentReplay(claim.response)) as Effect.Effect<never>)
        case "Fresh":
          // the handler runs next, in this fiber: in the request's transaction (see the top)
          yield* FiberRef.update(FiberRef.currentContext, Context.add(SqlClient.TransactionConnection, claim.running.transaction.connection))
          yield* HttpApp.appendPreResponseHandler(finish(claim.running))
      }
    }))
)
