/**
 * What the `/docs` page loads besides itself, all from Convene (CONTRACT §1: the page works
 * offline): Scalar's API reference script, and the two fonts its theme names, Inter and JetBrains
 * Mono, with a stylesheet of their `@font-face` rules. Each is served from `/docs/assets/` under a
 * name that carries a hash of its content, so browsers keep it for good.
 *
 * - The script is the Scalar bundle that `@effect/platform` ships (HttpApiScalar, 3.4 MB): its
 *   page inlines the bundle, which a Content-Security-Policy without `'unsafe-inline'` would block,
 *   and sends it again on every visit. The bundle is taken out of that page, once, and served as
 *   a file of its own.
 * - The fonts are the variable fonts of `@fontsource-variable/inter` and `…/jetbrains-mono` (SIL
 *   Open Font License), under the family names the theme asks for; each subset carries its
 *   `unicode-range`, so a browser fetches only the subsets a page needs.
 *
 * The script and the stylesheet go out compressed when the request accepts it, each coding made
 * once (Docs.ts), as the dashboard's assets are.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { brotliCompress, constants, gzip } from "node:zlib"
import type { Coding } from "../Http/AcceptEncoding.js"
import { packageFile } from "../Paths.js"

export interface DocsAsset {
  readonly body: Uint8Array
  readonly contentType: string
  /**
   * The asset in a coding (the script and the stylesheet; the fonts are compressed already):
   * made once, on the first request for it, off the event loop (Node's zlib pool); undefined when
   * that would not make it smaller.
   */
  readonly inCoding?: (coding: Coding) => Effect.Effect<Uint8Array | undefined>
}

export interface DocsAssets {
  /** The served name of the script (`scalar.<hash>.js`) and of the fonts' stylesheet. */
  readonly script: string
  readonly fonts: string
  readonly byName: ReadonlyMap<string, DocsAsset>
}

/** The fonts of the theme: the family it names, and the package of its variable font. */
const FONTS = [
  { family: "Inter", css: "@fontsource-variable/inter/wght.css", packageFamily: "Inter Variable" },
  { family: "JetBrains Mono", css: "@fontsource-variable/jetbrains-mono/wght.css", packageFamily: "JetBrains Mono Variable" }
] as const

const hashedName = (name: string, body: Uint8Array) =>
  name.replace(/(\.[a-z0-9]+)$/, `.${createHash("sha256").update(body).digest("base64url").slice(0, 10)}$1`)

/** The Scalar bundle, out of the page `HttpApiScalar.layer` renders (for an empty API: only the script is wanted). */
const scalarBundle = Effect.gen(function*() {
  const { layer } = yield* Effect.promise(() => import("@effect/platform/HttpApiScalar"))
  const scope = yield* Scope.make()
  const context = yield* Layer.buildWithScope(
    layer({ path: "/docs" }).pipe(
      Layer.provideMerge(HttpApiBuilder.Router.Live),
      Layer.provide(Layer.succeed(HttpApi.Api, { api: HttpApi.make("scalar") as unknown as HttpApi.Api["Type"]["api"], context: Context.empty() }))
    ),
    scope
  )
  const router = yield* Effect.provide(HttpApiBuilder.Router.router, context)
  const response = yield* router.pipe(
    Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(new Request("http://localhost/docs")))
  )
  yield* Scope.close(scope, Exit.void)
  const page = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""
  // the page ends with the bundle, inline: `<script>…</script></body>`
  const start = page.lastIndexOf("<script>")
  const end = page.lastIndexOf("</script>")
  if (start < 0 || end < start || page.length - end > 100) return yield* Effect.dieMessage("the Scalar page has no inline bundle at its end")
  return page.slice(start + "<script>".length, end)
}).pipe(Effect.orDie)

/** The `@font-face` rules of every font, each file renamed to its served name, and those files. */
const fontFiles = () => {
  const files = new Map<string, DocsAsset>()
  const rules = FONTS.map(({ css, family, packageFamily }) => {
    const path = packageFile(css)
    return readFileSync(path, "utf8")
      .replaceAll(`'${packageFamily}'`, `'${family}'`)
      .replace(/url\(\.\/files\/([\w.-]+\.woff2)\)/g, (_, file: string) => {
        const body = readFileSync(join(dirname(path), "files", file))
        const served = hashedName(file, body)
        files.set(served, { body, contentType: "font/woff2" })
        return `url(${served})`
      })
  })
  return { css: rules.join("\n"), files }
}

/**
 * `body` in `coding`, in Node's zlib pool, once each: brotli 6, gzip 9 (the script's 3,221 KB:
 * 792 KB in 0.13 s of CPU, 876 KB in 0.07 s; brotli 9 would save 16 KB more for 0.38 s, brotli 11
 * 89 KB for 5 s, which the first reader of the docs would wait for).
 */
const compressed = (coding: Coding, body: Uint8Array) =>
  Effect.async<Uint8Array | undefined>((resume) => {
    const done = (error: Error | null, result: Buffer) =>
      resume(error === null ? Effect.succeed(result.length < body.length ? result : undefined) : Effect.die(error))
    if (coding === "gzip") return gzip(body, { level: constants.Z_BEST_COMPRESSION }, done)
    brotliCompress(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 6,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length
      }
    }, done)
  })

/** A text asset whose compressed forms are made on the first request for each, and kept. */
const compressible = (body: Uint8Array, contentType: string) =>
  Effect.gen(function*() {
    const br = yield* Effect.cached(compressed("br", body))
    const gzipped = yield* Effect.cached(compressed("gzip", body))
    return { body, contentType, inCoding: (coding: Coding) => (coding === "br" ? br : gzipped) } satisfies DocsAsset
  })

/** Every asset, read once (the script's 3.4 MB only when the docs are first read: Docs.ts). */
export const loadDocsAssets = Effect.gen(function*() {
  const script = new TextEncoder().encode(yield* scalarBundle)
  const { css, files } = fontFiles()
  const fonts = new TextEncoder().encode(css)
  const scriptName = hashedName("scalar.js", script)
  const fontsName = hashedName("fonts.css", fonts)
  const byName = new Map<string, DocsAsset>([
    [scriptName, yield* compressible(script, "text/javascript; charset=utf-8")],
    [fontsName, yield* compressible(fonts, "text/css; charset=utf-8")],
    ...files
  ])
  return { script: scriptName, fonts: fontsName, byName } satisfies DocsAssets
})
