// `node scripts/plan/figures.mjs [--list]`: the measures of ARCHITECTURE.md's last section, from
// an import scan of src/ against the plan (scripts/plan/layers.cjs): imports that run against the
// layers, imports of another feature's repository, imports of what only the composition imports,
// import cycles, files over 250 lines, engine branches outside src/Db, unchecked row reads.
// A measure, not a check: .dependency-cruiser.cjs and scripts/check-plan.mjs are the checks.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const plan = createRequire(import.meta.url)("./layers.cjs")
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const list = process.argv.includes("--list")

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : [relative(root, path)]
  })
const all = walk(join(root, "src"))
const sources = all.filter((f) => /\.tsx?$/.test(f))
const text = new Map(sources.map((f) => [f, readFileSync(join(root, f), "utf8")]))

/** Relative imports of a file (static, type-only, re-exports and dynamic), resolved to files. */
const importsOf = (file) => {
  const found = new Set()
  const pattern = /(?:^|[\n;])\s*(?:import|export)\b[^;]*?\bfrom\s*"(\.[^"]+)"|(?:^|[\n;])\s*import\s*"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)/g
  for (const m of text.get(file).matchAll(pattern)) {
    const base = join(dirname(file), m[1] ?? m[2] ?? m[3]).replace(/\.js$/, "")
    const target = [".ts", ".tsx"].map((ext) => base + ext).find((f) => text.has(f))
    if (target !== undefined) found.add(target)
  }
  return [...found]
}
const graph = new Map(sources.map((f) => [f, importsOf(f)]))

const rank = (file) => {
  const { feature, layer } = plan.layerOf(file)
  if (layer === "feature") return 3 + plan.FEATURES.indexOf(feature) / 100
  return { kernel: 0, database: 1, platform: 2, edge: 4, composition: 5, unplaced: 6 }[layer]
}
const folder = (file) => file.split("/").length > 2 ? file.split("/")[1] : file.split("/")[1]

const against = []
const foreignRepos = []
const composedOnly = []
for (const [from, targets] of graph) {
  for (const to of targets) {
    if (rank(to) > rank(from) && !(from.startsWith("src/Client/") && to === "src/Api.ts")) against.push([from, to])
    const own = from.split("/").length > 2 ? from.split("/")[1] : null
    if (/Repo\.ts$/.test(to) && own !== to.split("/")[1]) foreignRepos.push([from, to])
    if (new RegExp(plan.COMPOSED_ONLY).test(to) && !new RegExp(plan.COMPOSERS).test(from)) composedOnly.push([from, to])
  }
}

// import cycles: the strongly connected components of more than one file (Tarjan)
const cycles = []
{
  let index = 0
  const stack = []
  const info = new Map()
  const connect = (v) => {
    info.set(v, { index, low: index, onStack: true })
    index++
    stack.push(v)
    for (const w of graph.get(v)) {
      if (!info.has(w)) {
        connect(w)
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low)
      } else if (info.get(w).onStack) info.get(v).low = Math.min(info.get(v).low, info.get(w).index)
    }
    if (info.get(v).low === info.get(v).index) {
      const component = []
      let w
      do {
        w = stack.pop()
        info.get(w).onStack = false
        component.push(w)
      } while (w !== v)
      if (component.length > 1) cycles.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!info.has(v)) connect(v)
}

const lines = (file) => readFileSync(join(root, file), "utf8").split("\n").length - 1
const big = all.map((f) => [f, lines(f)]).filter(([, n]) => n > 250).sort((a, b) => b[1] - a[1])

const ENGINE_BRANCH = /\bonDialect(?:OrElse)?\b|\.name\s*[!=]==\s*["'](?:pg|sqlite)["']/g
const branches = sources.filter((f) => !f.startsWith("src/Db/"))
  .flatMap((f) => [...text.get(f).matchAll(ENGINE_BRANCH)].map(() => f))
const unchecked = sources.flatMap((f) => [...text.get(f).matchAll(/\b\w+\.(?:rows|first)</g)].map(() => f))

const pairs = (edges) => new Set(edges.map(([a, b]) => `${folder(a)} -> ${folder(b)}`)).size
const show = (title, edges) => {
  if (!list) return
  console.log(`\n${title}`)
  for (const [a, b] of edges) console.log(`  ${a} -> ${b}`)
}
const countBy = (files) => [...files.reduce((m, f) => m.set(f, (m.get(f) ?? 0) + 1), new Map())]

console.log(`files in src/: ${all.length} (${sources.length} TypeScript), ${all.reduce((n, f) => n + lines(f), 0)} lines`)
console.log(`files outside the plan's layers: ${sources.filter((f) => plan.layerOf(f).layer === "unplaced").length}`)
console.log(`imports against the layers: ${against.length} (${pairs(against)} pairs of folders)`)
console.log(`imports of another feature's repository: ${foreignRepos.length}`)
console.log(`imports of the root Api, the dispatcher or a channel outside the composition: ${composedOnly.length}`)
console.log(`import cycles: ${cycles.length}`)
console.log(`files over 250 lines: ${big.length}`)
console.log(`engine branches outside src/Db: ${branches.length} in ${new Set(branches).size} files`)
console.log(`unchecked row reads (direct.rows<A> / first<A>): ${unchecked.length} in ${new Set(unchecked).size} files`)
if (list) {
  console.log("\nunplaced files")
  for (const f of sources.filter((f) => plan.layerOf(f).layer === "unplaced")) console.log(`  ${f}`)
}
show("imports against the layers", against)
show("imports of another feature's repository", foreignRepos)
show("imports of what only the composition imports", composedOnly)
if (list) {
  console.log("\nimport cycles")
  for (const c of cycles) console.log(`  ${c.join(" ")}`)
  console.log("\nfiles over 250 lines")
  for (const [f, n] of big) console.log(`  ${n} ${f}`)
  console.log("\nengine branches outside src/Db")
  for (const [f, n] of countBy(branches)) console.log(`  ${n} ${f}`)
  console.log("\nunchecked row reads")
  for (const [f, n] of countBy(unchecked)) console.log(`  ${n} ${f}`)
}
