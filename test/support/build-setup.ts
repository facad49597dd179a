/**
 * Vitest's global setup for the tiers that start the service or the admin CLI as processes (the
 * slow tier, vitest.config.ts): they run the build of the code under test, `dist/` (Build.ts),
 * built once per run before any of their files, whichever of their projects asks first.
 */
import { build } from "./Build.js"

const KEY = Symbol.for("convene/test-build-setup")
const registry = globalThis as unknown as { [KEY]?: Promise<void> }

export async function setup() {
  registry[KEY] ??= Promise.resolve().then(build)
  await registry[KEY]
}
