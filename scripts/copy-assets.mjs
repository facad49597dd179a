// The build's second step: files the compiled service reads at run time go beside the compiled
// modules that serve them, as they sit beside the sources:
// - the dashboard's static files (stylesheet, script modules, icon): src/Web/assets -> dist/src/Web/assets;
// - the integrator's guide served at /docs/guide (src/Ops/Guide.ts): docs -> dist/docs.
import { cpSync, rmSync } from "node:fs"

rmSync("dist/src/Web/assets", { recursive: true, force: true })
cpSync("src/Web/assets", "dist/src/Web/assets", { recursive: true })
rmSync("dist/docs", { recursive: true, force: true })
cpSync("docs", "dist/docs", { recursive: true })
