/**
 * The service in process, without a port (the API tier, test/api/): the very `http.Server` that
 * the service listens with (src/Shutdown.ts `makeListener`: Node's HTTP parser and limits, the
 * in-flight count, lingering close, the 503 before the application is attached) is handed
 * connections made of in-memory stream pairs instead of sockets, and a client writes its requests
 * into the other end. Everything above the socket is the service's own code path, body reading
 * (which reads Node's request stream) and streamed answers (with back-pressure) included.
 *
 * What differs from a socket: every request comes from 127.0.0.1 (tests that need other client
 * addresses set `TRUSTED_PROXIES` and send `X-Forwarded-For`); socket timeouts (`server.timeout`,
 * keep-alive's) never fire; a connection closed by one end is read to its end by the other, then
 * ended, never reset.
 *
 * Each server gets an origin of its own (`http://convene-<pid>-<n>.in-process`): `fetch` on it
 * (the global one included, which this module routes by origin) reaches the server in process, so
 * that a test written against a server's `url` works unchanged. Its client is Node's HTTP client
 * with an agent whose connections are such pairs; `fetch` here is a small fetch over it (request
 * bodies as `fetch` encodes them, redirects followed or not, streamed answers).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer } from "effect"
import { Agent, request as httpRequest, type Server } from "node:http"
import { Duplex, Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { HttpListener, makeListener } from "../../src/Shutdown.js"

/** The client address of every in-process request. */
export const IN_PROCESS_CLIENT = "127.0.0.1"

/** What a connection holds that its reader has not read yet, as a loopback socket's buffers do. */
const SOCKET_BUFFER = 2 * 1024 * 1024

const brokenPipe = () => Object.assign(new Error("write after the other end closed"), { code: "EPIPE" })

/**
 * One end of an in-memory connection: what is written to one end is read from the other, with
 * back-pressure (a write completes once the other end wants more). The `net.Socket` methods that
 * Node's HTTP server, client and agent call are there; destroying one end ends the other (it reads
 * what was sent, then the end).
 */
class End extends Duplex {
  other: End | undefined = undefined
  /** A write of the other end waiting until this end reads again. */
  waiting: ((error?: Error | null) => void) | undefined = undefined
  readonly remotePort = 0
  readonly localPort = 0
  readonly remoteFamily = "IPv4"
  constructor(readonly remoteAddress: string, readonly localAddress: string, allowHalfOpen: boolean) {
    super({ allowHalfOpen })
  }
  override _read() {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.()
  }
  // What one end writes reaches the other in a later turn of the event loop (`setImmediate`), as
  // bytes from a socket do: a client that sends request after request gives the server, its timers
  // and its I/O their turns, as over a network. A write is done at once while the other end holds
  // less than `SOCKET_BUFFER` unread, as a socket's buffers take what the peer has not read yet;
  // past that, it waits until the other end reads (back-pressure).
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    setImmediate(() => {
      const other = this.other!
      if (other.destroyed) return callback(brokenPipe())
      other.push(chunk)
      if (other.readableLength < SOCKET_BUFFER) callback()
      else other.waiting = callback
    })
  }
  override _final(callback: (error?: Error | null) => void) {
    setImmediate(() => {
      this.other!.push(null)
      callback()
    })
  }
  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.(brokenPipe())
    const other = this.other
    // the other end reads what was sent, then the end
    setImmediate(() => {
      if (other !== undefined && !other.destroyed) other.push(null)
    })
    callback(error)
  }
  destroySoon() {
    if (this.writable) this.end()
    if (this.writableFinished) this.destroy()
    else this.once("finish", () => this.destroy())
  }
  setTimeout(_ms: number, callback?: () => void) {
    if (callback !== undefined) this.once("timeout", callback)
    return this
  }
  setNoDelay() {
    return this
  }
  setKeepAlive() {
    return this
  }
  ref() {
    return this
  }
  unref() {
    return this
  }
  address() {
    return { address: this.localAddress, port: this.localPort, family: this.remoteFamily }
  }
}

/**
 * A connection to `server`: the server's end is handed to it as a socket would be (half-open, as
 * Node's HTTP server makes its sockets); the client's end is answered (it ends when the server's
 * side has ended, as a client's socket does).
 */
export const connect = (server: Server): Duplex => {
  const client = new End("127.0.0.1", IN_PROCESS_CLIENT, false)
  const served = new End(IN_PROCESS_CLIENT, "127.0.0.1", true)
  client.other = served
  served.other = client
  server.emit("connection", served)
  return client
}

/**
 * Node's HTTP agent, whose connections are in memory. Requests ask for keep-alive, as `fetch`'s do
 * (so the server answers as it answers `fetch`), but a connection serves one request: Node's client
 * can hand a connection to the next request twice over when an answer ends before its request's
 * body is written (an early 413), which a socket's timing hides and this one does not.
 */
class InProcessAgent extends Agent {
  constructor(private readonly server: Server) {
    super({ keepAlive: true })
  }
  override createConnection(): Duplex {
    return connect(this.server)
  }
  override keepSocketAlive(): boolean {
    return false
  }
}

const NULL_BODY = new Set([101, 103, 204, 205, 304])
const REDIRECT = new Set([301, 302, 303, 307, 308])

const isStream = (body: unknown): boolean =>
  body instanceof ReadableStream || (typeof body === "object" && body !== null && Symbol.asyncIterator in body && !(body instanceof Uint8Array))

/** One request and its answer, over `agent`, as `fetch` sends it (with `Content-Length`, unless the body is a stream). */
const exchange = async (agent: Agent, request: Request, streamed: boolean): Promise<Response> => {
  const url = new URL(request.url)
  const headers: Record<string, string> = { accept: "*/*", "user-agent": "node" }
  request.headers.forEach((value, name) => {
    headers[name] = value
  })
  let body: Buffer | Readable | undefined
  if (request.body !== null) {
    if (streamed) {
      body = Readable.fromWeb(request.body as import("node:stream/web").ReadableStream)
    } else {
      body = Buffer.from(await request.arrayBuffer())
      headers["content-length"] = String(body.length)
    }
  }
  return new Promise<Response>((resolve, reject) => {
    const aborted = () => new DOMException("This operation was aborted", "AbortError")
    if (request.signal.aborted) return reject(aborted())
    const outgoing = httpRequest({
      agent,
      method: request.method,
      host: url.hostname,
      port: url.port === "" ? 80 : Number(url.port),
      path: url.pathname + url.search,
      headers
    })
    const onAbort = () => {
      outgoing.destroy(aborted())
      reject(aborted())
    }
    request.signal.addEventListener("abort", onAbort, { once: true })
    outgoing.once("error", (error) => {
      request.signal.removeEventListener("abort", onAbort)
      reject(Object.assign(new TypeError("fetch failed"), { cause: error }))
    })
    outgoing.once("response", (incoming) => {
      const answered = new Headers()
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) answered.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!)
      const status = incoming.statusCode!
      const empty = NULL_BODY.has(status) || request.method === "HEAD"
      if (empty) incoming.resume()
      // an abort after the answer began ends its body with the abort, as fetch does
      incoming.once("close", () => request.signal.removeEventListener("abort", onAbort))
      const response = new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), {
        status,
        statusText: incoming.statusMessage ?? "",
        headers: answered
      })
      Object.defineProperty(response, "url", { value: request.url })
      resolve(response)
    })
    if (body instanceof Readable) pipeline(body, outgoing).catch(() => {})
    else outgoing.end(body)
  })
}

type Fetch = typeof globalThis.fetch

/** `fetch` over `agent`; redirects to another origin go to the global `fetch`. */
const fetchOver = (agent: Agent, origin: string): Fetch =>
  async function inProcessFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init)
    const streamed = isStream(init?.body) || (input instanceof Request && input.body !== null && init?.body === undefined)
    const response = await exchange(agent, request, streamed)
    const location = response.headers.get("location")
    if (!REDIRECT.has(response.status) || location === null || request.redirect === "manual") return response
    if (request.redirect === "error") throw new TypeError("fetch failed: redirect mode is set to error")
    await response.body?.cancel()
    const next = new URL(location, request.url)
    const changesToGet = response.status === 303 ? request.method !== "HEAD" : (response.status <= 302 && request.method === "POST")
    const headers = new Headers(request.headers)
    if (changesToGet) for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(name)
    const hops = ((init as { readonly hops?: number } | undefined)?.hops ?? 0) + 1
    if (hops > 20) throw new TypeError("fetch failed: redirect count exceeded")
    const followed = await (next.origin === origin ? inProcessFetch : globalThis.fetch)(next, {
      method: changesToGet ? "GET" : request.method,
      headers,
      redirect: request.redirect,
      signal: request.signal,
      ...(changesToGet ? {} : { body: init?.body ?? null }),
      hops
    } as RequestInit)
    Object.defineProperty(followed, "redirected", { value: true })
    return followed
  }

// ---- routing the global fetch by origin -------------------------------------------------------

interface Routes {
  readonly origins: Map<string, Fetch>
  readonly network: Fetch
}
const ROUTES = Symbol.for("convene/test/in-process-origins")
const holder = globalThis as unknown as { [ROUTES]?: Routes }

const routes = (): Routes => {
  const installed = holder[ROUTES]
  if (installed !== undefined) return installed
  const created: Routes = { origins: new Map(), network: globalThis.fetch }
  holder[ROUTES] = created
  globalThis.fetch = (input, init) => {
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : input.url
    let origin: string | undefined
    try {
      origin = new URL(href).origin
    } catch {
      origin = undefined
    }
    const local = origin === undefined ? undefined : created.origins.get(origin)
    return local === undefined ? created.network(input, init) : local(input, init)
  }
  return created
}

// ---- the server -------------------------------------------------------------------------------

export interface InProcessShape {
  /** This server's origin: `fetch` on it, the global one included, reaches it. */
  readonly origin: string
  /** `fetch` to this server (whole URLs on its origin). */
  readonly fetch: Fetch
  /** A raw connection to this server, as `net.connect` to its port would give. */
  readonly connect: () => Duplex
}

export class InProcess extends Context.Tag("test/InProcess")<InProcess, InProcessShape>() {}

let servers = 0

/**
 * The service's HTTP server without a port: `HttpServer` (what `HttpApiBuilder.serve` attaches the
 * application to), the `HttpListener` graceful shutdown reads, and the way in (`InProcess`).
 */
export const InProcessServerLive = Layer.scopedContext(Effect.gen(function*() {
  const listener = makeListener()
  const { server } = listener
  // what `listen` would start: Node's list of connections (closeAllConnections) and its timeouts
  server.emit("listening")
  const agent = new InProcessAgent(server)
  const origin = `http://convene-${process.pid}-${++servers}.in-process`
  const fetch = fetchOver(agent, origin)
  const { origins } = routes()
  origins.set(origin, fetch)
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      origins.delete(origin)
      agent.destroy()
      server.closeAllConnections()
      server.close()
    })
  )
  const httpServer = HttpServer.make({
    address: { _tag: "TcpAddress", hostname: IN_PROCESS_CLIENT, port: 80 },
    serve: (app, middleware) =>
      Effect.gen(function*() {
        const handler = yield* NodeHttpServer.makeHandler(app, middleware!)
        yield* Effect.addFinalizer(() => Effect.sync(() => server.off("request", handler)))
        server.on("request", handler)
      })
  })
  return Context.make(HttpServer.HttpServer, httpServer).pipe(
    Context.add(HttpListener, listener),
    Context.add(InProcess, { origin, fetch, connect: () => connect(server) })
  )
})).pipe(Layer.provideMerge(NodeHttpServer.layerContext))
