// The import rules of ARCHITECTURE.md, checked by `npm run lint:deps` (run by `npm test`). The
// layers and the features' order are in scripts/plan/layers.cjs. Today's exceptions are listed in
// .dependency-cruiser-known-violations.json: the checker passes over those and fails on any other.
// When you remove one, regenerate the list (`npm run lint:deps:baseline`) and commit it.
/** @type {import('dependency-cruiser').IConfiguration} */
const { COMPOSED_ONLY, COMPOSERS, FEATURE_FILES, FEATURES, PATHS } = require("./scripts/plan/layers.cjs")

const either = (...patterns) => patterns.join("|")
const notEdge = PATHS.edge

/** A feature imports only the features before it in the order (their edge files aside: it imports none). */
const featureOrder = FEATURES.slice(0, -1).map((feature, i) => ({
  name: `feature-order-${feature}`,
  comment: `${feature} may import only ${FEATURES.slice(0, i).join(", ") || "no other feature"} (ARCHITECTURE.md, "Features")`,
  severity: "error",
  from: { path: `^src/${feature}/`, pathNot: notEdge },
  to: { path: `^src/(${FEATURES.slice(i + 1).join("|")})/` }
}))

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycles, of any length, type-only imports included.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true }
    },
    {
      name: "kernel-imports-kernel",
      comment: "Domain/ and Config/ (and src/Paths.ts) import nothing else of src/.",
      severity: "error",
      from: { path: PATHS.kernel },
      to: { path: "^src/", pathNot: PATHS.kernel }
    },
    {
      name: "database-imports-kernel",
      comment: "Db/ imports only the kernel: every engine difference lives there, knowing no feature.",
      severity: "error",
      from: { path: PATHS.database },
      to: { path: either(PATHS.platform, FEATURE_FILES, PATHS.edge, PATHS.composition) }
    },
    {
      name: "platform-knows-no-feature",
      comment: "The platform (Runtime, Http, RateLimit, Idempotency, Outbox, Csv) imports the kernel, the database and itself.",
      severity: "error",
      from: { path: PATHS.platform },
      to: { path: either(FEATURE_FILES, PATHS.edge, PATHS.composition) }
    },
    {
      name: "features-below-edges",
      comment: "A feature's services and repositories import no edge (Api.ts, Http.ts, Web/, Ops/, Cli/, Client/) and no composition.",
      severity: "error",
      from: { path: FEATURE_FILES, pathNot: notEdge },
      to: { path: either(PATHS.edge, PATHS.composition) }
    },
    {
      name: "edges-below-composition",
      comment: "Edges import no composition file (the typed client imports the root Api, which it is the client of).",
      severity: "error",
      from: { path: PATHS.edge },
      to: { path: PATHS.composition, pathNot: "^src/Api\\.ts$" }
    },
    ...featureOrder,
    {
      name: "no-foreign-repository",
      comment: "A repository (*Repo.ts) is imported only from its own folder: others ask its feature's service.",
      severity: "error",
      from: { path: "^src/([^/]+)/" },
      to: { path: "^src/[^/]+/[^/]*Repo\\.ts$", pathNot: "^src/$1/" }
    },
    {
      name: "composed-only-at-the-top",
      comment: "The root Api, the outbox's dispatcher and the channels are imported by src/Server.ts, src/main.ts and src/cli.ts only (and the root Api by the typed client).",
      severity: "error",
      from: { pathNot: COMPOSERS },
      to: { path: COMPOSED_ONLY }
    },
    {
      name: "web-kit-knows-no-area",
      comment: "The dashboard's kit (src/Web/Kit/) is what every page uses: it imports no area of the dashboard (ARCHITECTURE.md, \"Where the dashboard's pages go\").",
      severity: "error",
      from: { path: "^src/Web/Kit/" },
      to: { path: "^src/Web/", pathNot: "^src/Web/Kit/" }
    },
    {
      name: "web-routes-of-their-area",
      comment: "An area's routes (src/Web/<Area>/*Routes.ts) are composed by its own Routes.ts and src/Web/Dashboard.ts (the RSVP page's by src/Server.ts): another area uses its pages and helpers, never its routes.",
      severity: "error",
      from: { path: "^src/Web/([^/]+)/" },
      to: { path: "^src/Web/[^/]+/[^/]*Routes\\.ts$", pathNot: "^src/Web/$1/" }
    },
    {
      name: "web-routes-composed-by-the-dashboard",
      comment: "Outside src/Web/, only the composition (src/Server.ts) imports the dashboard's routes.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/Web/|^src/Server\\.ts$" },
      to: { path: "^src/Web/.*Routes\\.ts$" }
    },
    {
      name: "src-not-to-tests",
      comment: "The service does not import its tests or benchmarks.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|examples)/" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/Web/Kit/assets/" },
    // type-only imports count: a type imported against the layers is a dependency all the same
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs"]
    },
    reporterOptions: { text: { highlightFocused: true } }
  }
}
