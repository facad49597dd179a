/**
 * Several instances (CONTRACT §15): three processes of the service on one PostgreSQL database and
 * one Redis, behind no balancer but the test itself, which spreads API writes and RSVP answers
 * over them, and SIGKILLs one in the middle. Then:
 * - no delivery is lost: every accepted guest's notification reaches the receiver, every message
 *   in the outbox reaches it, and every outbox delivery ends delivered;
 * - none is sent twice at once: the receiver never sees one `webhook-id` while an earlier request
 *   with it is still open, its sender alive (a redelivery after the killed instance's attempt is
 *   fine: at least once);
 * - the change feed, read through the survivors, holds every accepted write.
 * What it judges is what survived, not how fast: it runs beside other files. The three instances'
 * shared rate limit, which needs the machine to itself, is test/slow/pg/multi-instance-rate.test.ts.
 * It runs in the PostgreSQL pass of the suite (`npm run test:pg`, and CI). An instance cut off from
 * the database, and a database that restarts, are test/database-outage.test.ts's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { databaseEnvOf, onPostgres, queryDatabase } from "../../support/Engine.js"
import { startServer } from "../../support/Process.js"
import { redisAvailable, redisServer } from "../../support/Redis.js"
import { answerRsvp as answerRsvpPage } from "../../support/Fixtures.js"
import { API_TOKEN, send, testEnvironment } from "../../support/TestServer.js"

/** A request that may meet a dead instance: then no answer (`undefined`), and the write was not accepted. */
const call = (url: string, method: string, path: string, token: string, body?: unknown) =>
  send(url)(method, path, { token, ...(body === undefined ? {} : { body }) }).pipe(
    Effect.catchAllDefect(() => Effect.succeed(undefined))
  )

/** The public RSVP page answered like a browser would; false when the instance is gone. */
const answerRsvp = (url: string, rsvpLink: string, rsvpStatus: string) =>
  answerRsvpPage(url, rsvpLink, rsvpStatus).pipe(
    Effect.map((answer) => answer.status === 303),
    Effect.catchAllDefect(() => Effect.succeed(false))
  )

/**
 * A webhook receiver that answers after `delayMs`, so that two sends of one notification at once
 * would overlap: it counts a `webhook-id` arriving while an earlier request with it is open.
 */
const slowReceiver = (delayMs: number) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; bodies: Array<string>; ids: Set<string>; overlaps: Array<string>; close: () => void }>((resume) => {
      const open = new Map<string, number>()
      const self = { url: "", bodies: [] as Array<string>, ids: new Set<string>(), overlaps: [] as Array<string>, close: () => server.close() }
      const server = createServer((req, res) => {
        const id = String(req.headers["webhook-id"])
        if ((open.get(id) ?? 0) > 0) self.overlaps.push(id)
        open.set(id, (open.get(id) ?? 0) + 1)
        // a request stops being open when it is answered, or when its sender goes away (a killed
        // instance's connection closes: that attempt is over, and another may begin)
        let ended = false
        const end = () => {
          if (ended) return
          ended = true
          open.set(id, open.get(id)! - 1)
        }
        res.on("close", end)
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          self.bodies.push(Buffer.concat(chunks).toString("utf8"))
          setTimeout(() => {
            if (res.destroyed) return
            self.ids.add(id)
            end()
            res.writeHead(200).end("ok")
          }, delayMs)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
        resume(Effect.succeed(self))
      })
    }),
    (receiver) => Effect.sync(() => receiver.close())
  )

const RATE = 40

describe.runIf(onPostgres && redisAvailable)("three instances on one PostgreSQL and one Redis", () => {
  it.scopedLive("spread writes, RSVP answers and deliveries; SIGKILL one: nothing lost, nothing sent twice at once, feed complete", () =>
    Effect.gen(function*() {
      const redis = yield* redisServer
      const hook = yield* slowReceiver(150)
      const env = {
        ...testEnvironment(join(mkdtempSync(join(tmpdir(), "convene-three-")), "convene.db")),
        REDIS_URL: redis.url,
        RATE_LIMIT_BURST: String(RATE),
        RATE_LIMIT_PER_SECOND: String(RATE),
        WEBHOOK_RETRY_SCHEDULE: "200ms,500ms,1s,1s,1s,1s,1s,1s,1s,1s",
        WEBHOOK_TIMEOUT: "2 seconds",
        LOG_LEVEL: "Error"
      }
      const instances = [yield* startServer(env), yield* startServer(env), yield* startServer(env)]
      const urls = instances.map((i) => i.url)
      const alive = [true, true, true]
      const pick = (n: number) => {
        const living = urls.filter((_, i) => alive[i])
        return living[n % living.length]!
      }

      // set-up, through the first instance: a webhook for persons and guest lists, and an event
      for (const type of ["EventPerson", "GuestList"]) {
        expect((yield* call(urls[0]!, "POST", "/webhook", API_TOKEN, { webhook: hook.url, type }))?.status).toBe(200)
      }
      const event = yield* call(urls[0]!, "POST", "/event", API_TOKEN, { name: "Three instances", primaryDate: "2031-06-01T18:00:00+02:00" })
      expect(event?.status).toBe(200)
      const eventId = event!.body.eventId as string

      // the load: writers create persons and put them on the guest list, then answer their RSVP
      const accepted = { persons: new Set<string>(), guests: new Set<string>(), answers: new Set<string>() }
      const started = Date.now()
      const loadEnds = started + 7_000
      let turn = 0
      const writer = Effect.gen(function*() {
        while (Date.now() < loadEnds) {
          const n = turn++
          const person = yield* call(pick(n), "POST", "/person", API_TOKEN, { firstName: `Three${n}`, lastName: "Instances", email: `three-${n}@example.com` })
          if (person?.status === 429) {
            yield* Effect.sleep("100 millis")
            continue
          }
          if (person?.status !== 201) continue
          const personId = person.body.personId as string
          accepted.persons.add(personId)
          const added = yield* call(pick(n + 1), "POST", `/event/${eventId}/guestlist`, API_TOKEN, { guests: [{ personId }] })
          if (added?.status !== 200) continue
          accepted.guests.add(personId)
          const found = yield* call(pick(n + 2), "GET", `/event/${eventId}/guestlist/search?personIds=${personId}&generateRsvpLinks=true`, API_TOKEN)
          const link = found?.status === 200 ? (found.body.guests[0]?.rsvpLink as string | undefined) : undefined
          if (link && (yield* answerRsvp(pick(n + 3), link, n % 2 === 0 ? "Accepted" : "Declined"))) accepted.answers.add(personId)
          yield* Effect.sleep("20 millis")
        }
      })
      const writers = yield* Effect.fork(Effect.all([writer, writer, writer], { concurrency: "unbounded", discard: true }))

      // SIGKILL the second instance while writes and deliveries go on
      yield* Effect.sleep("3500 millis")
      alive[1] = false
      yield* instances[1]!.kill("SIGKILL")
      yield* Fiber.join(writers)

      // every delivery ends delivered (the killed instance's leases run out and are taken over)
      const database = databaseEnvOf(env)
      const pending = () =>
        Effect.promise(() =>
          queryDatabase<{ n: number }>(database, "SELECT count(*) AS n FROM outbox_deliveries WHERE channel = 'webhook' AND status <> 'delivered'")
        ).pipe(Effect.map((rows) => rows[0]!.n))
      const deadline = Date.now() + 45_000
      while ((yield* pending()) > 0 && Date.now() < deadline) yield* Effect.sleep("250 millis")
      expect(yield* pending(), "deliveries not delivered 45 s after the load").toBe(0)

      // the load did its work, on every instance, before and after the kill
      // (how much is a matter of the machine's speed, and of what else runs on it: some of each)
      expect(accepted.persons.size).toBeGreaterThan(10)
      expect(accepted.guests.size).toBeGreaterThan(5)
      expect(accepted.answers.size).toBeGreaterThan(3)

      // no delivery lost: every guest accepted on the list reached the receiver (a GuestList notification)
      const received = hook.bodies.join("\n")
      const missing = [...accepted.guests].filter((id) => !received.includes(id))
      expect(missing, "accepted guests whose notification never arrived").toEqual([])
      const messages = yield* Effect.promise(() =>
        queryDatabase<{ public_id: string }>(database, "SELECT DISTINCT m.public_id FROM webhook_messages m JOIN outbox_deliveries d ON d.message_id = m.id")
      )
      expect(messages.filter((m) => !hook.ids.has(m.public_id))).toEqual([])
      // none sent twice at once
      expect(hook.overlaps).toEqual([])

      // the change feed, read through a survivor, holds every accepted write
      const changes: Array<{ type: string; action: string; id: string }> = []
      let after: string | undefined
      for (;;) {
        const page = yield* call(urls[0]!, "GET", `/changes?limit=500${after === undefined ? "" : `&after=${after}`}`, API_TOKEN)
        expect(page?.status).toBe(200)
        changes.push(...page!.body.changes)
        after = page!.body.nextCursor
        if (!page!.body.hasMore) break
      }
      const created = new Set(changes.filter((c) => c.type === "person" && c.action === "created").map((c) => c.id))
      expect([...accepted.persons].filter((id) => !created.has(id))).toEqual([])
      const guestChanges = changes.filter((c) => c.type === "guest")
      expect(guestChanges.length).toBeGreaterThanOrEqual(accepted.guests.size + accepted.answers.size)

      console.info(
        `three instances: ${accepted.persons.size} persons, ${accepted.guests.size} guests, ${accepted.answers.size} RSVP answers; ` +
          `${hook.bodies.length} webhook requests for ${messages.length} messages`
      )
    }), 120_000)
})
