/**
 * Waiting for the outbox: what the service sends (emails, webhook notifications) is written to the
 * outbox in the transaction of the request that causes it, then attempted. Once the outbox holds no
 * pending delivery, each was attempted, and what a receiver (SmtpSink.ts, Receiver.ts: they keep a
 * message before they answer it) accepted has arrived. A test that shows that something was NOT
 * sent waits for this, rather than for a silence of some length.
 */
import { Effect } from "effect"
import { type DatabaseEnv, queryDatabase } from "./Engine.js"
import { TestServer } from "./TestServer.js"

/** Until no delivery of the server's outbox is pending (real time, polled; dies after `timeoutMs`). */
export const outboxSettled = (server: { readonly databaseEnv: DatabaseEnv }, timeoutMs = 30_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const [row] = yield* Effect.promise(() =>
        queryDatabase<{ n: number }>(server.databaseEnv, "SELECT count(*) AS n FROM outbox_deliveries WHERE status = 'pending'")
      )
      if (Number(row!.n) === 0) return
      if (Date.now() > deadline) return yield* Effect.dieMessage(`${row!.n} outbox deliveries still pending after ${timeoutMs} ms`)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
    }
  })

/** `outboxSettled` for the test server of the test's layer. */
export const settled = Effect.flatMap(TestServer, (server) => outboxSettled(server))
