/**
 * The balancer of compose.yaml (CONTRACT §19), as files: compose.yaml itself is read as YAML (no
 * container runtime needed): PostgreSQL, Redis, two instances of one image built once, Caddy with
 * the project's Caddyfile, no secret in the file, a stop grace period past SHUTDOWN_GRACE_PERIOD;
 * Debian's caddy accepts the Caddyfile. The same Caddyfile in front of two instances under load:
 * test/slow/pg/balancer.test.ts (PostgreSQL only).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parse } from "yaml"
import { parseDuration } from "../../src/Config/Env.js"
import { adaptedCaddyfile, caddyAvailable } from "../support/Caddy.js"

const file = (name: string) => fileURLToPath(new URL(`../../${name}`, import.meta.url))

interface Service {
  readonly image?: string
  readonly build?: unknown
  readonly command?: ReadonlyArray<string>
  readonly environment?: Record<string, string>
  readonly volumes?: ReadonlyArray<string>
  readonly stop_grace_period?: string
  readonly healthcheck?: { readonly test: ReadonlyArray<string> }
}

const millisOf = (text: string) => Duration.toMillis(Option.getOrThrow(parseDuration(text)))

describe("compose.yaml and its Caddyfile", () => {
  it("describe PostgreSQL, Redis, two instances of one image built once and Caddy; secrets come from .env", () => {
    const compose = parse(readFileSync(file("compose.yaml"), "utf8"), { merge: true }) as { services: Record<string, Service> }
    const services = compose.services
    expect(Object.keys(services).sort()).toEqual(["convene-a", "convene-b", "postgres", "proxy", "redis"])
    const instances = [services["convene-a"]!, services["convene-b"]!]

    // one image, built once
    expect(Object.values(services).filter((service) => service.build !== undefined)).toHaveLength(1)
    expect(instances[0]!.build).toBeDefined()
    expect(instances[0]!.image).toBeDefined()
    expect(instances[1]!.image).toBe(instances[0]!.image)

    for (const instance of instances) {
      const env = instance.environment!
      expect(env["DATABASE_URL"]).toMatch(/^postgres:\/\/convene:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/convene$/)
      expect(env["REDIS_URL"]).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]+\}@redis:6379$/)
      // the runtime waits past the service's own grace period before it kills the instance
      expect(millisOf(instance.stop_grace_period!)).toBeGreaterThan(millisOf(env["SHUTDOWN_GRACE_PERIOD"] ?? "10 seconds"))
      expect(instance.healthcheck!.test.join(" ")).toContain("/readyz")
    }
    expect(instances.map((instance) => instance.environment!["INSTANCE_ID"])).toEqual(["convene-a", "convene-b"])

    // no secret written in the file: every password is read from .env, which is git-ignored
    const text = readFileSync(file("compose.yaml"), "utf8")
    for (const [name, value] of Object.values(services).flatMap((service) => Object.entries(service.environment ?? {}))) {
      if (/PASSWORD|SECRET|TOKEN/.test(name)) expect(value, name).toMatch(/^\$\{[A-Z_]+(:\?[^}]*)?\}$/)
      // a URL's password, if any, is an interpolation as a whole
      const password = /:\/\/[^/@:]*:([^@]*)@/.exec(value.replace(/\$\{[^}]*\}/g, "<from .env>"))?.[1]
      if (password !== undefined) expect(password, name).toBe("<from .env>")
    }
    expect(services["redis"]!.command!.join(" ")).toMatch(/--requirepass \$\{REDIS_PASSWORD:\?[^}]+\}/)
    const example = readFileSync(file(".env.example"), "utf8")
    for (const variable of new Set([...text.matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]!))) {
      expect(example, `${variable} is not in .env.example`).toMatch(new RegExp(`^${variable}=`, "m"))
    }
    expect(readFileSync(file(".gitignore"), "utf8").split("\n")).toContain(".env")
    expect(readFileSync(file(".dockerignore"), "utf8").split("\n")).toContain(".env")

    // Caddy runs the project's Caddyfile in front of both instances
    const proxy = services["proxy"]!
    expect(proxy.volumes).toContain("./Caddyfile:/etc/caddy/Caddyfile:ro")
    expect(proxy.command).toEqual(["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"])
    expect(proxy.environment!["CONVENE_UPSTREAMS"]!.split(" ")).toEqual(["convene-a:3000", "convene-b:3000"])
    expect(existsSync(file("Caddyfile"))).toBe(true)
  })

  it.effect.runIf(caddyAvailable)("Debian's caddy accepts the Caddyfile: /readyz health checks, retries of GET, HEAD and OPTIONS only", () =>
    Effect.gen(function*() {
      const config = yield* adaptedCaddyfile(["127.0.0.1:1", "127.0.0.1:2"])
      const handler = JSON.stringify(config)
      const proxy = JSON.parse(handler).apps.http.servers.srv0.routes[0].handle[0]
      expect(proxy.upstreams).toEqual([{ dial: "127.0.0.1:1" }, { dial: "127.0.0.1:2" }])
      expect(proxy.health_checks.active).toMatchObject({ uri: "/readyz", expect_status: 200 })
      expect(proxy.load_balancing.retry_match).toEqual([{ method: ["GET", "HEAD", "OPTIONS"] }])
      expect(proxy.load_balancing.try_duration).toBeGreaterThan(0)
    }))
})
