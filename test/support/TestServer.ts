/**
 * A real Convene server for tests: the application layer over a fresh SQLite file in a temporary
 * folder, on the service's own listener at an ephemeral loopback port, driven over HTTP with `fetch`. Configuration
 * comes from a `ConfigProvider` map, as the environment would give it.
 */
import { HttpServer } from "@effect/platform"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiTokens } from "../../src/Auth/ApiTokens.js"
import { AppConfig, appConfig } from "../../src/Config/AppConfig.js"
import { DirectSql } from "../../src/Db/DirectSql.js"
import type { OrganizationRowId } from "../../src/Domain/RowIds.js"
import { Organizations } from "../../src/Organizations/Organizations.js"
import { AppLive } from "../../src/Server.js"
import { NodeServerLive } from "../../src/Shutdown.js"
import { type DatabaseEnv, databaseEnvOf, onPostgres, testDatabaseVariables } from "./Engine.js"

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
  // a stopped test server closes at once (no balancer to route around it: test/drain.test.ts)
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

/** A server over a fresh database; `env` overrides the test environment. */
export const testServer = (env: Record<string, string> = {}) =>
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
        const address = server.address
        const url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
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
          statements: direct.executed
        }
      })
    )
    return handle.pipe(
      Layer.provideMerge(AppLive),
      Layer.provideMerge(NodeServerLive),
      Layer.provide(Layer.succeed(AppConfig, config))
    )
  }))
