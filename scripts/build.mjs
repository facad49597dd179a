// `npm run build`: the service as `npm start`, the container and the tests' child processes run it.
//
// - dist/src/main.js (the service), dist/src/cli.js (the admin CLI) and dist/src/Client/index.js
//   (the typed client, `convene/client`) are bundled by esbuild, with the modules they share in
//   dist/src/chunk-*.js. One bundle loads in a fraction of the time Node's loader takes for the
//   ~1,500 modules of the dependency graph one by one (start-up: bench/RESULTS.md, issue 18).
//   better-sqlite3 stays a package (a native addon); the rest is in the bundle.
// - the migrations are compiled one file each to dist/migrations/ (and dist/migrations/pg/): the
//   Migrator imports the numbered files it has not applied yet, and only those.
// - files read at run time are copied beside the bundles, where src/Paths.ts finds them:
//   src/Web/Kit/assets -> dist/src/Web/Kit/assets, docs -> dist/docs.
// - the dashboard's assets are compressed once, here: `<hashed name>.br` and `.gz` beside each
//   compressible asset in dist/src/Web/Kit/assets (src/Web/Kit/AssetFiles.ts, bundled and run by
//   this step: the same files, names and hashes as the service's), which the service only reads.
//
// Types are checked by `npm run typecheck` (tsc), which `npm test` runs first; this step only
// translates.
import { build } from "esbuild"
import { cpSync, readdirSync, rmSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
const quiet = process.argv.includes("--quiet")

rmSync(dist, { recursive: true, force: true })

const common = {
  // the compiler settings of the sources: JSX for preact, class fields as ES2022 defines them
  tsconfig: join(root, "tsconfig.base.json"),
  platform: "node",
  target: "node20",
  format: "esm",
  // packages written as CommonJS (pg, ioredis, csv-parse's dependencies) call `require`
  banner: { js: "import { createRequire as __createRequire } from \"node:module\"; const require = __createRequire(import.meta.url);" },
  logLevel: quiet ? "error" : "warning",
  legalComments: "none"
}

await build({
  ...common,
  entryPoints: {
    main: join(root, "src/main.ts"),
    cli: join(root, "src/cli.ts"),
    "Client/index": join(root, "src/Client/index.ts")
  },
  outdir: join(dist, "src"),
  bundle: true,
  splitting: true,
  // the shared chunks sit beside main.js, at the depth src/Paths.ts resolves its files from
  chunkNames: "chunk-[hash]",
  // a native addon, and pg's optional native binding (never installed)
  external: ["better-sqlite3", "pg-native"],
  minifyWhitespace: true,
  minifySyntax: true,
  // for profiles (bench/profile-buckets.mjs maps samples back to src/ and node_modules/); not
  // linked from the bundles, so Node never reads them
  sourcemap: "external",
  sourcesContent: false
})

const migrationFiles = (folder) =>
  readdirSync(join(root, folder)).filter((name) => /^\d+_[^.]+\.ts$/.test(name)).map((name) => join(root, folder, name))

await build({
  ...common,
  banner: undefined,
  entryPoints: [...migrationFiles("migrations"), ...migrationFiles("migrations/pg")],
  outbase: root,
  outdir: dist,
  bundle: false
})

cpSync(join(root, "src/Web/Kit/assets"), join(dist, "src/Web/Kit/assets"), { recursive: true })
cpSync(join(root, "docs"), join(dist, "docs"), { recursive: true })

// the assets' compressed forms (brotli at its highest quality, gzip level 9), made once for every image
const assetFiles = await build({
  ...common,
  banner: undefined,
  entryPoints: [join(root, "src/Web/Kit/AssetFiles.ts")],
  bundle: true,
  write: false
})
const { writeEncoded } = await import(`data:text/javascript;base64,${Buffer.from(assetFiles.outputFiles[0].contents).toString("base64")}`)
const encoded = writeEncoded(pathToFileURL(join(dist, "src/Web/Kit/assets/")))
if (!quiet) {
  const sizes = encoded.map(({ bytes, file, of }) => `${file.replace(/\.[\w-]{10}\./, ".")} ${(bytes / 1024).toFixed(1)}/${(of / 1024).toFixed(1)} KB`)
  console.log(`assets compressed: ${sizes.join(", ")}`)
}
