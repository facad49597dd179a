/**
 * What the outage tests (test/slow/pg/database-outage.test.ts) do to instances of the service on a
 * PostgreSQL server of their own: requests that may meet an instance whose database is gone,
 * guests added through an instance, the claimants seen in the outbox, and waiting for a condition.
 */
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { queryDatabase } from "./Engine.js"
import { API_TOKEN, testEnvironment } from "./TestServer.js"

/** What a request answered, or undefined when none came in time (the instance's database cut off). */
export const call = (url: string, method: string, path: string, body?: unknown, timeoutMs = 15_000) =>
  Effect.promise(async () => {
    try {
      const response = await fetch(url + path, {
        method,
        headers: { "x-api-key": API_TOKEN, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs)
      })
      const text = await response.text()
      return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
    } catch {
      return undefined
    }
  })

/** The instances' environment on a database at `url`. */
export const environment = (url: string) => ({
  ...testEnvironment(join(mkdtempSync(join(tmpdir(), "convene-outage-")), "convene.db")),
  DATABASE_URL: url,
  DATABASE_ACQUIRE_TIMEOUT: "2 seconds",
  WEBHOOK_RETRY_SCHEDULE: "200ms,500ms,1s,1s,1s,1s,1s,1s,1s,1s",
  LOG_LEVEL: "Warn"
})

/** The claimants of the claims made after `since` (epoch ms) whose lease is `leaseMs`, seen now. */
export const claimantsNow = (url: string, since: number, leaseMs: number) =>
  Effect.promise(() =>
    queryDatabase<{ claimed_by: string }>(
      { DATABASE_PATH: "", DATABASE_URL: url },
      "",
      [],
      `SELECT DISTINCT claimed_by FROM outbox_deliveries WHERE claimed_by IS NOT NULL AND claimed_until >= ${since + leaseMs}`
    ).catch(() => [])
  ).pipe(Effect.map((rows) => rows.map((row) => row.claimed_by)))

/** Repeats `check` until it holds, for at most `ms`; answers whether it did. */
export const within = (ms: number, check: Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    for (;;) {
      if (yield* check) return true
      if (Date.now() > deadline) return false
      yield* Effect.sleep("200 millis")
    }
  })

/** A person put on the event's list through `url`; its id once the write is accepted, undefined otherwise. */
export const addGuest = (url: string, eventId: string, n: string) =>
  Effect.gen(function*() {
    const tag = n.replace(/[^A-Za-z0-9-]/g, "")
    const person = yield* call(url, "POST", "/person", { firstName: `Outage${tag}`, lastName: "Test", email: `outage-${tag}@example.com` })
    if (person?.status !== 201) return undefined
    const personId = person.body.personId as string
    const added = yield* call(url, "POST", `/event/${eventId}/guestlist`, { guests: [{ personId }] })
    return added?.status === 200 ? personId : undefined
  })
