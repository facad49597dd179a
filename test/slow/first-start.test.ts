import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { join } from "node:path"
import { startServer } from "../support/Process.js"
import { send, temporaryDirectory } from "../support/TestServer.js"

/** The first start (README.md "Quick start"): an empty database and no BOOTSTRAP_* variables; what is printed must let you in. */
describe("first start", () => {
  it.scopedLive("creates the default organization and prints credentials that work, once", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const env = {
        DATABASE_PATH: join(dir, "convene.db"),
        // empty counts as unset, whatever the surrounding environment holds
        BOOTSTRAP_ORG_SLUG: "",
        BOOTSTRAP_ORG_NAME: "",
        BOOTSTRAP_ADMIN_EMAIL: "",
        BOOTSTRAP_ADMIN_PASSWORD: "",
        BOOTSTRAP_API_TOKEN: "",
        PUBLIC_BASE_URL: ""
      }
      const server = yield* startServer(env)
      const printed = yield* Effect.sync(() => server.output()).pipe(
        // the first-start lines and the start-up warning about PUBLIC_BASE_URL, written apart (in either order)
        Effect.filterOrFail((out) => /curl .*\/person/.test(out) && out.includes("Set PUBLIC_BASE_URL to")),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("10 seconds"))),
        Effect.orDie
      )
      const email = printed.match(/admin email:\s+(\S+)/)![1]!
      const password = printed.match(/admin password:\s+(\S+)/)![1]!
      const token = printed.match(/API token:\s+(cvn_[A-Za-z0-9_-]{32,})/)![1]!
      expect(email).toBe("admin@localhost")
      expect(printed).toContain(`curl -H "x-api-key: ${token}" ${server.url}/person`)
      // PUBLIC_BASE_URL unset (CONTRACT §16): a warning that links point at localhost, and how to set it
      const localhost = server.url.replace("127.0.0.1", "localhost")
      expect(printed).toContain(`PUBLIC_BASE_URL is not set: links that leave Convene`)
      expect(printed).toContain(`will point at ${localhost}`)
      expect(printed).toContain("Set PUBLIC_BASE_URL to the address people reach Convene at")
      expect(printed).toMatch(/public address: \S+ +\(PUBLIC_BASE_URL is not set/)
      expect(printed).toContain("/o/default")

      const api = send(server.url)
      expect((yield* api("GET", "/person", { token })).status).toBe(200)
      const session = yield* api("POST", "/login", { token: null, body: { email, password } })
      expect(session.status, session.text).toBe(200)
      expect(session.body.organizationSlugs).toEqual(["default"])
      const me = yield* api("GET", "/me", { token: null, headers: { authorization: `Bearer ${session.body.accessToken}` } })
      expect(me.body).toMatchObject({ email: "admin@localhost", role: "Super Admin", organizationSlugs: ["default"] })
      const wrong = yield* api("POST", "/login", { token: null, body: { email, password: `${password}x` } })
      expect(wrong.status).toBe(401)

      // a restart neither creates anything again nor prints secrets
      expect(yield* server.kill("SIGTERM")).toBe(0)
      const again = yield* startServer(env)
      expect((yield* send(again.url)("GET", "/person", { token })).status).toBe(200)
      yield* Effect.sleep("300 millis")
      expect(again.output()).not.toContain("First start")
      expect(again.output()).not.toContain(token)
    }), 60_000)
})
