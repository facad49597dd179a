/**
 * Keyed requests for the crash tests of idempotency keys (test/slow/idempotency-crash.test.ts): the
 * requests themselves (a keyed PUT of 500 guests, a keyed import of 2,000), what "acted exactly
 * once" means for each, a slow answer write that widens the window between a request's writes and
 * its answer, and the waits around a process that is killed.
 */
import { Duration, Effect } from "effect"
import { expect } from "vitest"
import { join } from "node:path"
import { WRITE_LOCK } from "../../src/Db/Postgres.js"
import { databaseEnvOf, onPostgres, type Query, withDatabase } from "./Engine.js"
import { createEvent, eventually, expectStatus, uniqueEmail } from "./Fixtures.js"
import { startServer } from "./Process.js"
import type { receiver } from "./Receiver.js"
import { type Reply, send, temporaryDirectory, testEnvironment } from "./TestServer.js"

export const GUESTS = 500
/** Kill delays, as fractions of a keyed request's whole life here (measured first). */
export const FRACTIONS = [0.15, 0.35, 0.55, 0.75, 0.9]
/** Rows of the import (Scenario `importing`). */
const IMPORTED = 2_000

export type Api = ReturnType<typeof send>

/** Writing an answer into the key table takes about a second and a half more (the request's transaction is open meanwhile). */
export const slowAnswers = (env: Record<string, string>) =>
  Effect.promise(() =>
    withDatabase(databaseEnvOf(env), async (query) => {
      if (onPostgres) {
        await query(`CREATE OR REPLACE FUNCTION idempotency_slow() RETURNS trigger LANGUAGE plpgsql AS $$
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

/** Answers are written at full speed again (`slowAnswers` undone; `slowAnswers` makes them slow again). */
export const fastAnswers = (env: Record<string, string>) =>
  Effect.promise(() =>
    withDatabase(databaseEnvOf(env), async (query) => {
      if (onPostgres) {
        await query("DROP TRIGGER idempotency_slow ON idempotency_keys")
        return
      }
      for (const on of ["insert", "update"]) await query(`DROP TRIGGER idempotency_slow_${on}`)
    })
  )

export type Hook = Effect.Effect.Success<typeof receiver>

/** A keyed request on an event of its own. */
export interface Scenario {
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
export const accepting = (api: Api) =>
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
export const importing = (api: Api) =>
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
export const untilWriting = (query: Query) =>
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
export const retry = (put: Effect.Effect<Reply>, withinMs: number) =>
  Effect.gen(function*() {
    const started = Date.now()
    for (;;) {
      const sent = Date.now()
      const reply = yield* put
      if (reply.status !== 409 || sent - started > withinMs) return { reply, waitedMs: sent - started }
      yield* Effect.sleep("250 millis")
    }
  })

/**
 * How long a keyed request lives here, its answer's slow write included: the second of two (the
 * first warms up), or with `warmUp: false` the first (longer: an upper bound, for a test that needs
 * no more).
 */
export const lifeOf = (api: Api, make: (api: Api) => Effect.Effect<Scenario>, options: { readonly warmUp?: boolean } = {}) =>
  Effect.gen(function*() {
    let ms = 0
    for (let i = 0; i < (options.warmUp === false ? 1 : 2); i++) {
      const scenario = yield* make(api)
      const [took] = yield* Effect.timed(Effect.map(scenario.send(api), (reply) => expectStatus(reply, 200)))
      ms = Math.round(Duration.toMillis(took))
    }
    return ms
  })

/** Waits until `done` (polled every 5 ms) or `deadline` (epoch ms). */
export const until = (done: Effect.Effect<boolean>, deadline: number) =>
  Effect.iterate(false, {
    while: (seen) => !seen && Date.now() < deadline,
    body: () => Effect.zipRight(Effect.sleep("5 millis"), done)
  })

export const environment = Effect.gen(function*() {
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
export const started = (env: Record<string, string>, hook: Hook) =>
  Effect.gen(function*() {
    const server = yield* startServer(env)
    expectStatus(yield* send(server.url)("POST", "/webhook", { body: { webhook: hook.url(), type: "GuestList" } }), 200)
    yield* slowAnswers(env)
    return server
  })
