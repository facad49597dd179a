/**
 * Runs before every test file. `@effect/vitest`'s `layer(...)` gives its tests their layer by
 * assigning its own `effect`/`scoped`/… onto Vitest's one `it` object, which `@effect/vitest`'s `it`
 * also is; with the workers' module graphs shared between files (vitest.config.ts, `isolate:
 * false`), the next file's `it.effect` then ran in the last file's layer, without `TestClock`
 * ("testClock.adjust is not a function"), or without its own logger. Each file starts from the
 * plain methods again.
 */
import { it, makeMethods } from "@effect/vitest"

makeMethods(it)
