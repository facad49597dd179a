/**
 * A webhook receiver on loopback for tests: records every request (headers, raw body, arrival
 * time) and answers as the test says: a status, or never (to exercise timeouts and crashes).
 */
import { Effect, Queue } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly json: any
  readonly at: number
  readonly path: string
}

export type Answer = number | "hang"

export interface Receiver {
  readonly url: (path?: string) => string
  readonly received: Array<Received>
  /** The next request, waiting up to `timeoutMs`. */
  readonly next: (timeoutMs?: number) => Effect.Effect<Received>
  /** Decides the answer to each request, in arrival order (1-based). */
  answer: (request: Received, n: number) => Answer
}

export const receiver = Effect.gen(function*() {
  const arrivals = yield* Queue.unbounded<Received>()
  const hanging = new Set<import("node:http").ServerResponse>()
  const self: Receiver = {
    url: () => "",
    received: [],
    next: (timeoutMs = 10_000) =>
      Queue.take(arrivals).pipe(
        Effect.timeoutFail({ duration: timeoutMs, onTimeout: () => new Error("no webhook arrived in time") }),
        Effect.orDie
      ),
    answer: () => 200
  }
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch {
        json = undefined
      }
      const received: Received = { headers: req.headers, body, json, at: Date.now(), path: req.url ?? "/" }
      self.received.push(received)
      const answer = self.answer(received, self.received.length)
      Effect.runSync(Queue.offer(arrivals, received))
      if (answer === "hang") {
        hanging.add(res)
        return
      }
      res.writeHead(answer, { "content-type": "text/plain" })
      res.end("ok")
    })
  })
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.void))
    }),
    () =>
      Effect.async<void>((resume) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  const port = (server.address() as AddressInfo).port
  ;(self as { url: (path?: string) => string }).url = (path = "/hook") => `http://127.0.0.1:${port}${path}`
  return self
})
