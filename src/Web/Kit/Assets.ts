/**
 * The dashboard's own static files (one stylesheet, small script modules), served from
 * `/app/assets/` under names that carry a hash of their content, so browsers may keep them
 * forever and a new version is a new name. Everything is same-origin: the image runs offline.
 *
 * The stylesheet is written in parts, one for each area of the dashboard (`assets/app/10-events.css`...),
 * and served as one file: a folder `<name>/` of `.css` files is the asset `<name>.css`, its files
 * joined in the order of their names. A page loads one stylesheet, as before it was cut in parts.
 * Every file of the folder of a known type is an asset (AssetFiles.ts): a new one needs no code.
 *
 * Compressed once: each compressible asset goes out in brotli or gzip when the request accepts it
 * (Http/AcceptEncoding.ts), made by the build (`<hashed name>.br`, `.gz` beside it in `dist/`,
 * read here at start). Run from source (the tests, `tsx`), where there are none, an asset is
 * compressed the first time a request asks for that coding, and kept: start-up pays nothing for it.
 */
import * as Effect from "effect/Effect"
import { type Chosen, type Coding, preferredCoding } from "../../Http/AcceptEncoding.js"
import { ASSETS_FOLDER } from "../../Paths.js"
import { type AssetFile, assetFiles, CODINGS, encode, readEncoded } from "./AssetFiles.js"

/** An asset as one request gets it: in the coding its `Accept-Encoding` allows. */
export interface AssetAnswer {
  readonly body: Uint8Array
  readonly contentType: string
  readonly coding: Chosen
  /** Differs for each coding, as the bytes do. */
  readonly etag: string
  /** Whether the answer depends on `Accept-Encoding` (`Vary`): the asset is offered compressed. */
  readonly varies: boolean
}

/** An asset and its compressed forms, each made or read once. */
const servedAsset = (folder: URL, asset: AssetFile) => {
  const encoded = new Map<Coding, Buffer | null>()
  for (const coding of CODINGS) {
    const built = asset.compressible ? readEncoded(folder, asset, coding) : undefined
    if (built !== undefined) encoded.set(coding, built)
  }
  /** The asset in `coding`, or null when that would not make it smaller. */
  const inCoding = (coding: Coding): Buffer | null => {
    let body = encoded.get(coding)
    if (body === undefined) {
      const made = encode(coding, asset.body)
      body = made.length < asset.body.length ? made : null
      encoded.set(coding, body)
    }
    return body
  }
  const offered = asset.compressible ? CODINGS : []
  const identity: AssetAnswer = {
    body: asset.body,
    contentType: asset.contentType,
    coding: "identity",
    etag: `"${asset.hash}"`,
    varies: offered.length > 0
  }
  return (acceptEncoding: string | undefined): AssetAnswer => {
    const coding = preferredCoding(acceptEncoding, offered)
    if (coding === "identity") return identity
    const body = inCoding(coding)
    return body === null ? identity : { ...identity, body, coding, etag: `"${asset.hash}-${coding}"` }
  }
}

/** The assets of `folder` (the service's is ASSETS_FOLDER). */
export const loadAssets = (folder: URL) => {
  const byHashedName = new Map<string, (acceptEncoding: string | undefined) => AssetAnswer>()
  const hashedName = new Map<string, string>()
  for (const asset of assetFiles(folder)) {
    byHashedName.set(asset.hashed, servedAsset(folder, asset))
    hashedName.set(asset.name, asset.hashed)
  }
  return {
    /** The served file name of an asset (`app.css` → `app.Q1w2E3r4T5.css`). */
    nameOf: (name: string): string => {
      const hashed = hashedName.get(name)
      if (hashed === undefined) throw new Error(`unknown asset ${name}`)
      return hashed
    },
    /** The asset of a served name, in the best coding `acceptEncoding` allows; undefined when there is no such asset. */
    get: (hashed: string, acceptEncoding?: string): AssetAnswer | undefined => byHashedName.get(hashed)?.(acceptEncoding)
  } as const
}

export class Assets extends Effect.Service<Assets>()("Convene/Assets", {
  // src/Web/Kit/assets when run from source, dist/src/Web/Kit/assets once built (Paths.ts)
  effect: Effect.sync(() => loadAssets(ASSETS_FOLDER))
}) {}
