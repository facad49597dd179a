/**
 * Compressed answers, alone: the choice of a content coding from `Accept-Encoding`
 * (src/Http/AcceptEncoding.ts: q-values, `identity`, `*`, refusals), which page is compressed and
 * how (src/Http/PageCompression.ts), and the assets' compressed forms as the build writes them and
 * the service reads them (src/Web/Kit/AssetFiles.ts, Assets.ts).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync } from "node:zlib"
import { preferredCoding, varyOnEncoding } from "../../src/Http/AcceptEncoding.js"
import { compressPage, MIN_BYTES } from "../../src/Http/PageCompression.js"
import { assetFiles, writeEncoded } from "../../src/Web/Kit/AssetFiles.js"
import { loadAssets } from "../../src/Web/Kit/Assets.js"

const BOTH = ["br", "gzip"] as const

describe("Accept-Encoding", () => {
  it("without the header, or with an empty one, nothing is encoded", () => {
    expect(preferredCoding(undefined, BOTH)).toBe("identity")
    expect(preferredCoding("", BOTH)).toBe("identity")
    expect(preferredCoding("  ,  ", BOTH)).toBe("identity")
  })

  it("picks the server's preference among codings of equal weight: brotli, then gzip", () => {
    expect(preferredCoding("gzip, deflate, br, zstd", BOTH)).toBe("br")
    expect(preferredCoding("gzip, deflate", BOTH)).toBe("gzip")
    expect(preferredCoding("GZIP", BOTH)).toBe("gzip")
    expect(preferredCoding("x-gzip", BOTH)).toBe("gzip")
    expect(preferredCoding("deflate, zstd", BOTH)).toBe("identity")
    expect(preferredCoding("br", ["gzip"])).toBe("identity")
    expect(preferredCoding("br, gzip", [])).toBe("identity")
  })

  it("honours q-values: the highest wins, q=0 refuses", () => {
    expect(preferredCoding("br;q=0.5, gzip;q=0.8", BOTH)).toBe("gzip")
    expect(preferredCoding("br; q=1.0, gzip;q=0.999", BOTH)).toBe("br")
    expect(preferredCoding("gzip, br;q=0", BOTH)).toBe("gzip")
    expect(preferredCoding("br;q=0", BOTH)).toBe("identity")
    expect(preferredCoding("br;q=0, gzip;q=0", BOTH)).toBe("identity")
    expect(preferredCoding("gzip;q=0.000", BOTH)).toBe("identity")
    // a coding named twice keeps its higher weight
    expect(preferredCoding("gzip;q=0, br;q=0.1, gzip;q=0.5", BOTH)).toBe("gzip")
  })

  it("leaves out entries whose q-value is malformed", () => {
    expect(preferredCoding("br;q=2, gzip", BOTH)).toBe("gzip")
    expect(preferredCoding("br;q=abc, gzip;q=0.1", BOTH)).toBe("gzip")
    expect(preferredCoding("br;q=0.5555", BOTH)).toBe("identity")
    expect(preferredCoding("br;q=", BOTH)).toBe("identity")
  })

  it("reads * as every coding not named, and its q=0 as refusing them", () => {
    expect(preferredCoding("*", BOTH)).toBe("br")
    expect(preferredCoding("br;q=0, *", BOTH)).toBe("gzip")
    expect(preferredCoding("*;q=0", BOTH)).toBe("identity")
    expect(preferredCoding("gzip, *;q=0", BOTH)).toBe("gzip")
    expect(preferredCoding("br;q=0.2, *;q=0.5", BOTH)).toBe("gzip")
  })

  it("answers identity when identity itself weighs more than every coding offered, and never refuses to answer", () => {
    expect(preferredCoding("identity", BOTH)).toBe("identity")
    expect(preferredCoding("identity, gzip", BOTH)).toBe("gzip")
    expect(preferredCoding("identity;q=1, gzip;q=0.5", BOTH)).toBe("identity")
    expect(preferredCoding("identity;q=0.1, gzip;q=0.5", BOTH)).toBe("gzip")
    // nothing acceptable, identity refused too: sent as it is (RFC 9110 §12.5.3)
    expect(preferredCoding("identity;q=0, *;q=0", BOTH)).toBe("identity")
    expect(preferredCoding("identity;q=0, deflate", BOTH)).toBe("identity")
  })

  it("adds Accept-Encoding to Vary once", () => {
    expect(varyOnEncoding(undefined)).toBe("Accept-Encoding")
    expect(varyOnEncoding("")).toBe("Accept-Encoding")
    expect(varyOnEncoding("Origin")).toBe("Origin, Accept-Encoding")
    expect(varyOnEncoding("origin, accept-encoding")).toBe("origin, accept-encoding")
    expect(varyOnEncoding("*")).toBe("*")
  })
})

describe("compressed pages", () => {
  const requestWith = (headers: Record<string, string>) =>
    HttpServerRequest.fromWeb(new Request("http://convene.test/app/events", { headers }))
  const page = `<!doctype html><html><body>${"<p>A guest, Accepted</p>".repeat(200)}</body></html>`
  const html = (text: string) => HttpServerResponse.text(text, { contentType: "text/html; charset=utf-8" })
  const bodyOf = (response: HttpServerResponse.HttpServerResponse) => {
    if (response.body._tag !== "Uint8Array") throw new Error(`a ${response.body._tag} body`)
    return Buffer.from(response.body.body)
  }

  it("a page goes out in brotli or gzip as the request accepts, its length and Vary set", () => {
    const br = compressPage(requestWith({ "accept-encoding": "gzip, deflate, br" }), html(page))
    expect(br.headers["content-encoding"]).toBe("br")
    expect(br.headers["vary"]).toBe("Accept-Encoding")
    expect(br.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(br.headers["content-length"]).toBe(String(bodyOf(br).length))
    expect(bodyOf(br).length).toBeLessThan(page.length / 10)
    expect(brotliDecompressSync(bodyOf(br)).toString()).toBe(page)

    const gzip = compressPage(requestWith({ "accept-encoding": "gzip" }), html(page))
    expect(gzip.headers["content-encoding"]).toBe("gzip")
    expect(gunzipSync(bodyOf(gzip)).toString()).toBe(page)
  })

  it("without Accept-Encoding a page goes out as it is, with Vary", () => {
    const plain = compressPage(requestWith({}), html(page))
    expect(plain.headers["content-encoding"]).toBeUndefined()
    expect(plain.headers["vary"]).toBe("Accept-Encoding")
    expect(bodyOf(plain).toString()).toBe(page)
  })

  it("leaves alone small pages, JSON, streams, empty answers and what is encoded already", () => {
    const accepts = requestWith({ "accept-encoding": "br, gzip" })
    const small = html("<!doctype html><p>Hi</p>".padEnd(MIN_BYTES - 1, " "))
    expect(compressPage(accepts, small)).toBe(small)
    const json = HttpServerResponse.text(JSON.stringify({ page }), { contentType: "application/json" })
    expect(compressPage(accepts, json)).toBe(json)
    const empty = HttpServerResponse.empty({ status: 304 })
    expect(compressPage(accepts, empty)).toBe(empty)
    const encoded = html(page).pipe(HttpServerResponse.setHeader("content-encoding", "gzip"))
    expect(compressPage(accepts, encoded)).toBe(encoded)
  })
})

describe("compressed assets", () => {
  const folderWith = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), "convene-assets-"))
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, ".."), { recursive: true })
      writeFileSync(join(dir, name), text)
    }
    return { dir, url: pathToFileURL(`${dir}/`) }
  }
  const css = `${"body { margin: 0; padding: 0; color: #222; }\n".repeat(100)}`

  it("the build writes .br and .gz beside each compressible asset under its hashed name; a new file needs no code", () => {
    const { dir, url } = folderWith({
      "app/00-base.css": css,
      "app/10-more.css": ".more { display: none }\n",
      "door.js": `${"console.log('a door');\n".repeat(50)}`,
      "manifest.webmanifest": JSON.stringify({ name: "Convene", icons: Array(20).fill({ src: "icon.png" }) }),
      "icon.png": "\x89PNG not compressed again",
      "notes.txt": "not an asset"
    })
    try {
      const written = writeEncoded(url).map(({ file }) => file).sort()
      const hashed = Object.fromEntries(assetFiles(url).map((asset) => [asset.name, asset.hashed]))
      expect(Object.keys(hashed).sort()).toEqual(["app.css", "door.js", "icon.png", "manifest.webmanifest"])
      expect(written).toEqual(
        ["app.css", "door.js", "manifest.webmanifest"].flatMap((name) => [`${hashed[name]}.br`, `${hashed[name]}.gz`]).sort()
      )
      expect(readdirSync(dir).filter((file) => file.startsWith("icon."))).toEqual(["icon.png"])
      // compressed files are not assets
      expect(assetFiles(url).length).toBe(4)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("the service serves the build's files as they are, and compresses an asset itself only when they are missing", () => {
    const { dir, url } = folderWith({ "app.css": css })
    try {
      const [asset] = assetFiles(url)
      // a brotli file the build could have written (quality 1, unlike the service's own): read, not remade
      const built = brotliCompressSync(Buffer.from(css), { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })
      writeFileSync(join(dir, `${asset!.hashed}.br`), built)
      const assets = loadAssets(url)
      const br = assets.get(asset!.hashed, "br, gzip")!
      expect(br.coding).toBe("br")
      expect(Buffer.from(br.body).equals(built)).toBe(true)
      expect(br.etag).toBe(`"${asset!.hash}-br"`)
      expect(br.varies).toBe(true)
      // no .gz: made once, on the first request for it
      const gzip = assets.get(asset!.hashed, "gzip")!
      expect(gzip.coding).toBe("gzip")
      expect(gunzipSync(gzip.body).toString()).toBe(css)
      expect(assets.get(asset!.hashed, "gzip")!.body).toBe(gzip.body)
      expect(gzip.etag).toBe(`"${asset!.hash}-gzip"`)
      const plain = assets.get(asset!.hashed)!
      expect(plain.coding).toBe("identity")
      expect(plain.etag).toBe(`"${asset!.hash}"`)
      expect(Buffer.from(plain.body).toString()).toBe(css)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
