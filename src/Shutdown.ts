/**
 * The HTTP listener and graceful shutdown. On SIGTERM or SIGINT the runtime closes the layers in
 * reverse order; this layer is built last, so it runs first: readiness turns to 503 at once, and
 * the instance goes on accepting and serving requests for the drain delay (`SHUTDOWN_DRAIN_DELAY`,
 * at most half of `SHUTDOWN_GRACE_PERIOD`), each answer closing its connection, so that a
 * balancer sees `/readyz` fail and routes around it before any connection is refused. Then the
 * listener stops accepting, requests in flight finish (idle keep-alive connections are closed as
 * they go idle), and only at the end of the grace period are the remaining connections cut. Then
 * the webhook dispatcher drains its attempts, and the database is checkpointed and closed.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { randomUUID } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { Duplex } from "node:stream"
import { AppConfig } from "./Config/AppConfig.js"
import { CSV_BODY_TIMEOUT } from "./Http/ClientTimeouts.js"
import { lingerWhenAnswered } from "./Http/LingeringClose.js"
import { Readiness } from "./Runtime/Readiness.js"

export interface Listener {
  readonly server: Server
  /** Requests received whose response has not finished yet. */
  readonly inFlight: () => number
  /** From now on, every answer closes its connection (`Connection: close`): the instance is draining. */
  readonly closeConnections: () => void
}

export class HttpListener extends Context.Tag("Convene/HttpListener")<HttpListener, Listener>() {}

const STARTING = JSON.stringify({ message: "The service is starting; retry in a moment", code: "unavailable" })

/**
 * What Node's HTTP parser refuses never reaches the application: a request line and headers over
 * Node's 16 KiB (`HPE_HEADER_OVERFLOW`, answered 431) or a malformed request (400). Node would answer
 * with an empty body; these answers carry the API's error body and a request id like any other.
 */
const onClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, message] = error.code === "HPE_HEADER_OVERFLOW"
    ? ["431 Request Header Fields Too Large", "The request line and headers are over 16 KiB"]
    : ["400 Bad Request", "The request is not valid HTTP"]
  const body = JSON.stringify({ message, code: "invalid_request" })
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${randomUUID()}\r\nconnection: close\r\n\r\n${body}`
  )
}

/**
 * The service's Node `http.Server`, not listening yet, counting the requests in flight: its limits
 * and its answers to what never reaches the application. A request that arrives before the
 * application's handler is attached is answered 503 with `Retry-After`, rather than left without
 * an answer. The tests' in-process server (test/support/InProcess.ts) is this one, fed connections
 * without a port.
 */
export const makeListener = (): Listener => {
  const server = createServer()
  server.keepAliveTimeout = 65_000
  // a client that neither sends nor reads for two minutes gives its socket back; the service's own
  // limits come first (Http/ClientTimeouts.ts: a body stalled for 30 s is answered 408, a streamed
  // answer unread for 30 s is cut off)
  server.timeout = 120_000
  // Node's own limit on receiving a request, which answers 408 with no body: only a backstop
  // behind the service's limits on bodies, which answer in the API's shape
  server.requestTimeout = Duration.toMillis(CSV_BODY_TIMEOUT) + 60_000
  server.on("clientError", onClientError)
  let active = 0
  let closing = false
  server.on("request", (request, response) => {
    // an answer sent before its body has all arrived never resets the connection under the client
    lingerWhenAnswered(request, response)
    // draining: a client (a balancer's pool) does not send its next request on this connection
    if (closing) response.setHeader("connection", "close")
    active++
    response.once("close", () => active--)
    if (server.listenerCount("request") === 1) {
      response.writeHead(503, { "content-type": "application/json", "retry-after": "1" }).end(STARTING)
    }
  })
  return {
    server,
    inFlight: () => active,
    closeConnections: () => {
      closing = true
    }
  }
}

/**
 * The service's server (`makeListener`) on the configured host and port. The socket listens before
 * the application is built (its address is part of the configuration the application reads).
 */
export const NodeServerLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => {
  const listener = makeListener()
  return Layer.merge(
    NodeHttpServer.layer(() => listener.server, { port: config.port, host: config.host }),
    Layer.succeed(HttpListener, listener)
  )
}))

/** The drain delay: `SHUTDOWN_DRAIN_DELAY`, at most half the grace period (requests in flight get the rest). */
export const drainDelayOf = (config: { readonly shutdownDrainDelay: Duration.Duration; readonly shutdownGracePeriod: Duration.Duration }) =>
  Duration.min(config.shutdownDrainDelay, Duration.times(config.shutdownGracePeriod, 0.5))

export const GracefulShutdownLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { closeConnections, inFlight, server } = yield* HttpListener
  const readiness = yield* Readiness
  const config = yield* AppConfig
  const drain = drainDelayOf(config)
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      yield* readiness.drain
      if (Duration.toMillis(drain) > 0) {
        closeConnections()
        yield* Effect.logInfo(`Shutting down: /readyz answers 503; requests are still served for ${Duration.format(drain)}`)
        yield* Effect.sleep(drain)
      }
      yield* Effect.logInfo("Shutting down: finishing requests in flight").pipe(Effect.annotateLogs({ inFlight: inFlight() }))
      server.close()
      yield* Effect.sync(() => server.closeIdleConnections()).pipe(
        Effect.repeat({ until: () => inFlight() === 0, schedule: Schedule.spaced(Duration.millis(10)) }),
        Effect.timeout(Duration.subtract(config.shutdownGracePeriod, drain)),
        Effect.ignore
      )
      const left = inFlight()
      server.closeAllConnections()
      const took = (yield* Clock.currentTimeMillis) - started
      yield* Effect.logInfo("HTTP listener closed").pipe(Effect.annotateLogs({ cutRequests: left, durationMs: took }))
    })
  )
}))
