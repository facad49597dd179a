// The build's second step: the dashboard's static files (stylesheet, script modules, icon) go
// beside the compiled modules that serve them (dist/src/Web/assets), as they sit beside the sources.
import { cpSync, rmSync } from "node:fs"

rmSync("dist/src/Web/assets", { recursive: true, force: true })
cpSync("src/Web/assets", "dist/src/Web/assets", { recursive: true })
