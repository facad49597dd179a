/**
 * `/docs`: Scalar's API reference of the same definition the server runs, working offline
 * (CONTRACT §1): the page, its script and its fonts all come from Convene (DocsAssets.ts), and its
 * Content-Security-Policy lets it load nothing from anywhere else. Scalar's links to its own cloud
 * are turned off: the developer toolbar ("Share", "Generate SDKs"), the button to its web client,
 * the telemetry of its API client, its web fonts. The script is 3.4 MB, so it is read on the first visit rather than at
 * start: a service nobody reads the docs of does not carry it in memory. The API's description
 * (src/Api.ts) links to the integrator's guide beside it, `/docs/guide` (Guide.ts).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { preferredCoding } from "../Http/AcceptEncoding.js"
import { PublicOrigin } from "../Runtime/PublicOrigin.js"
import { CODINGS } from "../Web/Kit/AssetFiles.js"
import { Assets } from "../Web/Kit/Assets.js"
import { type DocsAssets, loadDocsAssets } from "./DocsAssets.js"

/**
 * Scalar's options (`@scalar/api-reference` 1.39, the version `@effect/platform` bundles; more
 * than `HttpApiScalar.ScalarConfig` declares).
 */
const SCALAR_CONFIGURATION = {
  _integration: "html",
  // the toolbar of "Developer Tools", "Share" (to Scalar's registry) and "Generate SDKs"
  showToolbar: "never",
  // "Open API Client": Scalar's web client (client.scalar.com), handed the document's address
  hideClientButton: true,
  // the API client's usage reports to Scalar
  telemetry: false,
  // fonts.scalar.com: the same fonts come from DocsAssets' stylesheet instead
  withDefaultFonts: false
}

/**
 * The page's headers. Scripts and styles from Convene only; Scalar sets styles from its script
 * (style elements and attributes), which `'unsafe-inline'` for styles allows: scripts stay without
 * it. `connect-src 'self'`: the reference's "Test Request" reaches this server only.
 */
export const DOCS_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'"
  ].join("; "),
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "no-cache"
}

const escapeAttribute = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;")

interface Links {
  readonly href: (path: string) => string
  /** The dashboard's icon. */
  readonly icon: string
}

const page = (spec: OpenApi.OpenAPISpec, assets: DocsAssets, { href, icon }: Links) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>${escapeAttribute(spec.info.title)}</title>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" type="image/svg+xml" href="${escapeAttribute(icon)}">
    <link rel="stylesheet" href="${escapeAttribute(href(`/docs/assets/${assets.fonts}`))}">
  </head>
  <body>
    <script id="api-reference" type="application/json" data-configuration="${escapeAttribute(JSON.stringify(SCALAR_CONFIGURATION))}">${
  // data, never run: only a `<` could end the element early
  JSON.stringify(spec).replace(/</g, "\\u003c")}</script>
    <script src="${escapeAttribute(href(`/docs/assets/${assets.script}`))}"></script>
  </body>
</html>
`

export const DocsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { api } = yield* HttpApi.Api
    const { href } = yield* PublicOrigin
    const icon = href(`/app/assets/${(yield* Assets).nameOf("favicon.svg")}`)
    const assets = yield* Effect.cached(loadDocsAssets)
    const docs = yield* Effect.cached(Effect.map(assets, (loaded) =>
      HttpServerResponse.html(page(OpenApi.fromApi(api), loaded, { href, icon })).pipe(HttpServerResponse.setHeaders(DOCS_HEADERS))))
    yield* router.get("/docs", docs)
    yield* router.get(
      "/docs/assets/:name",
      Effect.gen(function*() {
        const { name } = yield* HttpRouter.params
        const asset = name === undefined ? undefined : (yield* assets).byName.get(name)
        if (asset === undefined) return HttpServerResponse.text("Not found", { status: 404, headers: { "x-content-type-options": "nosniff" } })
        const headers = { "cache-control": "public, max-age=31536000, immutable", "x-content-type-options": "nosniff" }
        if (asset.inCoding === undefined) return HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType, headers })
        const request = yield* HttpServerRequest.HttpServerRequest
        const coding = preferredCoding(request.headers["accept-encoding"], CODINGS)
        const encoded = coding === "identity" ? undefined : yield* asset.inCoding(coding)
        return HttpServerResponse.uint8Array(encoded ?? asset.body, {
          contentType: asset.contentType,
          headers: { ...headers, vary: "Accept-Encoding", ...(encoded === undefined ? {} : { "content-encoding": coding }) }
        })
      })
    )
  })
).pipe(Layer.provide(Assets.Default))

/**
 * `/openapi.json`: the OpenAPI document of the same definition, as `HttpApiBuilder.middlewareOpenApi`
 * serves it, but made on its first request instead of at start (walking every schema of the API
 * costs about a tenth of a second, which start-up need not wait for: bench/RESULTS.md, issue 18).
 */
export const OpenApiLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const { api } = yield* HttpApi.Api
    const document = yield* Effect.cached(
      Effect.suspend(() => HttpServerResponse.json(OpenApi.fromApi(api))).pipe(Effect.orDie)
    )
    yield* router.get("/openapi.json", document)
  })
)
