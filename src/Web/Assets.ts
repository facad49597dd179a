/**
 * The dashboard's own static files (one stylesheet, small script modules), served from
 * `/app/assets/` under names that carry a hash of their content, so browsers may keep them
 * forever and a new version is a new name. Everything is same-origin: the image runs offline.
 */
import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { extname } from "node:path"
import { ASSETS_FOLDER } from "../Paths.js"

const TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml"
}

export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
}

export class Assets extends Effect.Service<Assets>()("Convene/Assets", {
  effect: Effect.sync(() => {
    // src/Web/assets when run from source, dist/src/Web/assets once built (Paths.ts)
    const folder = ASSETS_FOLDER
    const byHashedName = new Map<string, Asset>()
    const hashedName = new Map<string, string>()
    for (const name of readdirSync(folder)) {
      const type = TYPES[extname(name)]
      if (type === undefined) continue
      const body = readFileSync(new URL(name, folder))
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
