/**
 * The dashboard's static files as served (Assets.ts), and their compressed forms: the one place
 * that says which file of the assets folder is which asset under which hashed name, for the service
 * and for the build alike. `npm run build` (scripts/build.mjs) bundles this module and calls
 * `writeEncoded` on `dist/src/Web/Kit/assets/`: every compressible asset gets `<hashed name>.br`
 * (brotli at its highest quality) and `<hashed name>.gz` (gzip level 9) beside it, made once, so
 * the service only reads them. Named by the hash of what they compress, a compressed file can never
 * be served for another version of its asset.
 *
 * It imports nothing but Node's own modules: the build runs it before any of the service exists.
 */
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { extname } from "node:path"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import type { Coding } from "../../Http/AcceptEncoding.js"

/** The content type of each kind of asset, and whether compressing it pays (not for formats compressed already). */
const TYPES: Readonly<Record<string, { readonly type: string; readonly compress: boolean }>> = {
  ".css": { type: "text/css; charset=utf-8", compress: true },
  ".js": { type: "text/javascript; charset=utf-8", compress: true },
  ".mjs": { type: "text/javascript; charset=utf-8", compress: true },
  ".json": { type: "application/json", compress: true },
  ".webmanifest": { type: "application/manifest+json", compress: true },
  ".svg": { type: "image/svg+xml", compress: true },
  ".wasm": { type: "application/wasm", compress: true },
  ".png": { type: "image/png", compress: false },
  ".woff2": { type: "font/woff2", compress: false }
}

/** The codings assets are offered in, in the order of preference, with their files' suffixes. */
export const CODINGS: ReadonlyArray<Coding> = ["br", "gzip"]
export const SUFFIX: Readonly<Record<Coding, string>> = { br: ".br", gzip: ".gz" }

export interface AssetFile {
  /** As pages name it (`app.css`). */
  readonly name: string
  /** As it is served, with a hash of its content (`app.Q1w2E3r4T5.css`). */
  readonly hashed: string
  /** The hash in the name, also the asset's entity tag. */
  readonly hash: string
  readonly body: Buffer
  readonly contentType: string
  readonly compressible: boolean
}

/**
 * The assets of a folder: each file of a known type, and each sub-folder `<name>/` of `.css` parts
 * as the one asset `<name>.css`, its parts joined in the order of their names. Compressed files
 * beside them (`.br`, `.gz`) are not assets.
 */
export const assetFiles = (folder: URL): ReadonlyArray<AssetFile> =>
  readdirSync(folder).flatMap((entry) => {
    const path = new URL(entry, folder)
    const isFolder = statSync(path).isDirectory()
    const name = isFolder ? `${entry}.css` : entry
    const kind = TYPES[extname(name)]
    if (kind === undefined) return []
    const body = isFolder
      ? Buffer.concat(readdirSync(path).filter((part) => extname(part) === ".css").sort().map((part) => readFileSync(new URL(`${entry}/${part}`, folder))))
      : readFileSync(path)
    const hash = createHash("sha256").update(body).digest("base64url").slice(0, 10)
    const hashed = name.replace(/(\.[a-z0-9]+)$/, `.${hash}$1`)
    return [{ name, hashed, hash, body, contentType: kind.type, compressible: kind.compress }]
  })

/** `body` in `coding`, as small as the coding makes it (what the build writes; slow: once per asset). */
export const encode = (coding: Coding, body: Uint8Array): Buffer =>
  coding === "br"
    ? brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length
      }
    })
    : gzipSync(body, { level: constants.Z_BEST_COMPRESSION })

/** Where the compressed form of an asset is, beside it. */
export const encodedFile = (folder: URL, asset: AssetFile, coding: Coding): URL => new URL(`${asset.hashed}${SUFFIX[coding]}`, folder)

/** The compressed form of an asset written beside it, if there is one (the build's). */
export const readEncoded = (folder: URL, asset: AssetFile, coding: Coding): Buffer | undefined => {
  const file = encodedFile(folder, asset, coding)
  return existsSync(file) ? readFileSync(file) : undefined
}

/**
 * Writes the compressed forms of every compressible asset of `folder` beside it, those smaller than
 * the asset itself (what would not be is left out, and the asset is served as it is). Returns what
 * it wrote, for the build to say.
 */
export const writeEncoded = (folder: URL): ReadonlyArray<{ readonly file: string; readonly bytes: number; readonly of: number }> =>
  assetFiles(folder).flatMap((asset) =>
    asset.compressible
      ? CODINGS.flatMap((coding) => {
        const encoded = encode(coding, asset.body)
        if (encoded.length >= asset.body.length) return []
        const file = encodedFile(folder, asset, coding)
        writeFileSync(file, encoded)
        return [{ file: `${asset.hashed}${SUFFIX[coding]}`, bytes: encoded.length, of: asset.body.length }]
      })
      : []
  )
