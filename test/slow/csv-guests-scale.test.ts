/**
 * A guest-list import at scale (moved from test/api/csv-guests.test.ts, which holds the rest): a
 * 50,000-row file under concurrent API traffic, measured: the event loop stays free, and reads and
 * writes wait at most for the import's transaction.
 */
import { onPostgres } from "../support/Engine.js"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { createEvent, createPerson, expectStatus } from "../support/Fixtures.js"
import { API_TOKEN, TestServer, liveServer } from "../support/TestServer.js"
import { addGuests, exportGuestsCsv, importGuestsCsv } from "../support/Csv.js"

/** A guest per row, ~100 bytes a row. */
const bigCsv = (rows: number, tag: string) => {
  const lines = ["email,firstName,lastName,company,phone,rsvpStatus,dietaryRestrictions,column:Table"]
  const statuses = ["Invited", "Accepted", "Declined", "Maybe", "Waitlisted"]
  for (let i = 0; i < rows; i++) {
    lines.push(`load.${tag}.${i}@example.com,First${i},Last${i},${i % 3 === 0 ? "Acme Inc" : ""},+1 555 ${String(i).padStart(7, "0")},${statuses[i % 5]},${i % 7 === 0 ? "vegan; no nuts" : ""},${i % 10}`)
  }
  return `${lines.join("\r\n")}\r\n`
}

/** Sequential requests until `running()` is false; the slowest of them, in ms. */
const loop = async (running: () => boolean, request: () => Promise<Response>, pause: number) => {
  let worst = 0
  let count = 0
  while (running()) {
    const started = performance.now()
    const response = await request()
    await response.arrayBuffer()
    if (response.status >= 300) throw new Error(`status ${response.status}`)
    worst = Math.max(worst, performance.now() - started)
    count++
    if (pause > 0) await new Promise((r) => setTimeout(r, pause))
  }
  return { worst, count }
}

layer(liveServer(), { excludeTestServices: true })("guest list CSV at scale", (it) => {
  it.effect("a 50,000-row import under concurrent API traffic: the event loop stays free; reads and writes wait at most for its transaction", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const event = yield* createEvent(server, { customColumns: ["Table"] })
      const personId = yield* createPerson(server)
      yield* addGuests(server, event.eventId, [{ personId }])
      const other = yield* createEvent(server)
      const csv = bigCsv(50_000, String(process.pid))
      const headers = { "x-api-key": API_TOKEN }
      const result = yield* Effect.promise(async () => {
        const delay = monitorEventLoopDelay({ resolution: 5 })
        let running = true
        delay.enable()
        const healthz = loop(() => running, () => fetch(`${server.url}/healthz`), 10)
        const reads = loop(() => running, () => fetch(`${server.url}/event/${event.eventId}/guestlist/search?personIds=${personId}`, { headers }), 0)
        let written = 0
        const writes = loop(() => running, () =>
          fetch(`${server.url}/event/${other.eventId}/guestlist`, {
            method: "POST",
            headers: { ...headers, "content-type": "application/json" },
            body: JSON.stringify({ guests: [{ firstName: "During", lastName: "Import", email: `during.${process.pid}.${++written}@example.com` }] })
          }), 0)
        const started = performance.now()
        const response = await fetch(`${server.url}/event/${event.eventId}/guestlist/import`, {
          method: "POST",
          headers: { ...headers, "content-type": "text/csv" },
          body: csv
        })
        const report = await response.json()
        const importMs = performance.now() - started
        running = false
        const [h, r, w] = await Promise.all([healthz, reads, writes])
        delay.disable()
        return { status: response.status, report, importMs, healthz: h, reads: r, writes: w, stallMs: delay.max / 1e6 }
      })
      console.info(`50,000-row guest import: ${JSON.stringify({ ...result, report: undefined })}`)
      expect(result.status).toBe(200)
      expect(result.report).toEqual({ dryRun: false, rows: 50_000, created: 50_000, updated: 0, unchanged: 0, added: 50_000, errors: [], unknownColumns: [] })
      // bounds well above what a 2-core machine shows, below a blocked loop
      // the longest synchronous stretch is the commit of a write transaction (SQLite's WAL written,
      // synced and checkpointed in the event loop): 450-600 ms for the guest import's largest on a
      // quiet 2-core machine, up to 900 under a parallel test run; the whole import takes 5-10 s
      expect(result.stallMs).toBeLessThan(1_500)
      // a health check waits at most for that stretch (1,084 ms once in a full parallel run, with
      // the stretch itself under its bound): never for the import
      expect(result.healthz.worst).toBeLessThan(1_500)
      expect(result.healthz.count).toBeGreaterThan(20)
      expect(result.reads.count).toBeGreaterThan(20)
      expect(result.writes.count).toBeGreaterThan(5)
      // a request that waits, waits for the transaction, a part of the import, never for all of it
      // (the transaction is about half of the import on SQLite; on PostgreSQL, whose statements
      // each cost a round trip, about four fifths of it)
      const share = onPostgres ? 0.95 : 0.8
      expect(result.reads.worst).toBeLessThan(result.importMs * share)
      expect(result.writes.worst).toBeLessThan(result.importMs * share)
      const { rows } = yield* exportGuestsCsv(server, event.eventId)
      expect(rows).toHaveLength(50_001)
      expect(rows.filter((r) => r["column:Table"] === "7")).toHaveLength(5_000)
      expect(rows.filter((r) => r["rsvpStatus"] === "Waitlisted")).toHaveLength(10_000)
      expect(rows[50_000]).toMatchObject({ email: `load.${process.pid}.49999@example.com`, dietaryRestrictions: "", "column:Table": "9" })
      const [sample] = (yield* server.request("GET", `/event/${event.eventId}/guestlist/search?email=load.${process.pid}.21@example.com`)).body.guests
      expect(sample).toMatchObject({ rsvpStatus: "Accepted", dietaryRestrictions: ["vegan", "no nuts"], phone: "+1 555 0000021", customColumns: { Table: "1" } })
      expect(sample.rsvpStatusHistory.map((h: any) => h.status)).toEqual(["Invited", "Accepted"])
      // a few guests by id on a list of 50,000: found by their keys
      const ids = rows.filter((_, i) => i % 10_000 === 5).map((r) => r["personId"]!)
      const byIds = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${[...ids].reverse().join(",")}&limit=3&skip=1`), 200).body
      expect(byIds.total).toBe(5)
      expect(byIds.guests.map((g: any) => g.personId)).toEqual(ids.slice(1, 4))
      // the same file again, as a dry run: every row names a guest on the list; each status given is an update
      const again = expectStatus(yield* importGuestsCsv(server, event.eventId, csv, { query: "?dryRun=true" }), 200).body
      expect(again).toMatchObject({ rows: 50_000, created: 0, added: 0, updated: 50_000, unchanged: 0 })
    }), 180_000)
})
