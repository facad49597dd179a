/**
 * The change feed's retention: a fiber owned by the server's scope deletes the changes older than
 * `CHANGES_RETENTION` (default 30 days), at start and then every tenth of the retention (at most
 * every 10 minutes, at least every 100 ms). It stops when the server closes; a pass that fails
 * (the database unreachable a while) is logged and the next one tries again (src/Runtime/Background.ts).
 * The admin CLI does not run it.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { repeatedly, retentionPause } from "../Runtime/Background.js"
import { AppConfig } from "../Config/AppConfig.js"
import { Changes } from "./Changes.js"

export { retentionPause } from "../Runtime/Background.js"

export const ChangesRetentionLive = Layer.scopedDiscard(Effect.gen(function*() {
  const { changesRetention } = yield* AppConfig
  const changes = yield* Changes
  const pass = changes.prune(changesRetention).pipe(
    Effect.tap((deleted) => deleted === 0 ? Effect.void : Effect.logDebug(`change feed: ${deleted} changes past the retention deleted`))
  )
  yield* repeatedly("change feed retention", pass, retentionPause(changesRetention))
}))
