/**
 * Idempotency keys across crashes (CONTRACT §10, "Exactly once across crashes"): the service runs
 * as a process and is killed (SIGKILL) or stopped (SIGSTOP) in the middle of a keyed
 * `PUT /event/:id/guestlist` of 500 guests, then the request is sent again with its key. Whatever
 * the point, each guest ends with exactly one history entry from it, one GuestList notification is
 * delivered for it, and the retry answers 200: the first answer replayed (it committed) or its own
 * (it ran once). A key answers 409 only while its request really runs: after a crash it is free as
 * soon as the instance restarts (SQLite) or, from another instance, within 30 s (PostgreSQL).
 *
 * Writing the answer is made slow (a trigger on the key table, `slowAnswers`), so that a kill
 * lands there often: inside the request's transaction, before its COMMIT. Code that stored the
 * answer after the request's writes had committed (as before) had those writes kept without it
 * in that window.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { join } from "node:path"
import { WRITE_LOCK } from "../src/Db/Postgres.js"
import { databaseEnvOf, onPostgres, openDatabase, type Query, withDatabase } from "./support/Engine.js"
import { createEvent, eventually, expectError, expectStatus, uniqueEmail } from "./support/Fixtures.js"
import { type ServerProcess, startServer } from "./support/Process.js"
import { receiver } from "./support/Receiver.js"
import { type Reply, send, temporaryDirectory, testEnvironment } from "./support/TestServer.js"

const GUESTS = 500
/** Kill delays, as fractions of a keyed request's whole life here (measured first). */
const FRACTIONS = [0.15, 0.35, 0.55, 0.75, 0.9]
/** Rows of the import (Scenario `importing`). */
const IMPORTED = 2_000

type Api = ReturnType<typeof send>

/** Writing an answer into the key table takes about a second and a half more (the request's transaction is open meanwhile). */
const slowAnswers = (env: Record<string, string>) =>
  Effect.promise(() =>
    withDatabase(databaseEnvOf(env), async (query) => {
      if (onPostgres) {
        await query(`CREATE FUNCTION idempotency_slow() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$`)
        await query(`CREATE TRIGGER idempotency_slow BEFORE INSERT OR UPDATE ON idempotency_keys
          FOR EACH ROW WHEN (NEW.status IS NOT NULL) EXECUTE FUNCTION idempotency_slow()`)
        return
      }
      // SQLite cannot sleep: it counts to five million instead
      const spin = "SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT x FROM c);"
      for (const on of ["INSERT", "UPDATE"]) {
        await query(`CREATE TRIGGER idempotency_slow_${on.toLowerCase()} AFTER ${on} ON idempotency_keys
          WHEN NEW.status IS NOT NULL BEGIN ${spin} END`)
      }
    })
  )

type Hook = Effect.Effect.Success<typeof receiver>

/** A keyed request on an event of its own. */
interface Scenario {
  readonly eventId: string
  readonly send: (to: Api) => Effect.Effect<Reply>
  /** Whether its writes are committed, read in the database. */
  readonly committed: (query: Query) => Effect.Effect<boolean>
  /**
   * It acted exactly once: one history entry of it per guest, and one GuestList notification for
   * it delivered (a redelivery of the same message after a crash has its `webhook-id`:
   * at-least-once delivery, CONTRACT §8).
   */
  readonly actedOnce: (api: Api, hook: Hook) => Effect.Effect<void>
}

const countOf = (query: Query, text: string, eventId: string) =>
  Effect.promise(() => query<{ n: number }>(text, [eventId])).pipe(Effect.map((rows) => Number(rows[0]!.n)))

/** Each guest has `entries` history entries, and one GuestList notification about the event (`marker` in its body) was delivered. */
const once = (api: Api, hook: Hook, eventId: string, guests: number, entries: number, marker: string) =>
  Effect.gen(function*() {
    const list = expectStatus(yield* api("GET", `/event/${eventId}/guestlist`), 200).body.guests as Array<{ rsvpStatusHistory: Array<unknown> }>
    expect(list).toHaveLength(guests)
    expect(new Set(list.map((g) => g.rsvpStatusHistory.length)), "history entries per guest").toEqual(new Set([entries]))
    const ofRequest = () =>
      new Set(hook.received.filter((r) => r.body.includes(eventId) && r.body.includes(marker)).map((r) => r.headers["webhook-id"]))
    yield* eventually(Effect.sync(ofRequest), (ids) => ids.size > 0, 20_000)
    yield* eventually(
      Effect.map(api("GET", "/webhook/deliveries?status=pending"), (r) => r.body.total as number),
      (pending) => pending === 0,
      20_000
    )
    expect(ofRequest().size, "GuestList notifications of the request").toBe(1)
  })

/** An event with 500 guests, and the keyed `PUT /event/:id/guestlist` that accepts them all (one history entry each). */
const accepting = (api: Api) =>
  Effect.gen(function*() {
    const event = yield* createEvent({ request: api })
    const eventId = event.eventId as string
    const guests = Array.from({ length: GUESTS }, (_, n) => ({ firstName: "Once", lastName: `${n}`, email: uniqueEmail("once") }))
    const added = expectStatus(yield* api("POST", `/event/${eventId}/guestlist`, { body: { guests } }), 200)
    const personIds: Array<string> = added.body.guests.map((g: { personId: string }) => g.personId)
    const request = {
      body: { guests: personIds.map((personId) => ({ personId, rsvpStatus: "Accepted" })) },
      headers: { "idempotency-key": `accept-${eventId}` }
    }
    const scenario: Scenario = {
      eventId,
      send: (to) => to("PUT", `/event/${eventId}/guestlist`, request),
      committed: (query) =>
        Effect.map(
          countOf(
            query,
            `SELECT count(*) AS n FROM rsvp_history h JOIN event_guests g ON g.id = h.event_guest_id
             JOIN events e ON e.id = g.event_id WHERE e.public_id = ? AND h.action_type = 'updated'`,
            eventId
          ),
          (n) => n > 0
        ),
      // one entry when added, one by the request; its notification is the one with accepted guests
      actedOnce: (to, hook) => once(to, hook, eventId, GUESTS, 2, "\"Accepted\"")
    }
    return scenario
  })

/**
 * An empty event and the keyed guest-list import of `IMPORTED` new contacts, accepted: a request
 * that gives the event loop a turn between its slices, so that another request is answered while it runs.
 */
const importing = (api: Api) =>
  Effect.gen(function*() {
    const event = yield* createEvent({ request: api })
    const eventId = event.eventId as string
    const rows = Array.from({ length: IMPORTED }, (_, n) => `Once,${n},${uniqueEmail("imported")},Accepted`)
    const request = {
      rawBody: ["firstName,lastName,email,rsvpStatus", ...rows].join("\n"),
      headers: { "content-type": "text/csv", "idempotency-key": `import-${eventId}` }
    }
    const scenario: Scenario = {
      eventId,
      send: (to) => to("POST", `/event/${eventId}/guestlist/import`, request),
      committed: (query) =>
        Effect.map(
          countOf(query, "SELECT count(*) AS n FROM event_guests g JOIN events e ON e.id = g.event_id WHERE e.public_id = ?", eventId),
          (n) => n > 0
        ),
      // one entry when added, one for the status given
      actedOnce: (to, hook) => once(to, hook, eventId, IMPORTED, 2, eventId)
    }
    return scenario
  })

/** Waits (5 s at most) until a write transaction is open: the write lock is taken (SQLite's file lock, PostgreSQL's `WRITE_LOCK`). */
const untilWriting = (query: Query) =>
  Effect.gen(function*() {
    if (!onPostgres) yield* Effect.promise(() => query("PRAGMA busy_timeout = 0"))
    const taken = Effect.promise(async () => {
      if (onPostgres) {
        const [row] = await query<{ free: boolean }>(`SELECT pg_try_advisory_xact_lock(${WRITE_LOCK}) AS free`)
        return !row!.free
      }
      try {
        await query("BEGIN IMMEDIATE")
      } catch {
        return true
      }
      await query("ROLLBACK")
      return false
    })
    const since = Date.now()
    while (!(yield* taken)) {
      if (Date.now() - since > 5_000) return yield* Effect.dieMessage("no write transaction began")
      yield* Effect.sleep("2 millis")
    }
  })

/** Sends the request again until its key is free (at most `withinMs`); answers the reply and how long the key stayed taken. */
const retry = (put: Effect.Effect<Reply>, withinMs: number) =>
  Effect.gen(function*() {
    const started = Date.now()
    for (;;) {
      const sent = Date.now()
      const reply = yield* put
      if (reply.status !== 409 || sent - started > withinMs) return { reply, waitedMs: sent - started }
      yield* Effect.sleep("250 millis")
    }
  })

/** How long a keyed request lives here, its answer's slow write included (the second of two: the first warms up). */
const lifeOf = (api: Api, make: (api: Api) => Effect.Effect<Scenario>) =>
  Effect.gen(function*() {
    let ms = 0
    for (let i = 0; i < 2; i++) {
      const scenario = yield* make(api)
      const [took] = yield* Effect.timed(Effect.map(scenario.send(api), (reply) => expectStatus(reply, 200)))
      ms = Math.round(Duration.toMillis(took))
    }
    return ms
  })

/** Waits until `done` (polled every 5 ms) or `deadline` (epoch ms). */
const until = (done: Effect.Effect<boolean>, deadline: number) =>
  Effect.iterate(false, {
    while: (seen) => !seen && Date.now() < deadline,
    body: () => Effect.zipRight(Effect.sleep("5 millis"), done)
  })

const environment = Effect.gen(function*() {
  const dir = yield* temporaryDirectory
  const env = { ...testEnvironment(join(dir, "convene.db")), WEBHOOK_RETRY_SCHEDULE: "100ms", LOG_LEVEL: "Error" }
  // PostgreSQL: a statement whose client is gone is cancelled within 50 ms, as a killed process's
  // SQLite statement ends with it (by default it would run to its end, and an answer written
  // after the request's writes had committed would still be stored)
  if (onPostgres) {
    yield* Effect.promise(() =>
      withDatabase(databaseEnvOf(env), (query) =>
        query("DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET client_connection_check_interval = 50', current_database()); END $$"))
    )
  }
  return env
})

/** A server with a GuestList receiver registered and slow answers. */
const started = (env: Record<string, string>, hook: Hook) =>
  Effect.gen(function*() {
    const server = yield* startServer(env)
    expectStatus(yield* send(server.url)("POST", "/webhook", { body: { webhook: hook.url(), type: "GuestList" } }), 200)
    yield* slowAnswers(env)
    return server
  })

describe("Idempotency-Key across crashes", () => {
  it.scopedLive("SIGKILL before the claim, during the write, while the answer is written, after COMMIT: a retry replays or runs once", () =>
    Effect.gen(function*() {
      const env = yield* environment
      const hook = yield* receiver
      let server: ServerProcess = yield* started(env, hook)
      let api = send(server.url)
      const database = yield* Effect.acquireRelease(Effect.promise(() => openDatabase(databaseEnvOf(env))), (db) => Effect.promise(db.close))

      const lifeMs = yield* lifeOf(api, accepting)

      const points: Array<number | "commit"> = [0, ...FRACTIONS.map((f) => Math.round(f * lifeMs)), "commit"]
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

        server = yield* startServer(env)
        api = send(server.url)
        // SQLite: free at once; PostgreSQL: the killed instance's session ends as soon as its
        // database server notices (at the end of the statement it runs)
        const { reply, waitedMs } = yield* retry(scenario.send(api), onPostgres ? 30_000 : 0)
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

  it.scopedLive("a key answers 409 while its request runs, and is free again once that request died: at restart (SQLite), from another instance at once (PostgreSQL)", () =>
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
      const lifeMs = yield* lifeOf(send(hung.url), accepting)

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

      // the hung instance wakes up: its transaction is gone, and so is everything it wrote
      hung.child.kill("SIGCONT")
      const late = yield* Fiber.join(inFlight)
      expect(late._tag === "Success" ? late.value.status : "cut").toBe(500)
      yield* scenario.actedOnce(send(other.url), hook)
    }), 120_000)
})
