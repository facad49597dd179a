/**
 * A contacts import at scale (moved from test/api/csv-persons.test.ts, which holds the rest): a
 * 50,000-row file under concurrent API traffic, measured: the event loop stays free, and reads and
 * writes wait at most for the import's transaction.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { createPerson, expectStatus } from "../support/Fixtures.js"
import { API_TOKEN, TestServer, liveServer } from "../support/TestServer.js"
import { customField, exportContactsCsv, importContactsCsv } from "../support/Csv.js"

/** A contact per row, with a custom field, ~90 bytes a row. */
const bigCsv = (rows: number, tag: string) => {
  const lines = ["email,firstName,lastName,company,city,phone,custom:Level"]
  for (let i = 0; i < rows; i++) {
    lines.push(`load.${tag}.${i}@example.com,First${i},Last${i},${i % 3 === 0 ? "Acme Inc" : ""},City ${i % 100},+1 555 ${String(i).padStart(7, "0")},${i % 10}`)
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

layer(liveServer(), { excludeTestServices: true })("contacts CSV at scale", (it) => {
  it.effect("a 50,000-row import under concurrent API traffic: the event loop stays free; reads and writes wait at most for its transaction", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      yield* customField(server, API_TOKEN, { fieldName: "Level", fieldType: "number" })
      const personId = yield* createPerson(server)
      const csv = bigCsv(50_000, String(process.pid))
      const headers = { "x-api-key": API_TOKEN }
      const result = yield* Effect.promise(async () => {
        const delay = monitorEventLoopDelay({ resolution: 5 })
        let running = true
        delay.enable()
        const healthz = loop(() => running, () => fetch(`${server.url}/healthz`), 10)
        const reads = loop(() => running, () => fetch(`${server.url}/person/${personId}`, { headers }), 0)
        let written = 0
        const writes = loop(() => running, () =>
          fetch(`${server.url}/person`, {
            method: "POST",
            headers: { ...headers, "content-type": "application/json" },
            body: JSON.stringify({ firstName: "During", lastName: "Import", email: `during.${process.pid}.${++written}@example.com` })
          }), 0)
        const started = performance.now()
        const response = await fetch(`${server.url}/person/import`, { method: "POST", headers: { ...headers, "content-type": "text/csv" }, body: csv })
        const report = await response.json()
        const importMs = performance.now() - started
        running = false
        const [h, r, w] = await Promise.all([healthz, reads, writes])
        delay.disable()
        return { status: response.status, report, importMs, healthz: h, reads: r, writes: w, stallMs: delay.max / 1e6 }
      })
      console.info(`50,000-row import: ${JSON.stringify({ ...result, report: undefined })}`)
      expect(result.status).toBe(200)
      expect(result.report).toEqual({ dryRun: false, rows: 50_000, created: 50_000, updated: 0, unchanged: 0, errors: [], unknownColumns: [] })
      // bounds well above what a 2-core machine shows (README figures), below a blocked loop
      // the longest synchronous stretch is the commit of a write transaction (SQLite's WAL written,
      // synced and checkpointed in the event loop): 450-600 ms for the guest import's largest on a
      // quiet 2-core machine, up to 900 under a parallel test run; the whole import takes 5-10 s
      expect(result.stallMs).toBeLessThan(1_500)
      expect(result.healthz.worst).toBeLessThan(1_000)
      expect(result.healthz.count).toBeGreaterThan(20)
      expect(result.reads.count).toBeGreaterThan(20)
      expect(result.writes.count).toBeGreaterThan(5)
      // a request that waits, waits for the transaction, a part of the import, never for all of it
      expect(result.reads.worst).toBeLessThan(result.importMs * 0.8)
      expect(result.writes.worst).toBeLessThan(result.importMs * 0.8)
      const { rows } = yield* exportContactsCsv(server)
      expect(rows).toHaveLength(50_000 + 1 + result.writes.count)
      expect(rows.filter((r) => r["custom:Level"] === "7")).toHaveLength(5_000)
      // the same file again: every row matches, nothing to fill
      const again = expectStatus(yield* importContactsCsv(server, csv, { query: "?dryRun=true" }), 200).body
      expect(again).toMatchObject({ rows: 50_000, created: 0, updated: 0, unchanged: 50_000 })
    }), 120_000)
})
