// `node bench/ab-18/make-variants.mjs <built tree> <out dir>`: throwaway copies of a built tree's
// dist/ for the A/B runs of bench/PROFILE-18.md, each with one change made to the compiled
// JavaScript (nothing under src/ changes). Each variant is <out dir>/<name>, with node_modules
// linked; run one with `PROFILE_ROOT=<out dir>/<name> node bench/profile.mjs person 10`.
// The patches match the compiled code of commit 0dd5fd3 and fail loudly when it has changed.
import { execFileSync } from "node:child_process"
import { copyFileSync, cpSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const [treeArg, outArg] = process.argv.slice(2)
const tree = resolve(treeArg)
const out = resolve(outArg)

const PATCHES = {
  // no request lifecycle middleware at all: no request id, no request log line (an upper bound)
  noLifecycle: [["Server.js", "HttpApiBuilder.serve(requestLifecycle)", "HttpApiBuilder.serve()"]],
  // no rate limiting (an upper bound of what a cheaper limiter could save)
  noRateLimit: [["Auth/AccessLive.js", "            yield* limit(callerKey);\n", ""]],
  // API tokens remembered after their first lookup (no hash, no SQL, no Effect around them)
  authCache: [["Auth/Auth.js", `        const identify = (headers) => Effect.gen(function* () {
            const apiKey = headers["x-api-key"]?.trim();`, `        const __cache = new Map();
        const identify = (headers) => { const __k = headers["x-api-key"]; const __hit = __k === undefined ? undefined : __cache.get(__k); return __hit !== undefined ? Effect.succeed(__hit) : Effect.tap(identify2(headers), (c) => { if (__k !== undefined && c._tag === "ApiToken") __cache.set(__k, c) }) };
        const identify2 = (headers) => Effect.gen(function* () {
            const apiKey = headers["x-api-key"]?.trim();`]],
  // Effect.fnUntraced for the two handlers' services
  fnUntraced: [
    ["Persons/Persons.js", `Effect.fn("Persons.get")(`, "Effect.fnUntraced("],
    ["Guests/GuestLists.js", `Effect.fn("GuestLists.update")(`, "Effect.fnUntraced("]
  ],
  // GET /person/:id answered with jsonAs (no Schema encode of the response), as guest lists are
  jsonAs: [
    ["Persons/Http.js", `.handle("get", ({ path }) => Effect.flatMap(CurrentCaller, (caller) => persons.get(caller, path.id)))`,
      `.handle("get", ({ path }) => Effect.flatMap(CurrentCaller, (caller) => Effect.map(persons.get(caller, path.id), (p) => __jsonAs(null, p))))`],
    ["Persons/Http.js", `import * as Effect from "effect/Effect";`, `import * as Effect from "effect/Effect";\nimport { jsonAs as __jsonAs } from "../Http/Json.js";`]
  ],
  // no BlockList/SocketAddress work when TRUSTED_PROXIES is empty
  noTrustedCheck: [["Http/ClientAddress.js", `const isTrusted = (trusted, address) => {
    const family`, `const isTrusted = (trusted, address) => {
    if (trusted.entries.length === 0) return false;
    const family`]],
  // the PUT's guest lookup driven from the named persons; BEGIN/COMMIT from the statement cache
  putSql: [
    ["Guests/GuestsRepo.js", `FROM persons p JOIN event_guests g ON g.person_id = p.id AND g.event_id = \${eventId} AND g.removed_at IS NULL
          WHERE p.organization_id = \${organizationId}
            AND p.public_id IN (SELECT value FROM json_each(\${JSON.stringify(personPublicIds)}))\``, `FROM json_each(\${JSON.stringify(personPublicIds)}) j CROSS JOIN persons p ON p.public_id = j.value
            CROSS JOIN event_guests g ON g.event_id = \${eventId} AND g.person_id = p.id
          WHERE p.organization_id = \${organizationId} AND g.removed_at IS NULL\``],
    ["Db/Sqlite.js", `                executed++;
                const statement = db.prepare(sql);
                const rows = statement.reader`, `                const statement = prepare(sql);
                const rows = statement.reader`]
  ]
}
PATCHES.all = [...PATCHES.authCache, ...PATCHES.fnUntraced, ...PATCHES.jsonAs, ...PATCHES.noTrustedCheck, ...PATCHES.putSql]
const LEAN = new Set(["leanLifecycle", "allLean"])
PATCHES.leanLifecycle = []
PATCHES.allLean = PATCHES.all
PATCHES.base = []

for (const [name, patches] of Object.entries(PATCHES)) {
  const dir = join(out, name)
  rmSync(dir, { recursive: true, force: true })
  cpSync(join(tree, "dist"), join(dir, "dist"), { recursive: true })
  copyFileSync(join(tree, "package.json"), join(dir, "package.json"))
  if (!existsSync(join(dir, "node_modules"))) symlinkSync(join(tree, "node_modules"), join(dir, "node_modules"))
  for (const [file, before, after] of patches) {
    const path = join(dir, "dist/src", file)
    const text = readFileSync(path, "utf8")
    if (!text.includes(before)) throw new Error(`${name}: ${file} no longer holds the patched code`)
    writeFileSync(path, text.replace(before, after))
    execFileSync(process.execPath, ["--check", path])
  }
  // the request lifecycle in one synchronous step before the app and one after it (lean-lifecycle.js)
  if (LEAN.has(name)) copyFileSync(join(here, "lean-lifecycle.js"), join(dir, "dist/src/Http/RequestLifecycle.js"))
  console.log(`${name}: ${dir}`)
}
