/**
 * Idempotency keys over the database, on the suite's engine, under TestClock (the API's proof:
 * test/slow/idempotency.test.ts): a key is reserved once however many requests race for it; the
 * first answer is kept byte for byte (bytes that are no UTF-8 included) and replayed for 24 hours;
 * another request with the key is refused; a key left running is free again after five minutes; a
 * 5xx or a 429 is not kept; keys are kept per caller.
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock } from "effect"
import { ABANDONED_AFTER, Idempotency, RETENTION } from "../../src/Idempotency/Idempotency.js"
import { bareDatabase } from "../support/Database.js"

const bytes = (text: string) => new TextEncoder().encode(text)
// every byte value, and text beyond ASCII
const body = new Uint8Array([...bytes("{\"ok\":\"Zoë 😀\"}"), 0, 1, 127, 128, 200, 255])
const answer = { status: 201, contentType: "application/json; charset=utf-8", body }

layer(Idempotency.Default.pipe(Layer.provideMerge(bareDatabase())))("idempotency keys over the database (TestClock)", (it) => {
  it.effect("one reservation however many race for a key; the first answer is kept byte for byte and replayed for 24 hours", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const fingerprint = bytes("POST /person\u0000{\"a\":1}\u00ff")
      const claims = yield* Effect.forEach(
        Array.from({ length: 12 }, () => 0),
        () => Effect.map(idempotency.claim("caller-race", "k", fingerprint), (c) => c._tag),
        { concurrency: "unbounded" }
      )
      expect(claims.filter((c) => c === "Fresh")).toHaveLength(1)
      expect(claims.filter((c) => c !== "Fresh")).toEqual(Array(11).fill("InProgress"))
      yield* idempotency.complete("caller-race", "k", answer)
      const replay = yield* idempotency.claim("caller-race", "k", fingerprint)
      expect(replay._tag).toBe("Replay")
      if (replay._tag === "Replay") {
        expect(replay.response.status).toBe(201)
        expect(replay.response.contentType).toBe(answer.contentType)
        expect([...replay.response.body]).toEqual([...body])
      }
      expect((yield* idempotency.claim("caller-race", "k", bytes("another request")))._tag).toBe("Mismatch")
      yield* TestClock.adjust(Duration.subtract(RETENTION, Duration.millis(1)))
      expect((yield* idempotency.claim("caller-race", "k", fingerprint))._tag).toBe("Replay")
      yield* TestClock.adjust(Duration.millis(1))
      expect((yield* idempotency.claim("caller-race", "k", fingerprint))._tag).toBe("Fresh")
    }))

  it.effect("a key left running is free after ABANDONED_AFTER; 5xx and 429 are not kept; keys are per caller", () =>
    Effect.gen(function*() {
      const idempotency = yield* Idempotency
      const claim = (key: string, text = "a", caller = "caller") => Effect.map(idempotency.claim(caller, key, bytes(text)), (c) => c._tag)
      expect(yield* claim("k")).toBe("Fresh")
      expect(yield* claim("k")).toBe("InProgress")
      expect(yield* claim("k", "b")).toBe("Mismatch")
      expect(yield* claim("k", "a", "someone else")).toBe("Fresh")
      yield* TestClock.adjust(ABANDONED_AFTER)
      expect(yield* claim("k")).toBe("Fresh")
      for (const status of [500, 503, 429]) {
        yield* idempotency.complete("caller", "k", { ...answer, status })
        expect(yield* claim("k")).toBe("Fresh")
      }
      // a request that ends without an answer lets its key go; releasing a kept answer changes nothing
      yield* idempotency.release("caller", "k")
      expect(yield* claim("k")).toBe("Fresh")
      yield* idempotency.complete("caller", "k", { ...answer, status: 422 })
      yield* idempotency.release("caller", "k")
      expect(yield* claim("k")).toBe("Replay")
    }))
})
