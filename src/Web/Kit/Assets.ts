/**
 * The dashboard's own static files (one stylesheet, small script modules), served from
 * `/app/assets/` under names that carry a hash of their content, so browsers may keep them
 * forever and a new version is a new name. Everything is same-origin: the image runs offline.
 *
 * The stylesheet is written in parts, one for each area of the dashboard (`assets/app/10-events.css`...),
 * and served as one file: a folder `<name>/` of `.css` files is the asset `<name>.css`, its files
 * joined in the order of their names. A page loads one stylesheet, as before it was cut in parts.
 */
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { extname } from "node:path"
import { ASSETS_FOLDER } from "../../Paths.js"

const TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml"
}

export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
}

/** The files of the assets folder by their served names (before hashing): a folder of stylesheet parts as one. */
const filesOf = (folder: URL): ReadonlyArray<{ readonly name: string; readonly body: Buffer }> =>
  readdirSync(folder).flatMap((name) => {
    const path = new URL(name, folder)
    if (!statSync(path).isDirectory()) return [{ name, body: readFileSync(path) }]
    const parts = readdirSync(path).filter((part) => extname(part) === ".css").sort()
    return [{ name: `${name}.css`, body: Buffer.concat(parts.map((part) => readFileSync(new URL(`${name}/${part}`, folder)))) }]
  })

export class Assets extends Effect.Service<Assets>()("Convene/Assets", {
  effect: Effect.sync(() => {
    // src/Web/Kit/assets when run from source, dist/src/Web/Kit/assets once built (Paths.ts)
    const byHashedName = new Map<string, Asset>()
    const hashedName = new Map<string, string>()
    for (const { body, name } of filesOf(ASSETS_FOLDER)) {
      const type = TYPES[extname(name)]
      if (type === undefined) continue
      const hash = createHash("sha256").update(body).digest("base64url").slice(0, 10)
      const hashed = name.replace(/(\.[a-z]+)$/, `.${hash}$1`)
      byHashedName.set(hashed, { body, contentType: type })
      hashedName.set(name, hashed)
    }
    return {
      /** The served file name of an asset (`app.css` → `app.Q1w2E3r4T5.css`). */
      nameOf: (name: string): string => {
        const hashed = hashedName.get(name)
        if (hashed === undefined) throw new Error(`unknown asset ${name}`)
        return hashed
      },
      get: (hashed: string): Asset | undefined => byHashedName.get(hashed)
    } as const
  })
}) {}
