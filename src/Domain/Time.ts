import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
/** The current time from `Clock`, as the ISO 8601 text the database and the API carry. */
export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())
