/**
 * A webhook receiver on loopback for tests: records every request (headers, raw body, arrival
 * time) and answers as the test says: a status, a status after a delay, or never (to exercise
 * timeouts and crashes). It notes a `webhook-id` that arrives while an earlier request with it is
 * still open (not answered, its sender still connected): the same delivery sent twice at once.
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

export type Answer = number | "hang" | { readonly status: number; readonly afterMs: number }

export interface Receiver {
  readonly url: (path?: string) => string
  readonly received: Array<Received>
  /** The next request, waiting up to `timeoutMs`. */
  readonly next: (timeoutMs?: number) => Effect.Effect<Received>
  /** Decides the answer to each request, in arrival order (1-based). */
  answer: (request: Received, n: number) => Answer
  /** The `webhook-id`s that arrived while an earlier request with the same one was still open. */
  readonly overlaps: Array<string>
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
    answer: () => 200,
    overlaps: []
  }
  /** Requests open per `webhook-id`: arrived, and neither answered nor left by their sender. */
  const open = new Map<string, number>()
  const server = createServer((req, res) => {
    const id = req.headers["webhook-id"]
    if (typeof id === "string") {
      if ((open.get(id) ?? 0) > 0) self.overlaps.push(id)
      open.set(id, (open.get(id) ?? 0) + 1)
      res.once("close", () => open.set(id, open.get(id)! - 1))
    }
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
      const reply = (status: number) => {
        if (res.destroyed) return
        res.writeHead(status, { "content-type": "text/plain" })
        res.end("ok")
      }
      if (typeof answer === "number") return reply(answer)
      hanging.add(res)
      setTimeout(() => {
        hanging.delete(res)
        reply(answer.status)
      }, answer.afterMs)
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
