// `node bench/profile-buckets.mjs <profile.cpuprofile> [--json] [--commit-cpu <ms>]`: where a
// profile of bench/profile.mjs spends its time, in ms per request.
//
// --commit-cpu: the CPU of a write transaction's BEGIN and COMMIT per request, measured apart
// (bench/profile-statements.mjs). The profiler samples wall-clock time, and a COMMIT under
// synchronous=FULL mostly waits for fsync: without it, that wait would be counted as CPU and
// scaled into every bucket.
//
// Reads the .json that bench/profile.mjs wrote beside the profile (the measured window, the
// requests, the CPU from /proc). Keeps the samples of the measured window, maps bundled frames
// back to src/*.ts and node_modules through the source maps, and prints:
//   - buckets: each sample goes to one bucket (see `bucketOf`); ms/request = the bucket's share of
//     the main thread's busy samples x the main thread's CPU ms/request (unprofiled run), plus a
//     row for the other threads (V8's GC helpers, libuv's pool) from /proc;
//   - the functions with the most self time and inclusive time, in ms/request.
import { readFileSync } from "node:fs"
import { SourceMap } from "node:module"
import { fileURLToPath } from "node:url"

const [file, ...flags] = process.argv.slice(2)
const asJson = flags.includes("--json")
const commitFlag = flags.indexOf("--commit-cpu")
const commitCpu = commitFlag === -1 ? undefined : Number(flags[commitFlag + 1])
const profile = JSON.parse(readFileSync(file, "utf8"))
const meta = JSON.parse(readFileSync(file.replace(/\.cpuprofile$/, ".json"), "utf8"))
const [from, to] = meta.profiled.windowUs

// ---- source maps. The build (scripts/build.mjs) bundles src/ and node_modules/ into a few files
// in dist/src/ with external source maps. Every frame of a bundle is first given the place it came
// from, as the unbundled tree would have it: a module of node_modules/ keeps its own path
// (`.../node_modules/effect/dist/esm/Effect.js`), a module of src/ gets `.../dist/src/X.js`, the
// name the rules below know, and `original` then tells its `src/X.ts:line`.
const maps = new Map()
const mapOf = (url) => {
  let map = maps.get(url)
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(fileURLToPath(url) + ".map", "utf8")))
    } catch {
      map = null
    }
    maps.set(url, map)
  }
  return map
}
for (const node of profile.nodes) {
  const frame = node.callFrame
  if (!frame.url.startsWith("file://") || !frame.url.includes("/dist/src/")) continue
  const map = mapOf(frame.url)
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber)
  if (entry === undefined || entry.originalSource === undefined) continue
  const source = new URL(entry.originalSource, frame.url).href
  const src = /\/src\/(.*)\.tsx?$/.exec(source)
  const root = frame.url.slice(0, frame.url.indexOf("/dist/src/"))
  frame.url = src !== null && !source.includes("/node_modules/") ? `${root}/dist/src/${src[1]}.js` : source
  frame.lineNumber = entry.originalLine
  frame.columnNumber = entry.originalColumn
}
const original = (url, line) => {
  const m = /\/dist\/src\/(.*)\.js$/.exec(url)
  return m === null ? undefined : `src/${m[1]}.ts:${line + 1}`
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

const short = (url) =>
  url
    .replace(/^file:\/\/.*?\/node_modules\//, "")
    .replace(/^file:\/\/.*?\/dist\/src\//, "dist/src/")
    .replace(/\/dist\/(esm|cjs)\//, "/")
const frameName = (n) => {
  const { columnNumber, functionName, lineNumber, url } = n.callFrame
  const where = original(url, lineNumber, columnNumber) ?? (url === "" ? "(native)" : `${short(url)}:${lineNumber + 1}`)
  return `${functionName || "(anonymous)"} ${where}`
}

// ---- buckets
const EFFECT = /node_modules\/effect\//
const SCHEMA = /node_modules\/effect\/dist\/(esm|cjs)\/(Schema|ParseResult|SchemaAST|internal\/schema\/)/
const EFFECT_LOGGER = /node_modules\/effect\/dist\/(esm|cjs)\/(internal\/logger|Logger|internal\/fiberRefs\/patch)/
const project = (url) => {
  const m = /\/dist\/src\/(.*)\.js$/.exec(url)
  return m === null ? undefined : m[1]
}

/** The bucket of a project file (`Auth/AccessLive`, ...). */
const projectBucket = (path, functionName) => {
  if (/^Auth\//.test(path)) return "auth (credential lookup, hashing, caller)"
  if (/^RateLimit\//.test(path)) return "rate limiter (+ headers)"
  if (path === "Logging") return "request log / logger"
  if (path === "Http/RequestLifecycle") {
    return /loggedPath|decoded|statusOf/.test(functionName) ? "request log / logger" : "request lifecycle (request id, routing prefix)"
  }
  if (/^Http\/(RequestMeta|ClientAddress)/.test(path)) return "request lifecycle (request id, routing prefix)"
  if (/^Idempotency\//.test(path)) return "idempotency"
  if (/^Db\//.test(path) || /Repo$/.test(path)) return "SQL (better-sqlite3 + @effect/sql compile)"
  if (path === "Http/JsonBody") return "request body (read, JSON.parse, checks)"
  if (/^Persons\/(PersonView|Domain)|^Guests\/(GuestView|GuestPayloads)|^Http\/Json$/.test(path)) return "rendering (Person/Guest view, JSON)"
  if (/^(Changes|Outbox|Webhooks|Email)\/|^Guests\/(GuestNotifications|Changes)|^Events\/EventPayload/.test(path)) {
    return "history/outbox/change feed"
  }
  if (/^Http\/(ErrorMapping|Errors|Params)/.test(path)) return "router / HttpApi (decode, encode, middleware)"
  return "handlers (service code)"
}

/**
 * A sample's bucket: from its leaf towards the root, the first frame that says what the work is
 * for. Frames of `effect` itself say nothing (Option, HashMap, Context... serve whoever calls
 * them), except its Schema (decode/encode) and logger modules; and a frame of the fiber runtime's
 * loop ends the search: what is above it started or resumed the fiber, it did not ask for the work.
 */
let decider
const bucketOf = (leafId) => {
  decider = undefined
  const leaf = byId.get(leafId)
  const name = leaf.callFrame.functionName
  if (name === "(garbage collector)") return "GC (main thread)"
  if (name === "(program)") return "(program): V8/native outside JS"
  for (let id = leafId; id !== undefined; id = parent.get(id)) {
    const { functionName, url } = byId.get(id).callFrame
    if (url === "") continue // native or builtin: belongs to its caller
    decider = frameName(byId.get(id))
    if (SCHEMA.test(url)) return "Schema (HttpApi decode/encode, row decode)"
    if (EFFECT_LOGGER.test(url) || (/fiberRuntime/.test(url) && /^(log|getLoggers)$/.test(functionName))) return "request log / logger"
    if (EFFECT.test(url)) {
      if (/fiberRuntime|internal\/runtime\.js/.test(url) && /^(runLoop|evaluateEffect|drainQueueOnCurrentThread|evaluateMessageWhileSuspended|start|resume|unsafeFork|unsafeRunCallback)/.test(functionName)) {
        return "Effect runtime (fiber loop, ops, context)"
      }
      continue
    }
    const path = project(url)
    if (path !== undefined) return projectBucket(path, functionName)
    if (/node_modules\/(better-sqlite3|@effect\/sql)/.test(url)) return "SQL (better-sqlite3 + @effect/sql compile)"
    if (/node_modules\/@effect\/platform\/dist\/(esm|cjs)\/(HttpApi|HttpRouter|HttpMiddleware|internal\/httpRouter|internal\/httpMiddleware|HttpApp|internal\/httpApp)/.test(url) || /find-my-way/.test(url)) {
      return "router / HttpApi (decode, encode, middleware)"
    }
    if (/node_modules\/@effect\/platform(-node|-node-shared)?\//.test(url)) return "HTTP adapter (@effect/platform request/response)"
    if (/^node:/.test(url)) return nodeCoreOwner(id)
    if (/node_modules\//.test(url)) return `other: ${short(url).split("/").slice(0, 2).join("/")}`
  }
  return "Effect runtime (fiber loop, ops, context)"
}

/** What part of the runtime a runtime sample is in: the effect module nearest the leaf. */
const runtimePart = (leafId) => {
  for (let id = leafId; id !== undefined; id = parent.get(id)) {
    const { functionName, url } = byId.get(id).callFrame
    if (url === "") continue
    const m = /node_modules\/effect\/dist\/(?:esm|cjs)\/(.*)\.js$/.exec(url)
    if (m === null) return "other"
    const module = m[1]
    if (module === "internal/context" || module === "Context") return "Context copies/lookups (provideService, Effect.fn spans)"
    if (/fiberRefs|FiberRef/.test(module) || /FiberRef/.test(functionName)) return "FiberRef updates (annotateLogs, withMaxBodySize...)"
    if (/^(Hash|Equal)$/.test(module)) return "Hash/Equal (structural hashing)"
    if (module === "Effect" && functionName === "defineLength") return "Effect.fn (stack capture, span)"
    if (/Scheduler/.test(module)) return "scheduler (yield between fibers)"
    if (/fiberRuntime|internal\/core|core-effect|Utils|Function|Pipeable|runtime/.test(module)) return "fiber loop and ops (fiberRuntime, core)"
    return `effect/${module}`
  }
  return "other"
}

/** Where an SQL sample is: a transaction's BEGIN/COMMIT (@effect/sql path), a direct statement, compile, cache. */
const sqlPart = (leafId) => {
  for (let id = leafId; id !== undefined; id = parent.get(id)) {
    const { functionName, lineNumber, url } = byId.get(id).callFrame
    if (url === "") continue
    const where = original(url, lineNumber, byId.get(id).callFrame.columnNumber) ?? url
    if (/node_modules\/@effect\/sql/.test(url)) return "@effect/sql (statement compile, transaction machinery)"
    if (/better-sqlite3\/lib/.test(url)) return "better-sqlite3 prepare (uncached statements)"
    if (/src\/Db\/Sqlite\.ts:(23[2-9]|240)/.test(where)) return "BEGIN/COMMIT via executeUnprepared (prepare + run, fsync)"
    if (/src\/Db\/Sqlite\.ts:(1[01]\d)/.test(where) && functionName === "prepare") return "statement cache lookup"
    if (/src\/Db\/Sqlite\.ts:(29\d|30\d|31\d|33\d)/.test(where)) return "direct statements (run/all in better-sqlite3)"
    if (/src\/Db\/Sqlite\.ts/.test(where)) return `Sqlite.ts other (${where})`
    return `caller ${where}`
  }
  return "other"
}

/**
 * Convene's own steps, inclusive of everything they call synchronously (a step's Effect
 * continuations run later, from the fiber loop, and are not counted here).
 */
const FEATURES = [
  ["request lifecycle middleware (RequestLifecycle.ts)", /src\/Http\/RequestLifecycle\.ts/],
  ["  of which loggedPath", /loggedPath src\/Http\/RequestLifecycle/],
  ["  of which clientOf (TRUSTED_PROXIES check)", /clientOf src\/Http\/ClientAddress/],
  ["JSON logger (Logging.ts)", /src\/Logging\.ts/],
  ["effect logger machinery (fiberRuntime.log)", /^log effect\/internal\/fiberRuntime/],
  ["access gate (AccessLive.ts)", /src\/Auth\/AccessLive\.ts/],
  ["Auth.identify (Auth.ts:65)", /src\/Auth\/Auth\.ts:6[6-9]|src\/Auth\/Auth\.ts:[78]\d/],
  ["  of which hashToken (sha256)", /hashToken src\/Auth\/Secrets/],
  ["rate limiter take (RateLimiter.ts)", /src\/RateLimit\/RateLimiter\.ts/],
  ["rate-limit headers (Headers.ts)", /src\/RateLimit\/Headers\.ts/],
  ["error mapping / body middleware (ErrorMapping.ts)", /src\/Http\/ErrorMapping\.ts/],
  ["JSON body parsing (JsonBody.ts)", /src\/Http\/JsonBody\.ts/],
  ["idempotency middleware (IdempotentLive.ts)", /src\/Idempotency\//],
  ["HttpApiBuilder (decode request, encode response)", /@effect\/platform\/HttpApiBuilder\.js/],
  ["  of which Schema (ParseResult)", /effect\/ParseResult\.js/],
  ["router (httpRouter, find-my-way)", /@effect\/platform\/internal\/httpRouter|find-my-way/],
  ["writev syscall (response to the socket; wall-clock, see perf)", /^writev \(native\)/],
  ["Persons.get handler (Persons.ts)", /src\/Persons\/Persons\.ts/],
  ["GuestLists.update handler (GuestLists.ts)", /src\/Guests\/GuestLists\.ts/],
  ["Events.find (Events.ts)", /src\/Events\/Events\.ts/],
  ["guest rendering (GuestView.ts)", /src\/Guests\/GuestView\.ts/],
  ["guest notifications (GuestNotifications.ts)", /src\/Guests\/GuestNotifications\.ts/],
  ["change feed record (Changes/)", /src\/Changes\//],
  ["outbox enqueue (Outbox/, Webhooks/)", /src\/(Outbox|Webhooks)\//],
  ["Db/Sqlite.ts (all statements)", /src\/Db\/Sqlite\.ts/],
  ["@effect/sql", /@effect\/sql\//],
  ["Effect.fn (span + stack capture)", /^defineLength effect\/Effect/]
]

/**
 * A node core frame works for Convene's code when that code called it (crypto for the token hash,
 * SocketAddress/BlockList for the proxy check, a stream write for the log): walking up, a project
 * frame met before the HTTP server's own frames (or the fiber loop) owns it.
 */
const nodeCoreOwner = (nodeFrameId) => {
  for (let id = parent.get(nodeFrameId); id !== undefined; id = parent.get(id)) {
    const { functionName, url } = byId.get(id).callFrame
    if (/^node:_http_/.test(url) || /@effect\/platform-node/.test(url)) break
    if (/fiberRuntime/.test(url) && /^(runLoop|evaluateEffect)$/.test(functionName)) break
    const path = project(url)
    if (path !== undefined) return projectBucket(path, functionName)
  }
  return "HTTP parsing / node core (http, net, streams)"
}

// ---- the samples of the measured window
let t = profile.startTime
const selfTime = new Map()
const inclusive = new Map()
const buckets = new Map()
const runtimeParts = new Map()
const deciders = new Map()
const sqlParts = new Map()
const features = new Map()
let busy = 0
let idle = 0
let sampled = 0
const bucketCache = new Map()
const stackCache = new Map()
const stackOf = (leafId) => {
  let names = stackCache.get(leafId)
  if (names === undefined) {
    names = new Set()
    for (let id = leafId; id !== undefined; id = parent.get(id)) names.add(frameName(byId.get(id)))
    stackCache.set(leafId, names)
  }
  return names
}
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i]
  const dt = profile.timeDeltas[i + 1] ?? 0 // the time until the next sample belongs to this one
  if (t < from || t > to) return
  sampled += dt
  const leaf = byId.get(id)
  if (leaf.callFrame.functionName === "(idle)") {
    idle += dt
    return
  }
  busy += dt
  const self = frameName(leaf)
  selfTime.set(self, (selfTime.get(self) ?? 0) + dt)
  for (const name of stackOf(id)) inclusive.set(name, (inclusive.get(name) ?? 0) + dt)
  let cached = bucketCache.get(id)
  if (cached === undefined) {
    const b = bucketOf(id)
    bucketCache.set(id, (cached = [b, decider ?? "-"]))
  }
  const [bucket, decidedBy] = cached
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + dt)
  let within = deciders.get(bucket)
  if (within === undefined) deciders.set(bucket, (within = new Map()))
  within.set(decidedBy, (within.get(decidedBy) ?? 0) + dt)
  if (bucket.startsWith("Effect runtime")) {
    const part = runtimePart(id)
    runtimeParts.set(part, (runtimeParts.get(part) ?? 0) + dt)
  }
  if (bucket.startsWith("SQL")) {
    const part = sqlPart(id)
    sqlParts.set(part, (sqlParts.get(part) ?? 0) + dt)
  }
  const stack = stackOf(id)
  for (const [feature, test] of FEATURES) {
    for (const frame of stack) {
      if (test.test(frame)) {
        features.set(feature, (features.get(feature) ?? 0) + dt)
        break
      }
    }
  }
})

const requests = meta.profiled.requests
const best = meta.best
const mainCpu = best.threadsMsPerReq.main.user + best.threadsMsPerReq.main.system
const otherCpu = best["CPU ms/req"] - mainCpu
const profiledMain = meta.profiled.threadsMsPerReq.main.user + meta.profiled.threadsMsPerReq.main.system
const busyMsPerReq = busy / 1000 / requests
const COMMIT_PART = "BEGIN/COMMIT via executeUnprepared (prepare + run, fsync)"
const commitTime = commitCpu === undefined ? 0 : sqlParts.get(COMMIT_PART) ?? 0
// ms per request, unprofiled, per µs of busy samples (the commit's samples apart when measured apart)
const scale = (mainCpu - (commitCpu ?? 0)) / (busy - commitTime)
if (commitCpu !== undefined) {
  sqlParts.set(COMMIT_PART, (commitCpu / scale))
  const sql = [...buckets.keys()].find((b) => b.startsWith("SQL"))
  buckets.set(sql, buckets.get(sql) - commitTime + commitCpu / scale)
  busy = busy - commitTime + commitCpu / scale
}
const rows = [...buckets]
  .map(([bucket, time]) => ({ bucket, ms: time * scale }))
  .sort((a, b) => b.ms - a.ms)
rows.push({ bucket: "other threads (V8 GC helpers, libuv pool) from /proc", ms: otherCpu })
const total = best["CPU ms/req"]

const top = (map, n) =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, time]) => ({ name, ms: time * scale, share: time / busy }))

const result = {
  profile: file,
  scenario: meta.scenario,
  logLevel: meta.logLevel,
  "CPU ms/req (unprofiled best)": total,
  "main thread CPU ms/req (unprofiled)": mainCpu,
  "main thread CPU ms/req (profiled run, /proc)": profiledMain,
  "main thread busy ms/req in the profile (wall, includes blocking syscalls)": busyMsPerReq,
  "window s": (to - from) / 1e6,
  "samples' time in window s": sampled / 1e6,
  "idle share": idle / sampled,
  buckets: rows.map((r) => ({ ...r, share: r.ms / total })),
  runtime: top(runtimeParts, 20),
  deciders: Object.fromEntries([...deciders].map(([bucket, map]) => [bucket, top(map, 8)])),
  sql: top(sqlParts, 20),
  features: FEATURES.map(([name]) => ({ name, ms: (features.get(name) ?? 0) * scale, share: (features.get(name) ?? 0) / busy })),
  self: top(selfTime, 45),
  inclusive: top(inclusive, 90)
}
if (asJson) console.log(JSON.stringify(result, null, 2))
else {
  const { buckets: b, deciders: dec, features: feat, inclusive: inc, runtime, self, sql, ...head } = result
  console.log(head)
  console.log("\n| bucket | ms/request | % |\n|---|---|---|")
  for (const r of b) console.log(`| ${r.bucket} | ${r.ms.toFixed(3)} | ${(100 * r.share).toFixed(1)} |`)
  console.log(`| **total** | **${total.toFixed(3)}** | 100 |`)
  console.log("\nwhat put samples in each bucket (the deciding frame, ms/request)")
  for (const r of b) {
    if (dec[r.bucket] === undefined) continue
    console.log(`${r.bucket}`)
    for (const d of dec[r.bucket]) console.log(`    ${d.ms.toFixed(4)}  ${d.name}`)
  }
  console.log("\nEffect runtime bucket, by part (ms/request)")
  for (const r of runtime) console.log(`${r.ms.toFixed(4)}  ${r.name}`)
  console.log("\nSQL bucket, by part (ms/request)")
  for (const r of sql) console.log(`${r.ms.toFixed(4)}  ${r.name}`)
  console.log("\nConvene's steps, inclusive of what they call synchronously (ms/request)")
  for (const r of feat) console.log(`${r.ms.toFixed(4)}  ${r.name}`)
  console.log("\nself time (ms/request, % of main thread busy)")
  for (const r of self) console.log(`${r.ms.toFixed(4)}  ${(100 * r.share).toFixed(1).padStart(5)}%  ${r.name}`)
  console.log("\ninclusive time")
  for (const r of inc) console.log(`${r.ms.toFixed(4)}  ${(100 * r.share).toFixed(1).padStart(5)}%  ${r.name}`)
}
