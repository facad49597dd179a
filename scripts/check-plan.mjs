// `npm run check:plan` (run by `npm test`): what ARCHITECTURE.md asks that an import rule cannot see.
//
// - every file of src/ is in a layer of the plan (scripts/plan/layers.cjs);
// - no engine branch (`sql.onDialect*`, `d.name === "pg"`) outside src/Db/;
// - no file of src/ over 250 lines;
// - every table is written by its owner only; a platform's table is read by its platform folder
//   only, and no table is read from below its owner; every table the migrations make has an owner.
//
// Today's exceptions are listed in scripts/plan/known-*.txt. A listed exception that is gone must
// be taken off its list (the check says so), and a listed long file may not grow past its listed
// length: split it rather than grow it (or, when a change truly cannot go elsewhere, raise its
// number in the same commit, and say why in the commit message). `--baseline` rewrites the three
// lists from the tree as it is: for when exceptions were removed, never to hide a new one.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const plan = createRequire(import.meta.url)("./plan/layers.cjs")
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const MAX_LINES = 250

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : [relative(root, path)]
  })
const read = (file) => readFileSync(join(root, file), "utf8")
const files = walk(join(root, "src"))
const sources = files.filter((f) => /\.tsx?$/.test(f))

/** A known-exceptions file: one `<file> [detail...]` a line, `#` comments. */
const baseline = process.argv.includes("--baseline")
const known = (name) =>
  baseline ? [] : read(`scripts/plan/${name}`).split("\n").map((line) => line.replace(/#.*/, "").trim()).filter((line) => line !== "")

const problems = []
const fail = (message) => problems.push(message)

// 1. every file in a layer
for (const file of sources) {
  if (plan.layerOf(file).layer === "unplaced") fail(`${file}: in no layer of the plan (scripts/plan/layers.cjs, ARCHITECTURE.md)`)
}

// 2. engine branches outside src/Db/ (counted per file)
const ENGINE_BRANCH = /\bonDialect(?:OrElse)?\b|\.name\s*[!=]==\s*["'](?:pg|sqlite)["']/g
const branches = new Map()
for (const file of sources) {
  if (file.startsWith("src/Db/")) continue
  const n = [...read(file).matchAll(ENGINE_BRANCH)].length
  if (n > 0) branches.set(file, n)
}
const knownBranches = new Map(known("known-engine-branches.txt").map((line) => {
  const [file, n] = line.split(/\s+/)
  return [file, Number(n)]
}))
for (const [file, n] of branches) {
  const allowed = knownBranches.get(file) ?? 0
  if (n > allowed) {
    fail(`${file}: ${n} engine branch(es) outside src/Db/ (${allowed} known): add a Dialect entry or a function in src/Db/ instead`)
  }
}
for (const [file, n] of knownBranches) {
  if ((branches.get(file) ?? 0) < n) fail(`scripts/plan/known-engine-branches.txt: ${file} has ${branches.get(file) ?? 0} now, not ${n}: lower it`)
}

// 3. long files (migrations live outside src/)
const lengths = new Map(files.map((f) => [f, read(f).split("\n").length - 1]))
const knownLong = new Map(known("known-long-files.txt").map((line) => {
  const [file, n] = line.split(/\s+/)
  return [file, Number(n)]
}))
for (const [file, n] of lengths) {
  if (n <= MAX_LINES) continue
  const allowed = knownLong.get(file)
  if (allowed === undefined) fail(`${file}: ${n} lines, over ${MAX_LINES}: split it`)
  else if (n > allowed) fail(`${file}: ${n} lines, longer than its listed ${allowed}: split it rather than grow it`)
}
for (const [file, n] of knownLong) {
  const now = lengths.get(file)
  if (now === undefined || now <= MAX_LINES) fail(`scripts/plan/known-long-files.txt: ${file} is ${now ?? "gone"}${now === undefined ? "" : " lines"} now: take it off the list`)
  else if (now < n) fail(`scripts/plan/known-long-files.txt: ${file} is ${now} lines now, not ${n}: lower it`)
}

// 4. tables: one writer, and reads only downwards (a platform's tables only through its service)
const created = new Set()
for (const file of walk(join(root, "migrations"))) {
  for (const m of read(file).matchAll(/CREATE (?:UNLOGGED )?TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)) created.add(m[1])
}
/** Tables the migrations made and later dropped or renamed: no owner. */
const GONE = new Set(["webhook_deliveries", "idempotency_answers", "persons_search"])
for (const table of created) {
  if (!GONE.has(table) && plan.TABLES[table] === undefined) fail(`table ${table}: no owner in scripts/plan/layers.cjs (TABLES) and ARCHITECTURE.md`)
}
for (const table of Object.keys(plan.TABLES)) {
  if (!created.has(table)) fail(`scripts/plan/layers.cjs: table ${table} is made by no migration`)
}
const folderOf = (file) => file.split("/")[1]
/** Whether `file` may read a table `owner` owns: its own, or a lower feature's (from a feature or an edge). */
const mayRead = (file, owner) => {
  if (folderOf(file) === owner) return true
  if (!plan.FEATURES.includes(owner)) return false
  const { feature, layer } = plan.layerOf(file)
  if (layer === "edge" || layer === "composition") return true
  return layer === "feature" && plan.FEATURES.indexOf(feature) > plan.FEATURES.indexOf(owner)
}
const accesses = new Set()
for (const file of sources) {
  const text = read(file)
  const writes = new Set([...text.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z_]+)/g)].map((m) => m[1]))
  const reads = new Set([...text.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)/g)].map((m) => m[1]))
  for (const table of writes) {
    const owner = plan.TABLES[table]
    if (owner !== undefined && folderOf(file) !== owner) accesses.add(`${file} ${table} write`)
  }
  for (const table of reads) {
    const owner = plan.TABLES[table]
    if (owner !== undefined && !writes.has(table) && !mayRead(file, owner)) accesses.add(`${file} ${table} read`)
  }
}
const knownAccesses = new Set(known("known-table-access.txt"))
for (const access of accesses) {
  if (!knownAccesses.has(access)) {
    const [file, table, kind] = access.split(" ")
    fail(`${file}: ${kind === "write" ? "writes" : "reads"} ${table}, which is ${plan.TABLES[table]}'s: ask its owner's service`)
  }
}
for (const access of knownAccesses) {
  if (!accesses.has(access)) fail(`scripts/plan/known-table-access.txt: "${access}" is gone: take it off the list`)
}

if (baseline) {
  const write = (name, about, lines) =>
    writeFileSync(join(root, "scripts/plan", name), `# ${about}\n# (scripts/check-plan.mjs; ARCHITECTURE.md, "Known exceptions")\n${lines.sort().join("\n")}\n`)
  write("known-engine-branches.txt", "Files outside src/Db/ with engine branches today, and how many: <file> <count>", [...branches].map(([f, n]) => `${f} ${n}`))
  write("known-long-files.txt", `Files of src/ over ${MAX_LINES} lines today, and their length (a ceiling): <file> <lines>`,
    [...lengths].filter(([, n]) => n > MAX_LINES).map(([f, n]) => `${f} ${n}`))
  write("known-table-access.txt", "Accesses to another feature's or the platform's tables today: <file> <table> read|write", [...accesses])
  console.log("check-plan: the known exceptions are rewritten from the tree (scripts/plan/known-*.txt)")
  process.exit(0)
}

if (problems.length > 0) {
  console.error(`check-plan: ${problems.length} problem(s) (ARCHITECTURE.md says why):`)
  for (const problem of problems) console.error(`  ${problem}`)
  process.exit(1)
}
console.log(
  `check-plan: ok (${sources.length} files in their layers; known: ${knownBranches.size} files with engine branches, ` +
    `${knownLong.size} long files, ${knownAccesses.size} table accesses)`
)
