/**
 * Compressed answers through the service (issue 26, item 8): the dashboard's assets in brotli or
 * gzip as `Accept-Encoding` allows (decompressing to the very bytes sent without it, with their
 * own length, entity tag and `Vary`, still cached for good), the API reference's script and
 * stylesheet, pages compressed per request, and what stays as it is: every answer to a request
 * without `Accept-Encoding`, the API's JSON, streamed answers. The in-process `fetch` sends no `Accept-Encoding` of its own and decodes nothing, so
 * the bytes read here are the bytes sent.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { type DashboardClient, signIn } from "../support/Dashboard.js"
import { createEvent, daysFromNow } from "../support/Fixtures.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, testServer } from "../support/TestServer.js"

/** PUBLIC_BASE_URL of the test server: what the browser sends as `Origin`. */
const ORIGIN = "https://convene.test"

interface Raw {
  readonly status: number
  readonly headers: Headers
  readonly body: Buffer
}

/** A GET (or HEAD) as it comes off the wire. */
const raw = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  Effect.flatMap(TestServer, (server) =>
    Effect.promise(async (): Promise<Raw> => {
      const response = await server.fetch(path, { method, headers, redirect: "manual" })
      return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) }
    }))

const decoded = (reply: Raw): Buffer => {
  const coding = reply.headers.get("content-encoding")
  return coding === "br" ? brotliDecompressSync(reply.body) : coding === "gzip" ? gunzipSync(reply.body) : reply.body
}

const cookieOf = (client: DashboardClient) => ({ cookie: `convene_session=${client.session()}` })

const admin = Effect.flatMap(TestServer, (server) => signIn(server.url, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, { origin: ORIGIN }))

/** The served paths of the stylesheet and the script a page links to. */
const assetPaths = (html: string) => {
  const css = /href="[^"]*(\/app\/assets\/app\.[\w-]+\.css)"/.exec(html)?.[1]
  const js = /src="[^"]*(\/app\/assets\/app\.[\w-]+\.js)"/.exec(html)?.[1]
  expect(css).toBeDefined()
  expect(js).toBeDefined()
  return [css!, js!]
}

layer(testServer(), { excludeTestServices: true })("compressed answers", (it) => {
  describe("assets", () => {
    it.effect("in brotli or gzip as accepted, the same bytes once decoded, each coding with its length and entity tag", () =>
      Effect.gen(function*() {
        const client = yield* admin
        const page = yield* client.get("/app/events")
        for (const path of assetPaths(page.html)) {
          const plain = yield* raw(path)
          expect(plain.status).toBe(200)
          expect(plain.headers.get("content-encoding")).toBeNull()
          expect(plain.headers.get("vary")).toBe("Accept-Encoding")
          expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
          expect(plain.headers.get("content-length")).toBe(String(plain.body.length))
          const etags = new Set([plain.headers.get("etag")])
          for (const [accept, coding] of [["gzip, deflate, br", "br"], ["br", "br"], ["gzip", "gzip"], ["br;q=0, gzip", "gzip"], ["identity", null]] as const) {
            const reply = yield* raw(path, { "accept-encoding": accept })
            expect(reply.status).toBe(200)
            expect(reply.headers.get("content-encoding"), accept).toBe(coding)
            expect(reply.headers.get("content-type")).toBe(plain.headers.get("content-type"))
            expect(reply.headers.get("content-length")).toBe(String(reply.body.length))
            expect(reply.headers.get("vary")).toBe("Accept-Encoding")
            expect(reply.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
            expect(decoded(reply).equals(plain.body), `${path} in ${accept}`).toBe(true)
            if (coding !== null) expect(reply.body.length).toBeLessThan(plain.body.length)
            etags.add(reply.headers.get("etag"))
          }
          // one entity tag for each coding: identity, br, gzip
          expect(etags.size).toBe(3)
        }
      }))

    it.effect("a revalidation gets 304 for the coding it holds; HEAD gets the headers of GET", () =>
      Effect.gen(function*() {
        const client = yield* admin
        const [css] = assetPaths((yield* client.get("/app/events")).html)
        const br = yield* raw(css!, { "accept-encoding": "br" })
        const again = yield* raw(css!, { "accept-encoding": "br", "if-none-match": br.headers.get("etag")! })
        expect(again.status).toBe(304)
        expect(again.body.length).toBe(0)
        expect(again.headers.get("etag")).toBe(br.headers.get("etag"))
        expect(again.headers.get("vary")).toBe("Accept-Encoding")
        // the brotli version's tag does not match what a gzip request would get
        expect((yield* raw(css!, { "accept-encoding": "gzip", "if-none-match": br.headers.get("etag")! })).status).toBe(200)
        const head = yield* raw(css!, { "accept-encoding": "br" }, "HEAD")
        expect(head.status).toBe(200)
        expect(head.body.length).toBe(0)
        for (const name of ["content-encoding", "content-length", "etag", "vary", "content-type"]) {
          expect(head.headers.get(name), name).toBe(br.headers.get(name))
        }
      }))
  })

  it.effect("the API reference's script and stylesheet go out compressed as accepted, the fonts as they are", () =>
    Effect.gen(function*() {
      const docs = yield* raw("/docs", { "accept-encoding": "br" })
      expect(docs.headers.get("content-encoding")).toBe("br")
      const html = decoded(docs).toString()
      const script = /src="[^"]*(\/docs\/assets\/scalar\.[\w-]+\.js)"/.exec(html)?.[1]
      const fonts = /href="[^"]*(\/docs\/assets\/fonts\.[\w-]+\.css)"/.exec(html)?.[1]
      expect(script).toBeDefined()
      expect(fonts).toBeDefined()
      for (const path of [script!, fonts!]) {
        const plain = yield* raw(path)
        expect(plain.headers.get("content-encoding")).toBeNull()
        expect(plain.headers.get("vary")).toBe("Accept-Encoding")
        for (const coding of ["br", "gzip"]) {
          const reply = yield* raw(path, { "accept-encoding": coding })
          expect(reply.headers.get("content-encoding")).toBe(coding)
          expect(reply.headers.get("content-length")).toBe(String(reply.body.length))
          expect(reply.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
          expect(reply.body.length).toBeLessThan(plain.body.length / 2)
          expect(decoded(reply).equals(plain.body), `${path} in ${coding}`).toBe(true)
        }
      }
      const font = /url\(([\w.-]+\.woff2)\)/.exec((yield* raw(fonts!)).body.toString())?.[1]
      const woff2 = yield* raw(`/docs/assets/${font}`, { "accept-encoding": "br" })
      expect(woff2.status).toBe(200)
      expect(woff2.headers.get("content-encoding")).toBeNull()
    }))

  describe("pages", () => {
    it.effect("a dashboard page goes out in brotli or gzip as accepted, and as it is without Accept-Encoding", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const client = yield* admin
        yield* createEvent(server, { name: "Compressed evening", primaryDate: daysFromNow(10) })
        const plain = yield* raw("/app/events", cookieOf(client))
        expect(plain.status).toBe(200)
        expect(plain.headers.get("content-encoding")).toBeNull()
        expect(plain.headers.get("vary")).toBe("Accept-Encoding")
        expect(plain.body.toString()).toContain("Compressed evening")
        for (const [accept, coding] of [["gzip, deflate, br, zstd", "br"], ["gzip, deflate", "gzip"], ["br;q=0.5, gzip", "gzip"]] as const) {
          const reply = yield* raw("/app/events", { ...cookieOf(client), "accept-encoding": accept })
          expect(reply.status).toBe(200)
          expect(reply.headers.get("content-encoding"), accept).toBe(coding)
          expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8")
          expect(reply.headers.get("content-length")).toBe(String(reply.body.length))
          expect(reply.headers.get("vary")).toBe("Accept-Encoding")
          expect(reply.headers.get("content-security-policy")).toBe(plain.headers.get("content-security-policy"))
          expect(reply.body.length).toBeLessThan(plain.body.length / 2)
          const text = decoded(reply).toString()
          expect(text).toMatch(/^<!doctype html>/)
          expect(text).toContain("Compressed evening")
        }
      }))

    it.effect("the API's JSON, streamed answers and redirects stay as they are", () =>
      Effect.gen(function*() {
        const server = yield* TestServer
        const { eventId } = yield* createEvent(server, { name: "Plain JSON", primaryDate: daysFromNow(11) })
        const accept = { "accept-encoding": "gzip, deflate, br" }
        const json = yield* server.request("GET", `/event/${eventId}`, { headers: accept })
        expect(json.status).toBe(200)
        expect(json.headers.get("content-encoding")).toBeNull()
        const streamed = yield* server.request("GET", `/event/${eventId}/guestlist`, { headers: accept })
        expect(streamed.status).toBe(200)
        expect(streamed.headers.get("content-encoding")).toBeNull()
        const redirect = yield* raw("/app", accept)
        expect(redirect.status).toBe(303)
        expect(redirect.headers.get("content-encoding")).toBeNull()
      }))
  })
})
