/**
 * Crashes: the server is killed with SIGKILL while a 500-guest batch and a 100-person bulk update
 * are in flight, at delays swept across their measured run time (fewer on PostgreSQL: FRACTIONS),
 * then started again on the same database. Each batch is there entirely or not at all, and the
 * outbox agrees with the data: the guest list's notification exists (with its delivery) exactly
 * when the batch committed, and is then delivered.
 */
import { describe, expect, it } from "@effect/vitest"
import { databaseEnvOf, onPostgres, queryDatabase } from "../support/Engine.js"
import { Duration, Effect, Fiber } from "effect"
import { join } from "node:path"
import { createEvent, createPerson, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { ageDeadHeartbeats } from "../support/Heartbeats.js"
import { startServer } from "../support/Process.js"
import { receiver } from "../support/Receiver.js"
import { send, temporaryDirectory, testEnvironment } from "../support/TestServer.js"

/** Kill delays, as fractions of how long the two writes take uninterrupted (measured first). */
const ALL_FRACTIONS = [0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1, 1.1, 3]
/**
 * SQLite sweeps them all; PostgreSQL, the second engine (where the writes take longer, and so do
 * the kill delays and each restart), 8 of them: fewer inside the writes (not 0.3, 0.6, 0.8, 0.9),
 * every one from 0.95 on, around their COMMIT and after it. Each region is still reached.
 */
const FRACTIONS = onPostgres ? ALL_FRACTIONS.filter((f) => ![0.3, 0.6, 0.8, 0.9].includes(f)) : ALL_FRACTIONS

describe("crashes", () => {
  it.scopedLive("SIGKILL in the middle of a 500-guest batch and a bulk person update: all or nothing, outbox consistent", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const databasePath = join(dir, "convene.db")
      const env = { ...testEnvironment(databasePath), WEBHOOK_RETRY_SCHEDULE: "100ms", LOG_LEVEL: "Error" }
      const hook = yield* receiver

      let server = yield* startServer(env)
      let api = send(server.url)
      expectStatus(yield* api("POST", "/webhook", { body: { webhook: hook.url(), type: "GuestList" } }), 200)
      const persons: Array<string> = []
      for (let i = 0; i < 100; i++) persons.push(yield* createPerson({ request: api }))

      const writes = (round: number) =>
        Effect.gen(function*() {
          const event = yield* createEvent({ request: api })
          const city = `Round ${round}`
          const batch = {
            guests: Array.from({ length: 500 }, (_, n) => ({ firstName: "Crash", lastName: `${round}-${n}`, email: uniqueEmail(`crash${round}`) }))
          }
          const both = Effect.all([
            api("POST", `/event/${event.eventId}/guestlist`, { body: batch }),
            api("PUT", "/persons", { body: { persons: persons.map((personId) => ({ personId, city })) } })
          ], { concurrency: "unbounded" })
          return { event, city, both }
        })

      // how long the two writes take here, uninterrupted
      const calibration = yield* writes(-1)
      const [took] = yield* Effect.timed(calibration.both)
      const runMs = Math.round(Duration.toMillis(took))

      const outcomes: Array<{ delay: number; guests: number; updated: number }> = []
      for (const [round, fraction] of FRACTIONS.entries()) {
        const delay = Math.round(fraction * runMs)
        const { both, city, event } = yield* writes(round)
        const inFlight = yield* both.pipe(Effect.exit, Effect.fork)
        yield* Effect.sleep(delay)
        yield* server.kill("SIGKILL")
        yield* Fiber.join(inFlight)
        // PostgreSQL: a notification the killed instance had claimed is released as soon as the next
        // one starts, as it would be 15 s later (support/Heartbeats.ts)
        yield* ageDeadHeartbeats(databaseEnvOf(env))

        server = yield* startServer(env)
        api = send(server.url)
        const query = <A>(text: string, ...params: Array<unknown>) =>
          Effect.promise(() => queryDatabase<A>(databaseEnvOf(env), text, params))
        let committed = false
        {
          const guests = (yield* api("GET", `/event/${event.eventId}/guestlist`)).body.guests.length as number
          const [created] = yield* query<{ n: number }>("SELECT count(*) AS n FROM persons WHERE email LIKE ?", `crash${round}.%`)
          const [updated] = yield* query<{ n: number }>("SELECT count(*) AS n FROM persons WHERE city = ?", city)
          const messages = yield* query<{ id: number; deliveries: number }>(
            "SELECT m.id, (SELECT count(*) FROM webhook_deliveries d WHERE d.message_id = m.id) AS deliveries FROM webhook_messages m WHERE m.type = 'GuestList' AND m.payload LIKE ?",
            `%${event.eventId}%`
          )
          outcomes.push({ delay, guests, updated: updated!.n })

          expect([0, 500], `guests after a kill at ${delay} ms`).toContain(guests)
          expect(created!.n, "the batch's new persons go with its guests").toBe(guests)
          expect([0, 100], `persons updated after a kill at ${delay} ms`).toContain(updated!.n)
          expect(messages.map((m) => m.deliveries)).toEqual(guests === 500 ? [1] : [])
          committed = guests === 500
        }
        if (committed) {
          // committed: the notification reaches the receiver, whether or not it went out before the kill
          yield* Effect.iterate(0, {
            while: () => !hook.received.some((r) => r.body.includes(event.eventId)),
            body: (n) => (n > 150 ? Effect.dieMessage(`no GuestList delivery for round ${round}`) : Effect.as(Effect.sleep(100), n + 1))
          })
        }
      }
      // the sweep saw both outcomes: a kill before the batch landed, and after
      expect(outcomes.some((o) => o.guests === 0)).toBe(true)
      expect(outcomes.some((o) => o.guests === 500)).toBe(true)
      console.info(`crash rounds (writes take ${runMs} ms; kill delay ms → guests, persons updated): ${outcomes.map((o) => `${o.delay}→${o.guests}/${o.updated}`).join(", ")}`)
    }), 180_000)
})
