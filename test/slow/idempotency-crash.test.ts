/**
 * Idempotency keys across crashes (CONTRACT §10, "Exactly once across crashes"): the service runs
 * as a process and is killed (SIGKILL) or stopped (SIGSTOP) in the middle of a keyed
 * `PUT /event/:id/guestlist` of 500 guests, then the request is sent again with its key. Whatever
 * the point, each guest ends with exactly one history entry from it, one GuestList notification is
 * delivered for it, and the retry answers 200: the first answer replayed (it committed) or its own
 * (it ran once). A key answers 409 only while its request really runs: after a crash it is free as
 * soon as the instance restarts (SQLite) or, from another instance, within 30 s (PostgreSQL).
 *
 * The kill points: at once (before the claim), at fractions of the request's measured life (all of
 * them on SQLite, every other one on PostgreSQL: each region is still reached), and as soon as its
 * writes are committed.
 *
 * Writing the answer is made slow (a trigger on the key table, `slowAnswers` in
 * support/KeyedRequests.ts), so that a kill lands there often: inside the request's transaction,
 * before its COMMIT. Code that stored the answer after the request's writes had committed (as
 * before) had those writes kept without it in that window.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { databaseEnvOf, onPostgres, openDatabase, viaPgBouncer } from "../support/Engine.js"
import { expectError, expectStatus } from "../support/Fixtures.js"
import { ageDeadHeartbeats } from "../support/Heartbeats.js"
import {
  accepting,
  environment,
  fastAnswers,
  FRACTIONS,
  importing,
  lifeOf,
  retry,
  slowAnswers,
  started,
  until,
  untilWriting
} from "../support/KeyedRequests.js"
import { type ServerProcess, startServer } from "../support/Process.js"
import { receiver } from "../support/Receiver.js"
import { send } from "../support/TestServer.js"

describe("Idempotency-Key across crashes", () => {
  // through PgBouncer (the `pgbouncer` project), only the PostgreSQL test below: these two meet
  // nothing a pooler changes
  it.scopedLive.skipIf(viaPgBouncer)("SIGKILL before the claim, during the write, while the answer is written, after COMMIT: a retry replays or runs once", () =>
    Effect.gen(function*() {
      const env = yield* environment
      const hook = yield* receiver
      let server: ServerProcess = yield* started(env, hook)
      let api = send(server.url)
      const database = yield* Effect.acquireRelease(Effect.promise(() => openDatabase(databaseEnvOf(env))), (db) => Effect.promise(db.close))

      const lifeMs = yield* lifeOf(api, accepting)

      // SQLite sweeps every fraction; PostgreSQL, the second engine, the first, middle and last of
      // them (0.15, 0.55, 0.9), which still reach each region: during the write (the earliest),
      // while the answer is written (most of a request's life there), and on both sides of the
      // COMMIT (the last lands before it or just after)
      const fractions = onPostgres ? FRACTIONS.filter((_, i) => i % 2 === 0) : FRACTIONS
      const points: Array<number | "commit"> = [0, ...fractions.map((f) => Math.round(f * lifeMs)), "commit"]
      const outcomes: Array<string> = []
      for (const point of points) {
        const scenario = yield* accepting(api)
        const inFlight = yield* Effect.fork(Effect.exit(scenario.send(api)))
        if (point === "commit") {
          // killed as soon as the request's writes are committed (its answer may not have reached the client)
          yield* until(scenario.committed(database.query), Date.now() + 4 * lifeMs)
        } else {
          yield* Effect.sleep(point)
        }
        yield* server.kill("SIGKILL")
        const first = yield* Fiber.join(inFlight)
        // PostgreSQL: the notifications the killed instance had claimed are released as soon as the
        // next one starts, as they would be 15 s later (support/Heartbeats.ts)
        yield* ageDeadHeartbeats(databaseEnvOf(env))
        // the retry writes its answer at full speed (nothing is killed while it runs); the next
        // point's request slowly again
        yield* fastAnswers(env)

        server = yield* startServer(env)
        api = send(server.url)
        // SQLite: free at once; PostgreSQL: the killed instance's session ends as soon as its
        // database server notices (at the end of the statement it runs)
        const { reply, waitedMs } = yield* retry(scenario.send(api), onPostgres ? 30_000 : 0)
        yield* slowAnswers(env)
        expectStatus(reply, 200)
        const replayed = reply.headers.get("idempotent-replayed") === "true"
        outcomes.push(`${point}→${first._tag === "Success" ? first.value.status : "cut"}/${replayed ? "replayed" : "ran"}${waitedMs > 0 ? ` (key free after ${waitedMs} ms)` : ""}`)
        yield* scenario.actedOnce(api, hook)
      }
      console.info(`keyed request's life ${lifeMs} ms; kill point → first answer / retry: ${outcomes.join(", ")}`)
      // the sweep saw both sides of the COMMIT
      expect(outcomes.some((o) => o.includes("replayed"))).toBe(true)
      expect(outcomes.some((o) => o.includes("ran"))).toBe(true)
    }), 300_000)

  it.scopedLive.skipIf(viaPgBouncer)("a key answers 409 while its request runs, and is free again once that request died: at restart (SQLite), from another instance at once (PostgreSQL)", () =>
    Effect.gen(function*() {
      const env = yield* environment
      const hook = yield* receiver
      const first = yield* started(env, hook)
      // on PostgreSQL, a second instance on the same database
      const other = onPostgres ? yield* startServer(env) : undefined
      const database = yield* Effect.acquireRelease(Effect.promise(() => openDatabase(databaseEnvOf(env))), (db) => Effect.promise(db.close))
      const lifeMs = yield* lifeOf(send(first.url), importing)

      const scenario = yield* importing(send(first.url))
      const inFlight = yield* Effect.fork(Effect.exit(scenario.send(send(first.url))))
      // running: its write transaction is open
      yield* untilWriting(database.query)
      expectError(yield* scenario.send(send(other?.url ?? first.url)), 409, "conflict")
      // killed once its writes are done (committed, for code that commits them before the answer),
      // or at the latest while its answer is written
      yield* until(scenario.committed(database.query), Date.now() + lifeMs * 0.6)
      yield* first.kill("SIGKILL")
      yield* Fiber.join(inFlight)

      const next = other ?? (yield* startServer(env))
      const { reply, waitedMs } = yield* retry(scenario.send(send(next.url)), onPostgres ? 30_000 : 0)
      expectStatus(reply, 200)
      if (onPostgres) expect(waitedMs, "the key is free soon after its instance died").toBeLessThan(5_000)
      console.info(`import's life ${lifeMs} ms; retry after the crash: ${reply.headers.get("idempotent-replayed") === "true" ? "replayed" : "ran"}, key free after ${waitedMs} ms`)
      yield* scenario.actedOnce(send(next.url), hook)
    }), 120_000)

  it.scopedLive.runIf(onPostgres)("PostgreSQL: an instance that hangs in the middle of a keyed request holds its key 20 s at most", () =>
    Effect.gen(function*() {
      const env = yield* environment
      const hook = yield* receiver
      const hung = yield* started(env, hook)
      const other = yield* startServer(env)
      const database = yield* Effect.acquireRelease(Effect.promise(() => openDatabase(databaseEnvOf(env))), (db) => Effect.promise(db.close))
      // one calibration (no warm-up): 10 % of it still lands inside the request's transaction,
      // which the slow answer alone keeps open 1.5 s
      const lifeMs = yield* lifeOf(send(hung.url), accepting, { warmUp: false })

      const scenario = yield* accepting(send(hung.url))
      const inFlight = yield* Effect.fork(Effect.exit(scenario.send(send(hung.url))))
      // stopped in the middle of its batch
      yield* untilWriting(database.query)
      yield* Effect.sleep(Math.round(lifeMs * 0.1))
      hung.child.kill("SIGSTOP")
      const stopped = Date.now()
      yield* Effect.addFinalizer(() => Effect.sync(() => hung.child.kill("SIGCONT")))
      expectError(yield* scenario.send(send(other.url)), 409, "conflict")
      const retried = Date.now()
      const { reply, waitedMs } = yield* retry(scenario.send(send(other.url)), 40_000)
      expectStatus(reply, 200)
      expect(reply.headers.get("idempotent-replayed")).toBeNull()
      // when the attempt that found the key free was sent
      const freeAfter = retried + waitedMs - stopped
      expect(freeAfter, "the hung instance's transaction ends within 30 s").toBeLessThan(30_000)
      console.info(`key free ${freeAfter} ms after its instance hung (retried for ${waitedMs} ms)`)

      // the hung instance wakes up: its transaction is gone, and so is everything it wrote; its
      // answer is a 5xx, never stored: 503 `unavailable` when the driver reports the connection
      // lost (through PgBouncer), else 500; either way a retry with the key replays the other's
      hung.child.kill("SIGCONT")
      const late = yield* Fiber.join(inFlight)
      expect(["500 internal", "503 unavailable"]).toContain(late._tag === "Success" ? `${late.value.status} ${late.value.body?.code}` : "cut")
      yield* scenario.actedOnce(send(other.url), hook)
    }), 120_000)
})
