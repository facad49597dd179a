/**
 * Requests to a service process (Process.ts) that may die under test: a failure says so, with the
 * end of its output; and what the tests of webhooks against such a process read and wait for.
 */
import { Effect } from "effect"
import { eventually, expectStatus } from "./Fixtures.js"
import type { ServerProcess } from "./Process.js"
import { type RequestOptions, send } from "./TestServer.js"

/** Whether the process still runs. */
export const alive = (server: ServerProcess) => server.child.exitCode === null && server.child.signalCode === null

/**
 * Requests to the server; when one fails because the server died, the failure says so, with the end
 * of its output (node's heap-limit report, say) rather than a bare connection error.
 */
export const client = (server: ServerProcess) => (method: string, path: string, options?: RequestOptions) =>
  send(server.url)(method, path, options).pipe(
    Effect.catchAllDefect((defect) =>
      Effect.flatMap(Effect.timeout(server.exited, "2 seconds").pipe(Effect.option), (exited) =>
        Effect.die(
          exited._tag === "Some"
            ? new Error(`the server died (${server.child.signalCode ?? exited.value}):\n${server.output().slice(-2_000)}`)
            : defect
        ))
    )
  )

/** The organization's webhook delivery log, newest first (its first 100). */
export const deliveryLog = (server: ServerProcess) =>
  Effect.map(client(server)("GET", "/webhook/deliveries?limit=100"), (r) => expectStatus(r, 200).body.deliveries as Array<any>)

/** Polls the delivery log (every 200 ms: the server under test may also be measured) until `done` holds or `timeoutMs` passes. */
export const settledLog = (server: ServerProcess, done: (log: Array<any>) => boolean, timeoutMs: number) =>
  eventually(deliveryLog(server), done, timeoutMs, "200 millis")

/** Waits until `done` holds, at most `timeoutMs` (then dies). */
export const until = (done: () => boolean, timeoutMs = 10_000) =>
  Effect.gen(function*() {
    const started = Date.now()
    while (!done()) {
      if (Date.now() - started > timeoutMs) return yield* Effect.die(new Error("condition not met in time"))
      yield* Effect.sleep("20 millis")
    }
  })
