// `node bench/profile-heap-owners.mjs <profile> <requests>`: KB allocated per request in a sampling heap
// profile from bench/heap-sampling.cjs, by owner (the nearest Convene file or @effect package frame
// from the allocation site, up to the fiber loop) and by allocating function.
import { readFileSync } from "node:fs"
const [file, requests] = process.argv.slice(2)
const p = JSON.parse(readFileSync(file, "utf8"))
const self = new Map(); const owner = new Map(); let total = 0
const name = (cf) => `${cf.functionName || "(anon)"} ${cf.url.replace(/^.*node_modules\//, "").replace(/^.*dist\/src\//, "src/")}:${cf.lineNumber + 1}`
const walk = (node, stack) => {
  const cf = node.callFrame
  const st = [...stack, cf]
  if (node.selfSize > 0) {
    total += node.selfSize
    const k = name(cf); self.set(k, (self.get(k) ?? 0) + node.selfSize)
    // owner: first project frame from the leaf, else first non-effect package frame
    let o = "(effect runtime / other)"
    for (let i = st.length - 1; i >= 0; i--) {
      const u = st[i].url
      if (/dist\/src\//.test(u)) { o = "src/" + u.replace(/^.*dist\/src\//, "").replace(/\.js$/, ".ts"); break }
      if (/fiberRuntime/.test(u) && /^(runLoop|evaluateEffect)$/.test(st[i].functionName)) break
      if (/node_modules\/(@effect\/[^/]+|better-sqlite3|find-my-way-ts)\//.test(u)) { o = u.match(/node_modules\/(@effect\/[^/]+|better-sqlite3|find-my-way-ts)/)[1] + "/" + u.replace(/^.*\/(esm|cjs|lib)\//, ""); break }
      if (/^node:/.test(u)) { o = u; }
    }
    owner.set(o, (owner.get(o) ?? 0) + node.selfSize)
  }
  for (const c of node.children ?? []) walk(c, st)
}
walk(p.head, [])
const kb = (b) => (b / 1024 / Number(requests)).toFixed(1)
console.log(`allocated ${kb(total)} KB per request (sampled, collected objects included)`)
console.log("\nby owner (first Convene/@effect package frame from the allocation site; KB/request)")
for (const [k, v] of [...owner].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(kb(v).padStart(7), k)
console.log("\nby allocating function")
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(kb(v).padStart(7), k)
