/**
 * The build's compressed assets (scripts/build.mjs, src/Web/Kit/AssetFiles.ts): `npm run build`
 * writes `<hashed name>.br` and `.gz` beside each compressible asset in dist/, and the built service
 * serves those very bytes (compressed once, never per request); its pages reach a real client
 * (Node's fetch, which asks for and decodes compressed answers) compressed and readable.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { request } from "node:http"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { brotliDecompressSync } from "node:zlib"
import { startServer } from "../support/Process.js"
import { temporaryDirectory } from "../support/TestServer.js"

const BUILT_ASSETS = fileURLToPath(new URL("../../dist/src/Web/Kit/assets/", import.meta.url))

/** A GET as it comes off the wire (no decoding). */
const raw = (url: string, headers: Record<string, string>) =>
  Effect.async<{ status: number; headers: Record<string, string | Array<string> | undefined>; body: Buffer }>((resume) => {
    const outgoing = request(url, { headers }, (incoming) => {
      const chunks: Array<Buffer> = []
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
      incoming.on("end", () => resume(Effect.succeed({ status: incoming.statusCode!, headers: incoming.headers, body: Buffer.concat(chunks) })))
    })
    outgoing.on("error", (error) => resume(Effect.die(error)))
    outgoing.end()
  })

describe("the build's compressed assets", () => {
  it.scopedLive("are written beside the assets and served as they are; pages reach a browser-like client compressed", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const server = yield* startServer({ DATABASE_PATH: join(dir, "convene.db"), BOOTSTRAP_ORG_SLUG: "acme", BOOTSTRAP_ORG_NAME: "Acme" })

      const page = yield* raw(`${server.url}/app/login`, { "accept-encoding": "gzip, deflate, br" })
      expect(page.status).toBe(200)
      expect(page.headers["content-encoding"]).toBe("br")
      const html = brotliDecompressSync(page.body).toString()
      const paths = [...html.matchAll(/(?:href|src)="[^"]*\/app\/assets\/([\w.-]+\.(?:css|js))"/g)].map((m) => m[1]!)
      expect(paths.some((name) => name.endsWith(".css"))).toBe(true)
      expect(paths.some((name) => name.endsWith(".js"))).toBe(true)

      for (const name of paths) {
        for (const [coding, suffix] of [["br", ".br"], ["gzip", ".gz"]] as const) {
          const file = join(BUILT_ASSETS, `${name}${suffix}`)
          expect(existsSync(file), file).toBe(true)
          const reply = yield* raw(`${server.url}/app/assets/${name}`, { "accept-encoding": coding })
          expect(reply.status).toBe(200)
          expect(reply.headers["content-encoding"]).toBe(coding)
          expect(reply.body.equals(readFileSync(file)), `${name} in ${coding} is the build's file`).toBe(true)
        }
      }

      // Node's fetch asks for compressed answers and decodes them, as browsers do
      const fetched = yield* Effect.promise(() => fetch(`${server.url}/app/login`))
      expect(fetched.headers.get("content-encoding")).not.toBeNull()
      const text = yield* Effect.promise(() => fetched.text())
      expect(text).toMatch(/^<!doctype html>/)
      for (const name of paths) expect(text).toContain(`/app/assets/${name}`)
    }))
})
