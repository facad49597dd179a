/**
 * Idempotency keys over the database, on the suite's engine, under TestClock (the API's proof:
 * test/slow/idempotency.test.ts): a key is reserved once however many requests race for it; the
 * first answer is kept byte for byte (bytes that are no UTF-8 included) and replayed for 24 hours;
 * another request with the key is refused; a 5xx or a 429 is not kept, nor a request that ends
 * without an answer; keys are kept per caller. (The store's transactions, a key held while its
 * request runs and the purge: test/repo/idempotency-store.test.ts.)
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock } from "effect"
import { type Claim, Idempotency, RETENTION } from "../../src/Idempotency/Idempotency.js"
import { bareDatabase } from "../support/Database.js"

const bytes = (text: string) => new TextEncoder().encode(text)
// every byte value, and text beyond ASCII
const body = new Uint8Array([...bytes("{\"ok\":\"Zoë 😀\"}"), 0, 1, 127, 128, 200, 255])
const answer = { status: 201, contentType: "application/json; charset=utf-8", body }

const fresh = (claim: Claim) => {
  expect(claim._tag).toBe("Fresh")
  return (claim as Extract<Claim, { _tag: "Fresh" }>).running
}

layer(Idempotency.Default.pipe(Layer.provideMerge(bareDatabase())))("idempotency keys over the database (TestClock)", (it) => {
  it.scoped("one reservation however many race for a key; the first answer is kept byte for byte and replayed for 24 hours", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const fingerprint = bytes("POST /person\u0000{\"a\":1}\u00ff")
      // twelve requests with the key at once, each answering as soon as it runs
      const claims = yield* Effect.forEach(
        Array.from({ length: 12 }, () => 0),
        () =>
          Effect.scoped(Effect.flatMap(idempotency.claim("caller-race", "k", fingerprint), (c) =>
            c._tag === "Fresh" ? Effect.as(c.running.complete(answer), c._tag) : Effect.succeed(c._tag))),
        { concurrency: "unbounded" }
      )
      // one ran; the others were told it runs, or (on PostgreSQL, waiting for the write lock behind
      // it) found its answer
      expect(claims.filter((c) => c === "Fresh")).toHaveLength(1)
      expect(claims.filter((c) => c !== "Fresh" && c !== "InProgress" && c !== "Replay")).toEqual([])
      const claim = (text: Uint8Array) => Effect.scoped(idempotency.claim("caller-race", "k", text))
      const replay = yield* claim(fingerprint)
      expect(replay._tag).toBe("Replay")
      if (replay._tag === "Replay") {
        expect(replay.response.status).toBe(201)
        expect(replay.response.contentType).toBe(answer.contentType)
        expect([...replay.response.body]).toEqual([...body])
      }
      expect((yield* claim(bytes("another request")))._tag).toBe("Mismatch")
      yield* TestClock.adjust(Duration.subtract(RETENTION, Duration.millis(1)))
      expect((yield* claim(fingerprint))._tag).toBe("Replay")
      yield* TestClock.adjust(Duration.millis(1))
      expect((yield* claim(fingerprint))._tag).toBe("Fresh")
    }))

  it.scoped("5xx and 429 are not kept, nor a request that ends without an answer; keys are per caller", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const claim = (key: string, text = "a", caller = "caller") => idempotency.claim(caller, key, bytes(text))
      const tag = (key: string, text = "a", caller = "caller") => Effect.scoped(Effect.map(claim(key, text, caller), (c) => c._tag))
      yield* Effect.scoped(Effect.gen(function*() {
        fresh(yield* claim("k"))
        // held while its request runs, whatever the request
        expect(yield* tag("k")).toBe("InProgress")
        expect(yield* tag("k", "b")).toBe("InProgress")
        // (another caller's key waits for this request's transaction, the one writer on SQLite: below)
      }))
      // its request ended without an answer: the key is free
      for (const status of [500, 503, 429]) {
        yield* Effect.scoped(Effect.flatMap(claim("k"), (c) => fresh(c).complete({ ...answer, status })))
        expect(yield* tag("k")).toBe("Fresh")
      }
      yield* Effect.scoped(Effect.flatMap(claim("k"), (c) => fresh(c).complete({ ...answer, status: 422 })))
      expect(yield* tag("k")).toBe("Replay")
      expect(yield* tag("k", "b")).toBe("Mismatch")
      expect(yield* tag("k", "a", "someone else")).toBe("Fresh")
    }))
})
