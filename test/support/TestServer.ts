/**
 * A real Convene server for tests: the application layer over a fresh database (a SQLite file in a
 * temporary folder, or a copy of the migrated template on PostgreSQL: Engine.ts), driven over
 * HTTP. Configuration comes from a `ConfigProvider` map, as the environment would give it.
 *
 * - `testServer()` (the API tier, test/api/): the service's own HTTP server in process, without a
 *   port (InProcess.ts). `request`, `fetch` and the typed `client` reach it; so does the global
 *   `fetch` on its `url`, an origin of its own. A process or a browser cannot.
 * - `liveServer()` (= `testServer(env, { listen: true })`, the slow tier, test/slow/): the same on
 *   the service's own listener at an ephemeral loopback port, for what needs a real socket: a
 *   browser, another process, raw connections, timing on the wire.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { HttpServer } from "@effect/platform"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { connect as connectTcp } from "node:net"
import { join } from "node:path"
import type { Duplex } from "node:stream"
import { ApiTokens } from "../../src/Auth/ApiTokens.js"
import { AppConfig, appConfig } from "../../src/Config/AppConfig.js"
import { DirectSql } from "../../src/Db/DirectSql.js"
import type { OrganizationRowId } from "../../src/Domain/RowIds.js"
import { Organizations } from "../../src/Organizations/Organizations.js"
import { type ConveneClient, make as makeClient } from "../../src/Client/index.js"
import { AppLive } from "../../src/Server.js"
import { NodeServerLive } from "../../src/Shutdown.js"
import { type DatabaseEnv, databaseEnvOf, onPostgres, testDatabaseVariables } from "./Engine.js"
import { InProcess, InProcessServerLive } from "./InProcess.js"

export const API_TOKEN = "cvn_test_0123456789abcdefghijklmnopqrstuvwxyz"
export const ADMIN_EMAIL = "owner@acme.test"
export const ADMIN_PASSWORD = "correct horse battery"

export interface Reply<T = any> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
  readonly text: string
}

export interface RequestOptions {
  readonly body?: unknown
  readonly rawBody?: string
  readonly token?: string | null
  readonly headers?: Record<string, string>
}

export interface TestServerShape {
  /** Where it answers: an in-process origin (`testServer()`), or `http://127.0.0.1:<port>` (`liveServer()`). */
  readonly url: string
  readonly databasePath: string
  /** The variables naming its database on the suite's engine (a CLI on it needs them all). */
  readonly databaseEnv: DatabaseEnv
  /** An HTTP request; by default authenticated with the bootstrap API token. */
  readonly request: <T = any>(method: string, path: string, options?: RequestOptions) => Effect.Effect<Reply<T>>
  /** A new organization with its own API token (as the admin CLI would make it). */
  readonly organization: (slug: string) => Effect.Effect<{ readonly id: OrganizationRowId; readonly token: string }>
  /** SQL statements the server has executed so far. */
  readonly statements: () => number
  /** `fetch` on this server: a path (`/person`) or a whole URL. */
  readonly fetch: (path: string | URL, init?: RequestInit) => Promise<Response>
  /** The typed client (src/Client: `HttpApiClient.make(Api)`) with the bootstrap API token. */
  readonly client: ConveneClient
  /** A raw connection to it (in process, or a TCP socket to its port), for what is sent byte by byte. */
  readonly connect: () => Duplex
  /** The typed client with another API token, or with none (`null`); `headers` go on every request. */
  readonly clientAs: (token: string | null, headers?: Readonly<Record<string, string>>) => Effect.Effect<ConveneClient>
}

export interface TestServerOptions {
  /** Listen on an ephemeral loopback port (for browsers, processes and raw sockets) rather than in process. */
  readonly listen?: boolean
}

export class TestServer extends Context.Tag("test/TestServer")<TestServer, TestServerShape>() {}

export const send = (url: string) => <T = any>(method: string, path: string, options: RequestOptions = {}) =>
  Effect.promise(async (): Promise<Reply<T>> => {
    const headers: Record<string, string> = { ...options.headers }
    const token = options.token === undefined ? API_TOKEN : options.token
    if (token !== null) headers["x-api-key"] = token
    let body: string | undefined = options.rawBody
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] = "application/json"
    }
    const response = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body }) })
    const text = await response.text()
    let parsed: unknown = undefined
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text }
  })

/** The environment a test server starts with; tests override entries. */
export const testEnvironment = (databasePath: string): Record<string, string> => ({
  DATABASE_PATH: databasePath,
  // on PostgreSQL (test/support/Engine.ts), a fresh database of its own
  ...(onPostgres ? testDatabaseVariables() : {}),
  BOOTSTRAP_ORG_SLUG: "acme",
  BOOTSTRAP_ORG_NAME: "Acme",
  BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
  BOOTSTRAP_API_TOKEN: API_TOKEN,
  PUBLIC_BASE_URL: "https://convene.test",
  RATE_LIMIT_BURST: "100000",
  RATE_LIMIT_PER_SECOND: "100000",
  BULK_RATE_LIMIT_BURST: "100000",
  BULK_RATE_LIMIT_PER_MINUTE: "100000",
  WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
  // a stopped test server closes at once (no balancer to route around it: test/slow/drain.test.ts)
  SHUTDOWN_DRAIN_DELAY: "0",
  // CONVENE_TEST_LOG_LEVEL=Error shows the servers' logs while debugging a test
  LOG_LEVEL: process.env["CONVENE_TEST_LOG_LEVEL"] ?? "None"
})

/** Reads the configuration from `env` as the service reads it from the environment. */
export const configFrom = (env: Record<string, string>) =>
  appConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))), Effect.orDie)

export const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "convene-test-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/**
 * A server over a fresh database; `env` overrides the test environment. In process unless
 * `options.listen` (see above).
 */
export const testServer = (env: Record<string, string> = {}, options: TestServerOptions = {}) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const dir = yield* temporaryDirectory
    const databasePath = join(dir, "convene.db")
    const variables = { ...testEnvironment(databasePath), PORT: "0", HOST: "127.0.0.1", ...env }
    const config = yield* configFrom(variables)
    const handle = Layer.effect(
      TestServer,
      Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const organizations = yield* Organizations
        const apiTokens = yield* ApiTokens
        const direct = yield* DirectSql
        const inProcess = yield* Effect.serviceOption(InProcess)
        const address = server.address
        const url = inProcess._tag === "Some"
          ? inProcess.value.origin
          : address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
        const fetchHere = inProcess._tag === "Some" ? inProcess.value.fetch : globalThis.fetch
        const clientAs = (token: string | null, headers?: Readonly<Record<string, string>>) =>
          makeClient({ baseUrl: url, token: token ?? undefined, headers }).pipe(
            Effect.provide(FetchHttpClient.layer),
            Effect.provideService(FetchHttpClient.Fetch, fetchHere)
          )
        return {
          url,
          databasePath,
          databaseEnv: databaseEnvOf(variables),
          request: send(url),
          organization: (slug: string) =>
            Effect.gen(function*() {
              const organization = yield* organizations.create({ slug, name: slug }).pipe(Effect.orDie)
              const created = yield* apiTokens.createApiToken(organization.id, "test")
              return { id: organization.id, token: Redacted.value(created.token) }
            }),
          statements: direct.executed,
          connect: inProcess._tag === "Some"
            ? inProcess.value.connect
            : () => connectTcp(address._tag === "TcpAddress" ? address.port : 0, "127.0.0.1"),
          fetch: (path, init) => fetchHere(typeof path === "string" && path.startsWith("/") ? url + path : path, init),
          client: yield* clientAs(API_TOKEN),
          clientAs
        } satisfies TestServerShape
      })
    )
    return handle.pipe(
      Layer.provideMerge(AppLive),
      Layer.provideMerge(options.listen === true ? NodeServerLive : InProcessServerLive),
      Layer.provide(Layer.succeed(AppConfig, config))
    )
  }))

/** A server on an ephemeral loopback port (`testServer` with `listen`): for browsers, processes and raw sockets. */
export const liveServer = (env: Record<string, string> = {}) => testServer(env, { listen: true })
