import { describe, expect, it as plain, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { GUIDE_FILE, renderGuide } from "../../src/Ops/Guide.js"
import { Readiness } from "../../src/Runtime/Readiness.js"
import { pageHeaders } from "../../src/Web/Kit/Headers.js"
import { expectError, expectStatus } from "../support/Fixtures.js"
import { TestServer, testServer } from "../support/TestServer.js"

layer(testServer(), { excludeTestServices: true })("HTTP behaviour", (it) => {
  describe("errors", () => {
    it.effect("answers unknown routes and methods with a JSON 404, before authentication", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        expectError(yield* server.request("GET", "/nowhere", { token: null }), 404, "not_found")
        expectError(yield* server.request("PATCH", "/person", { token: null }), 404, "not_found")
        expectError(yield* server.request("GET", "/person/a/b/c"), 404, "not_found")
      }))

    it.effect("answers malformed JSON, wrong types and non-object bodies with 400", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const json = { "content-type": "application/json" }
        expectError(yield* server.request("POST", "/person", { rawBody: "{\"firstName\":", headers: json }), 400, "invalid_request")
        expectError(yield* server.request("POST", "/person", { rawBody: "[1,2]", headers: json }), 400, "invalid_request")
        expectError(yield* server.request("POST", "/person", { rawBody: "null", headers: json }), 400, "invalid_request")
        expectError(yield* server.request("POST", "/person", { rawBody: "", headers: json }), 400, "invalid_request")
        expectError(yield* server.request("POST", "/person", { rawBody: "firstName=a", headers: { "content-type": "text/plain" } }), 400, "invalid_request")
      }))

    it.effect("reads every body as JSON, whatever its content type, and says so when it is not", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const body = (email: string) => JSON.stringify({ firstName: "A", lastName: "B", email })
        for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/merge-patch+json"]) {
          expectStatus(yield* server.request("POST", "/person", { rawBody: body(`ct.${type.length}.${Math.random()}@example.com`), headers: { "content-type": type } }), 201)
        }
        const form = expectError(
          yield* server.request("POST", "/person", { rawBody: "firstName=A&lastName=B", headers: { "content-type": "application/x-www-form-urlencoded" } }),
          400,
          "invalid_request"
        )
        expect(form.body.message).toBe("The request body is not valid JSON")
        const multipart = "--x\r\ncontent-disposition: form-data; name=\"firstName\"\r\n\r\nA\r\n--x--\r\n"
        expectError(yield* server.request("POST", "/person", { rawBody: multipart, headers: { "content-type": "multipart/form-data; boundary=x" } }), 400, "invalid_request")
        const deep = expectError(yield* server.request("POST", "/person", { rawBody: "[".repeat(100_000) + "]".repeat(100_000), headers: { "content-type": "application/json" } }), 400, "invalid_request")
        expect(deep.body.message).toBe("The request body is nested deeper than 32 levels")
      }))

    it.effect("answers what Node's HTTP parser refuses in the API's error shape", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const raw = (request: string) =>
          Effect.async<string>((resume) => {
            const socket = server.connect()
            let text = ""
            socket.on("data", (chunk) => (text += chunk.toString("utf8")))
            socket.on("close", () => resume(Effect.succeed(text)))
            socket.on("error", () => resume(Effect.succeed(text)))
            socket.write(request)
          })
        const parse = (text: string) => {
          const [head, body] = text.split("\r\n\r\n")
          return { status: head!.split(" ")[1], headers: head!.toLowerCase(), body: JSON.parse(body!) }
        }
        const garbage = parse(yield* raw("NOT HTTP AT ALL\r\n\r\n"))
        expect(garbage.status).toBe("400")
        expect(garbage.body).toEqual({ message: "The request is not valid HTTP", code: "invalid_request" })
        expect(garbage.headers).toMatch(/x-request-id: [0-9a-f-]{36}/)
        const long = parse(yield* raw(`GET /person?q=${"x".repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`))
        expect(long.status).toBe("431")
        expect(long.body).toEqual({ message: "The request line and headers are over 16 KiB", code: "invalid_request" })
        // ids of any length reach their handler: an unknown id, not an unknown route
        const longId = expectError(yield* server.request("GET", `/person/${"x".repeat(500)}`), 404, "not_found")
        expect(longId.body.message).not.toMatch(/No route/)
        expectError(yield* server.request("GET", "/person/%ED%A0%80"), 400, "invalid_request")
      }))

    it.effect("answers a body over 1 MiB with 413 and a body just under it normally", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const big = JSON.stringify({ firstName: "A", lastName: "B", email: "big@example.com", contextNote: "x".repeat(1_048_577) })
        expectError(yield* server.request("POST", "/person", { rawBody: big, headers: { "content-type": "application/json" } }), 413, "payload_too_large")
        const padding = " ".repeat(1_048_576 - 200)
        const fits = JSON.stringify({ firstName: "A", lastName: "B", email: "fits@example.com" }) + padding
        expect(fits.length).toBeLessThanOrEqual(1_048_576)
        expectStatus(yield* server.request("POST", "/person", { rawBody: fits, headers: { "content-type": "application/json" } }), 201)
      }))
  })

  describe("request ids and headers", () => {
    it.effect("echoes a valid X-Request-Id and makes one otherwise, on every response", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const echoed = yield* server.request("GET", "/person", { headers: { "x-request-id": "abc.DEF_123-x" } })
        expect(echoed.headers.get("x-request-id")).toBe("abc.DEF_123-x")
        for (const bad of ["has space", "x".repeat(129), "semi;colon"]) {
          const reply = yield* server.request("GET", "/person", { headers: { "x-request-id": bad } })
          const id = reply.headers.get("x-request-id")
          expect(id).not.toBe(bad)
          expect(id).toMatch(/^[A-Za-z0-9._-]{1,128}$/)
        }
        for (const reply of [
          yield* server.request("GET", "/nowhere"),
          yield* server.request("GET", "/person", { token: null }),
          yield* server.request("GET", "/healthz")
        ]) expect(reply.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
      }))

    it.effect("carries no framework fingerprint", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const reply = yield* server.request("GET", "/person")
        expect(reply.headers.get("x-powered-by")).toBeNull()
        expect(reply.headers.get("server")).toBeNull()
        const error = yield* server.request("GET", "/nowhere")
        expect(error.text).not.toMatch(/effect|_tag|HttpApi|RouteNotFound/i)
      }))
  })

  describe("operational endpoints", () => {
    it.effect("serves /healthz and /readyz without credentials or rate-limit headers", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        for (const path of ["/healthz", "/readyz"]) {
          const reply = expectStatus(yield* server.request("GET", path, { token: null }), 200)
          expect(reply.body).toEqual({ status: "ok" })
          expect(reply.headers.get("x-ratelimit-limit")).toBeNull()
        }
      }))

    it.effect("serves an OpenAPI 3.1 document of every endpoint, both schemes and every status", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const spec = expectStatus(yield* server.request("GET", "/openapi.json", { token: null }), 200).body
        expect(spec.openapi).toBe("3.1.0")
        expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" })
        expect(spec.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" })
        expect(spec.components.schemas).not.toHaveProperty("HttpApiDecodeError")
        const create = spec.paths["/person"].post
        expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "401", "403", "404", "409", "413", "422", "429", "500"])
        expect(create.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key")
        expect(spec.paths["/login"].post.responses).not.toHaveProperty("422")
        expect(spec.paths["/login"].post.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: "Idempotency-Key" }))
        expect(create.security).toEqual([{ apiKey: [] }, { bearer: [] }])
        expect(JSON.stringify(create.responses["400"])).not.toContain("HttpApiDecodeError")
        for (const path of ["/person", "/person/{id}", "/person/search", "/persons", "/login", "/me", "/member", "/api-token", "/api-token/{tokenId}", "/custom-field", "/person/{id}/unarchive", "/healthz", "/readyz"]) {
          expect(spec.paths, path).toHaveProperty([path])
        }
        expect(spec.paths["/login"].post.security).toEqual([])
        const error = spec.components.schemas["NotFound"]
        expect(Object.keys(error.properties).sort()).toEqual(["code", "issues", "message"])
      }))

    it.effect("renders the API docs as a page that needs no network", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const reply = expectStatus(yield* server.request("GET", "/docs", { token: null }), 200)
        expect(reply.headers.get("content-type")).toMatch(/text\/html/)
        expect(reply.text).toContain("Convene")
        expect(reply.text).not.toMatch(/<script[^>]+src="https?:/)
        // the API reference page's description links to the integrator's guide, relative to /docs
        expect(reply.text).toContain("docs/guide")
      }))

    it.effect("serves the integrator's guide at /docs/guide as a page with the dashboard's stylesheet and headers", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const reply = expectStatus(yield* server.request("GET", "/docs/guide", { token: null }), 200)
        expect(reply.headers.get("content-type")).toMatch(/^text\/html/)
        for (const [name, value] of Object.entries(pageHeaders)) expect(reply.headers.get(name), name).toBe(value)
        expect(reply.headers.get("x-ratelimit-limit")).toBeNull()
        const page = reply.text
        expect(page.match(/<h1[ >]/g)).toHaveLength(1)
        expect(page).toContain(`<h1 id="convene-integrators-guide">`)
        for (const id of ["authentication", "errors", "the-order-of-checks", "rate-limits", "idempotency-keys", "verifying-signatures", "syncing-with-the-change-feed"]) {
          expect(page).toContain(`id="${id}"`)
        }
        expect(page).toMatch(/<link rel="stylesheet" href="\/app\/assets\/app\.[\w-]+\.css"/)
        // no inline script or style (the CSP would block them), nothing from another origin
        expect(page).not.toMatch(/<style|\sstyle="|\son[a-z]+="/i)
        for (const tag of page.match(/<script[^>]*>/g) ?? []) expect(tag).toMatch(/ src="\/app\/assets\//)
        expect(page).not.toMatch(/(?:src|href)="\/\//)
        // every link inside the page reaches a heading of it
        const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]))
        for (const [, anchor] of page.matchAll(/href="#([^"]+)"/g)) expect(ids, anchor).toContain(anchor)
        // the code blocks are there, escaped
        expect(page).toContain("createHmac(&quot;sha256&quot;, key)")
      }))
  })
})

describe("the integrator's guide", () => {
  plain("renders raw HTML as text and keeps only http(s), mailto and in-page links", () => {
    const html = renderGuide([
      "# Title",
      "",
      "<script>alert(1)</script>",
      "",
      "Text <img src=x onerror=alert(1)> [bad](javascript:alert(1)) [file](../README.md) [ok](https://example.org) " +
      "[mail](mailto:a@example.org) [here](#title) ![picture](https://example.org/p.png)",
      "",
      "## A heading, with `code` & punctuation!",
      "## A heading, with `code` & punctuation!"
    ].join("\n"))
    expect(html).not.toMatch(/<script|<img|href="(?!https:|mailto:|#)/i)
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(html).toContain(`<a href="https://example.org">ok</a>`)
    expect(html).toContain(`<a href="mailto:a@example.org">mail</a>`)
    expect(html).toContain(`<a href="#title">here</a>`)
    expect(html).toContain("bad file")
    expect(html).toContain(`<h2 id="a-heading-with-code--punctuation">`)
    expect(html).toContain(`<h2 id="a-heading-with-code--punctuation-1">`)
  })

  plain("has every section that README.md, code comments and tests point at (docs/integrators.md#<section>)", () => {
    const ids = new Set([...renderGuide(readFileSync(GUIDE_FILE, "utf8")).matchAll(/ id="([^"]+)"/g)].map((m) => m[1]))
    const files = (path: string): ReadonlyArray<string> =>
      statSync(path).isDirectory() ? readdirSync(path).flatMap((name) => files(join(path, name))) : [path]
    const pointers = ["README.md", "src", "migrations", "test", "bench", "scripts"]
      .flatMap(files)
      .filter((file) => /\.(?:ts|tsx|mjs|md|css)$/.test(file))
      .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/docs\/integrators\.md#([\w-]+)/g)].map((m) => ({ file, anchor: m[1]! })))
    expect(pointers.length).toBeGreaterThan(50)
    for (const { anchor, file } of pointers) expect(ids, `${file}: #${anchor}`).toContain(anchor)
  })
})

layer(testServer(), { excludeTestServices: true })("readiness", (it) => {
  it.effect("answers /readyz 503 in the error shape once shutdown has begun; /healthz stays up", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      expect((yield* server.request("GET", "/readyz", { token: null })).body).toEqual({ status: "ok" })
      yield* (yield* Readiness).drain
      const reply = expectError(yield* server.request("GET", "/readyz", { token: null }), 503, "unavailable")
      expect(reply.body).toEqual({ message: "Shutting down", code: "unavailable" })
      expectStatus(yield* server.request("GET", "/healthz", { token: null }), 200)
    }))
})
