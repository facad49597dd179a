/**
 * At most two CSV imports are read at a time (Csv/ImportSlots.ts): twelve 10 MiB dry runs at once
 * took the server past its heap. The next ones wait for a slot, then get 503 with Retry-After.
 * The server runs on TestClock here: the wait ends when the test moves time.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { type ClientRequest, request } from "node:http"
import { IMPORT_SLOTS } from "../src/Csv/ImportSlots.js"
import { TestServer, testServer } from "./support/TestServer.js"

/** An import whose body is announced but never finishes arriving: it holds its slot while its body is read. */
const stalledImport = (url: string, token: string) =>
  new Promise<ClientRequest>((resolve) => {
    const req = request(`${url}/person/import?dryRun=true`, {
      method: "POST",
      headers: { "x-api-key": token, "content-type": "text/csv", "content-length": "100000" }
    })
    req.on("error", () => undefined)
    req.write("email,firstName,lastName\n", () => resolve(req))
  })

const realPause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

layer(testServer())("import slots", (it) => {
  it.scoped("two imports are read at a time; the next waits, and after 20 s gets 503 with Retry-After; a freed slot takes the next", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const { token } = yield* server.organization("slots")
      const importing = (csv: string) =>
        fetch(`${server.url}/person/import?dryRun=true`, {
          method: "POST",
          headers: { "x-api-key": token, "content-type": "text/csv" },
          body: csv
        }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), body: await r.json() }))

      expect(IMPORT_SLOTS).toBe(2)
      const stalled = yield* Effect.acquireRelease(
        Effect.promise(() => Promise.all([stalledImport(server.url, token), stalledImport(server.url, token)])),
        (requests) => Effect.sync(() => requests.forEach((r) => r.destroy()))
      )
      yield* realPause(300)

      let settled = false
      const third = importing("email,firstName,lastName\nana@acme.test,Ana,Lima\n").finally(() => (settled = true))
      yield* realPause(500)
      expect(settled, "the third import waits for a slot").toBe(false)
      yield* TestClock.adjust("21 seconds")
      const refused = yield* Effect.promise(() => third)
      expect(refused).toEqual({
        status: 503,
        retryAfter: "5",
        body: { message: "Other imports are running; try again shortly", code: "unavailable" }
      })

      // a client that goes away frees its slot: the next import runs at once
      stalled[0]!.destroy()
      yield* realPause(300)
      const next = yield* Effect.promise(() => importing("email,firstName,lastName\nbo@acme.test,Bo,Berg\n"))
      expect(next.status).toBe(200)
      expect(next.body).toMatchObject({ dryRun: true, rows: 1, created: 1 })
    }), 30_000)
})
