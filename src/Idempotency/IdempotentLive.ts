/**
 * The server's implementation of the `Idempotent` middleware declared in `Idempotent.ts`
 * (docs/integrators.md#idempotency-keys): it claims the request's `Idempotency-Key` in the key store,
 * replays a kept answer, refuses a reused or running key, and keeps the first answer.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createHash } from "node:crypto"
import { CurrentCaller, CurrentSession } from "../Domain/Caller.js"
import { Conflict, IdempotencyKeyReused, InvalidRequest } from "../Domain/Errors.js"
import { Idempotency, type StoredResponse } from "./Idempotency.js"
import { Idempotent } from "./Idempotent.js"

/**
 * A replayed answer. The middleware cannot answer by itself, so it ends the request with this
 * signal, and the error mapping (which sees it first) sends the stored response.
 */
export class IdempotentReplay {
  readonly _tag = "IdempotentReplay"
  constructor(readonly response: StoredResponse) {}
}

export const replayResponse = ({ response }: IdempotentReplay) =>
  HttpServerResponse.uint8Array(response.body, {
    status: response.status,
    ...(response.contentType === null ? {} : { contentType: response.contentType }),
    headers: { "idempotent-replayed": "true" }
  })

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
          return yield* Effect.die(new IdempotentReplay(claim.response))
        case "Fresh":
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.as(store.complete(scope, key, bodyOf(response)), response)
          )
          // a request that ends without an answer to keep (its client left) frees the key at once
          yield* Effect.addFinalizer(() => store.release(scope, key))
      }
    }))
)
