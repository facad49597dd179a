// `npm run bench:compression`: what compressing pages and assets saves and costs (issue 26, item 8).
//
// Against the build (dist/), on SQLite: a small organization (200 contacts, an event of 100 guests),
// a member signed in through the sign-in form, then
// 1. the bytes on the wire of app.css, app.js and two dashboard pages (the events, a guest list)
//    as they are, in gzip and in brotli (what the service sends for each Accept-Encoding);
// 2. the CPU of compressing that guest-list page once, at each level worth considering, in this
//    process (the service compresses pages per request: src/Http/PageCompression.ts);
// 3. the service's CPU per request of the guest-list page, without Accept-Encoding and with a
//    browser's, each for a few seconds under autocannon (10 connections), after a warm-up.
import autocannon from "autocannon"
import { mkdtempSync, rmSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import { benchEnv, cpuMs, freePort, startServer } from "./lib.mjs"
import { seed } from "./seed.mjs"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const BROWSER = "gzip, deflate, br, zstd"
const EMAIL = "owner@bench.example"
const PASSWORD = "bench compression password"

const dir = mkdtempSync(join(tmpdir(), "convene-compression-"))
const port = await freePort()
const server = await startServer({
  script: join(root, "dist/src/main.js"),
  port,
  nodeArgs: ["--max-old-space-size=256", "--max-semi-space-size=8"],
  env: {
    ...benchEnv,
    BOOTSTRAP_ADMIN_EMAIL: EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: PASSWORD,
    DATABASE_PATH: join(dir, "convene.db"),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "Warn"
  }
})

/** One GET as it comes off the wire (no decompression): status, headers, the bytes. */
const get = (path, headers = {}) =>
  new Promise((done, failed) => {
    const outgoing = request(`${server.url}${path}`, { headers }, (incoming) => {
      const chunks = []
      incoming.on("data", (chunk) => chunks.push(chunk))
      incoming.on("end", () => done({ status: incoming.statusCode, headers: incoming.headers, body: Buffer.concat(chunks) }))
    })
    outgoing.on("error", failed)
    outgoing.end()
  })

try {
  const { smallEvent } = await seed(server.url, { persons: 200, small: 100, large: 10 })

  // signing in as a browser does: the form's cookie and token, then the session's cookie
  const form = await get("/app/login")
  const formCookie = form.headers["set-cookie"].map((c) => c.split(";")[0]).join("; ")
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body.toString())[1]
  const signedIn = await new Promise((done, failed) => {
    const body = new URLSearchParams({ _csrf: csrf, email: EMAIL, password: PASSWORD, next: "/app/events" }).toString()
    const outgoing = request(`${server.url}/app/login`, {
      method: "POST",
      headers: { cookie: formCookie, origin: server.url, "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) }
    }, (incoming) => {
      incoming.resume()
      incoming.on("end", () => done(incoming))
    })
    outgoing.on("error", failed)
    outgoing.end(body)
  })
  const session = signedIn.headers["set-cookie"].map((c) => c.split(";")[0]).find((c) => c.startsWith("convene_session="))
  if (signedIn.statusCode !== 303 || session === undefined) throw new Error(`sign-in failed: ${signedIn.statusCode}`)
  const cookie = { cookie: session }

  const guestList = `/app/events/${smallEvent.eventId}/guests`
  const page = (await get(guestList, cookie)).body
  const css = /href="([^"]*\/app\/assets\/app\.[^"]+\.css)"/.exec(page.toString())[1].replace(server.url, "")
  const js = /src="([^"]*\/app\/assets\/app\.[^"]+\.js)"/.exec(page.toString())[1].replace(server.url, "")

  // 1. bytes on the wire
  const kb = (n) => (n / 1024).toFixed(1)
  console.log("| what | as it is (KB) | gzip (KB) | brotli (KB) |")
  console.log("|---|---|---|---|")
  for (const [name, path] of [["app.css", css], ["app.js", js], ["the events (page)", "/app/events"], ["a guest list of 100 (page)", guestList]]) {
    const sizes = []
    for (const encoding of [undefined, "gzip", "br"]) {
      const reply = await get(path, { ...cookie, ...(encoding === undefined ? {} : { "accept-encoding": encoding }) })
      if (reply.status !== 200 || (reply.headers["content-encoding"] ?? "identity") !== (encoding ?? "identity")) {
        throw new Error(`${path} (${encoding}): ${reply.status} ${reply.headers["content-encoding"]}`)
      }
      sizes.push(kb(reply.body.length))
    }
    console.log(`| ${name} | ${sizes.join(" | ")} |`)
  }

  // 2. CPU of one compression of each page, in this process
  const levels = [
    ["gzip 1", (b) => gzipSync(b, { level: 1 })],
    ["gzip 6 (zlib's default)", (b) => gzipSync(b, { level: 6 })],
    ["gzip 9", (b) => gzipSync(b, { level: 9 })],
    ...[1, 2, 3, 4, 5, 11].map((q) => [
      `brotli ${q}`,
      (b) =>
        brotliCompressSync(b, {
          params: { [constants.BROTLI_PARAM_QUALITY]: q, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: b.length }
        })
    ])
  ]
  const events = (await get("/app/events", cookie)).body
  console.log(`\nEach page compressed once (CPU ms: the mean of a second of runs):\n`)
  console.log(`| coding | the events (${kb(events.length)} KB): KB | CPU ms | a guest list of 100 (${kb(page.length)} KB): KB | CPU ms |`)
  console.log("|---|---|---|---|---|")
  const measure = (compress, body, ms) => {
    for (let i = 0; i < 20; i++) compress(body)
    const started = process.cpuUsage()
    const wall = performance.now()
    let runs = 0
    let size = 0
    while (performance.now() - wall < ms) {
      size = compress(body).length
      runs++
    }
    const used = process.cpuUsage(started)
    return `${kb(size)} | ${((used.user + used.system) / 1000 / runs).toFixed(3)}`
  }
  for (const [name, compress] of levels) {
    const ms = name === "brotli 11" ? 2000 : 1000
    console.log(`| ${name} | ${measure(compress, events, ms)} | ${measure(compress, page, ms)} |`)
  }

  // 3. the service's CPU per request of the page, with and without compression
  console.log(`\nThe service's CPU per request of the guest-list page (${SECONDS} s each, 10 connections):\n`)
  console.log("| Accept-Encoding | req/s | CPU ms/req |")
  console.log("|---|---|---|")
  // warm-up: the JIT has compiled the page's path before anything is counted
  await autocannon({ url: server.url + guestList, connections: 10, duration: 2, headers: { ...cookie, "accept-encoding": BROWSER } })
  for (const encoding of [undefined, BROWSER, undefined, BROWSER]) {
    const before = cpuMs(server.pid)
    const result = await autocannon({
      url: server.url + guestList,
      connections: 10,
      duration: SECONDS,
      headers: { ...cookie, ...(encoding === undefined ? {} : { "accept-encoding": encoding }) }
    })
    const used = cpuMs(server.pid) - before
    const requests = result.requests.total
    if (result.non2xx > 0) throw new Error(`${result.non2xx} answers were not 2xx`)
    console.log(`| ${encoding ?? "(none)"} | ${Math.round(result.requests.average)} | ${(used / requests).toFixed(3)} |`)
  }
} finally {
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
