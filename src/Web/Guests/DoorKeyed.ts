/**
 * The door's JSON answers, kept by `Idempotency-Key` as the API keeps its answers (CONTRACT §10): a
 * check-in queued offline is sent again until an answer arrives, with the key it was given when it
 * was made; the same key answers the first answer again without acting twice, another request under
 * it 422, one still running 409. The write runs in the transaction that keeps its answer (the key
 * store's, `Idempotency/Idempotency.ts`), so a crash keeps both or neither.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { Idempotency } from "../../Idempotency/Idempotency.js"
import { pageHeaders } from "../Kit/Headers.js"

const KEY = /^[\x20-\x7e]{1,255}$/

/** A JSON answer, with the pages' headers (no caching, nothing sniffed). */
export const jsonAnswer = (status: number, body: unknown) =>
  HttpServerResponse.unsafeJson(body, { status, headers: pageHeaders })

const stored = (status: number, body: Uint8Array) =>
  HttpServerResponse.uint8Array(body, { status, contentType: "application/json", headers: { ...pageHeaders, "idempotent-replayed": "true" } })

/**
 * Answers `answer` as JSON, under the request's `Idempotency-Key` when it has one: `scope` is whose
 * keys it is among, `form` the request's body (what the key must be sent with again).
 */
export const keyedJson = <E, R>(store: Idempotency, scope: string, form: string, answer: Effect.Effect<{ readonly status: number; readonly body: unknown }, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = request.headers["idempotency-key"]
    if (key === undefined) return yield* Effect.map(answer, (a) => jsonAnswer(a.status, a.body))
    if (!KEY.test(key)) return jsonAnswer(400, { message: "Idempotency-Key must be 1 to 255 printable ASCII characters", code: "invalid_request" })
    const fingerprint = createHash("sha256").update(`${request.method} ${request.url}\n`).update(form).digest()
    return yield* Effect.scoped(Effect.gen(function*() {
      const claim = yield* store.claim(`door ${scope}`, key, fingerprint)
      switch (claim._tag) {
        case "Mismatch":
          return jsonAnswer(422, { message: "This Idempotency-Key was used with a different request", code: "idempotency_key_reused" })
        case "InProgress":
          return jsonAnswer(409, { message: "A request with this Idempotency-Key is still in progress", code: "conflict" })
        case "Replay":
          return stored(claim.response.status, claim.response.body)
        case "Fresh": {
          const { running } = claim
          const done = yield* answer.pipe(Effect.provideService(SqlClient.TransactionConnection, running.transaction.connection))
          const body = new TextEncoder().encode(JSON.stringify(done.body))
          yield* running.complete({ status: done.status, contentType: "application/json", body }).pipe(Effect.orDie)
          return HttpServerResponse.uint8Array(body, { status: done.status, contentType: "application/json", headers: pageHeaders })
        }
      }
    }))
  })
