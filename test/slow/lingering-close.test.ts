/**
 * A 413 is an answer, never a reset (CONTRACT §3, Http/LingeringClose.ts): bodies over their limit,
 * chunked or announced by Content-Length, sent by clients that ask to close the connection after
 * the answer (as Node's `http.request` without an agent does) and by clients that keep it, several
 * at once while other requests go on. Each client reads a whole 413 in the error shape, and none
 * sees its connection reset (`EPIPE`, `ECONNRESET`) while it is still sending.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Agent, request } from "node:http"
import { API_TOKEN, TestServer, liveServer } from "../support/TestServer.js"

const MIB = 1024 * 1024

interface Outcome {
  readonly label: string
  readonly status: number | undefined
  readonly body: string
  /** Errors of the request or its response (a reset connection, a write after the socket closed). */
  readonly errors: ReadonlyArray<string>
}

/** POSTs `size` bytes of `path`'s kind of body, as fast as the connection takes them. */
const upload = (url: string, options: {
  readonly label: string
  readonly path: string
  readonly size: number
  readonly chunked: boolean
  readonly agent: Agent | false
  readonly contentType: string
}) =>
  Effect.promise(() =>
    new Promise<Outcome>((resolve) => {
      const headers: Record<string, string> = { "x-api-key": API_TOKEN, "content-type": options.contentType }
      if (!options.chunked) headers["content-length"] = String(options.size)
      let status: number | undefined
      let body = ""
      const errors: Array<string> = []
      let settled = false
      // once the response has closed, or the request without a response
      const settle = () => {
        if (settled) return
        settled = true
        // errors that follow at once (a write to a reset socket) still count
        setTimeout(() => resolve({ label: options.label, status, body, errors }), 100)
      }
      const req = request(`${url}${options.path}`, { method: "POST", headers, agent: options.agent }, (res) => {
        status = res.statusCode
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (body += chunk))
        res.on("error", (e: NodeJS.ErrnoException) => errors.push(`response: ${e.code ?? e.message}`))
        res.on("close", settle)
      })
      req.on("error", (e: NodeJS.ErrnoException) => errors.push(`request: ${e.code ?? e.message}`))
      req.on("close", () => {
        if (status === undefined) settle()
      })
      const piece = Buffer.alloc(64 * 1024, options.contentType === "text/csv" ? "a,b,c\n" : " ")
      let sent = 0
      const pump = () => {
        while (sent < options.size) {
          const next = piece.subarray(0, Math.min(piece.length, options.size - sent))
          sent += next.length
          if (!req.write(next)) return void req.once("drain", pump)
        }
        req.end()
      }
      pump()
    })
  )

layer(liveServer(), { excludeTestServices: true })("lingering close", (it) => {
  it.scoped("bodies over their limit, chunked or not, closing or kept alive, all at once with other requests: every client reads its 413", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const keepAlive = yield* Effect.acquireRelease(Effect.sync(() => new Agent({ keepAlive: true })), (agent) => Effect.sync(() => agent.destroy()))
      const uploads = [false, true].flatMap((chunked) =>
        [
          ...[0, 1, 2].map((i) => ({ agent: false as const, label: `${chunked ? "chunked" : "length"} closing ${i}` })),
          ...[0, 1].map((i) => ({ agent: keepAlive, label: `${chunked ? "chunked" : "length"} kept alive ${i}` }))
        ].map(({ agent, label }) => ({ label, path: "/person", size: 5 * MIB, chunked, agent, contentType: "application/json" }))
      )
      // a CSV import over its 10 MiB, each way
      uploads.push(
        { label: "csv chunked", path: "/person/import?dryRun=true", size: 12 * MIB, chunked: true, agent: false, contentType: "text/csv" },
        { label: "csv length", path: "/person/import?dryRun=true", size: 12 * MIB, chunked: false, agent: false, contentType: "text/csv" }
      )

      // other requests meanwhile
      let others = 0
      let going = true
      const traffic = Effect.promise(async () => {
        while (going) {
          const reply = await fetch(`${server.url}/person?limit=5`, { headers: { "x-api-key": API_TOKEN } })
          await reply.arrayBuffer()
          if (reply.status === 200) others++
        }
      })
      const background = yield* Effect.fork(Effect.all([traffic, traffic], { concurrency: "unbounded" }))
      const outcomes = yield* Effect.all(uploads.map((options) => upload(server.url, options)), { concurrency: "unbounded" })
      going = false
      yield* background.await

      for (const outcome of outcomes) {
        const limit = outcome.label.startsWith("csv") ? 10 * MIB : MIB
        expect(outcome, outcome.label).toMatchObject({ status: 413, errors: [] })
        expect(JSON.parse(outcome.body), outcome.label).toEqual({ message: `The request body is over ${limit} bytes`, code: "payload_too_large" })
      }
      expect(others).toBeGreaterThan(0)
    }), 60_000)
})
