/**
 * What the rate limiter adds to a request: the cost of one `take` (bucket lookup, refill, update
 * of the immutable map) plus the response headers, measured over many callers with the live
 * clock. Run: `npm run bench:ratelimit`.
 */
import { Effect, Layer } from "effect"
import { AppConfig, appConfig } from "../src/Config/AppConfig.js"
import { rateLimitHeaders } from "../src/RateLimit/Headers.js"
import { RateLimiter } from "../src/RateLimit/RateLimiter.js"

const measure = (callers: number, iterations: number, bulk: boolean) =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter
    const policies = bulk ? [limiter.general, limiter.bulk] : [limiter.general]
    const keys = Array.from({ length: callers }, (_, i) => `apiKey:${i}`)
    for (let i = 0; i < 20_000; i++) rateLimitHeaders(yield* limiter.take(keys[i % callers]!, policies))
    const start = process.hrtime.bigint()
    for (let i = 0; i < iterations; i++) rateLimitHeaders(yield* limiter.take(keys[i % callers]!, policies))
    const nanos = Number(process.hrtime.bigint() - start) / iterations
    return { callers, policies: policies.map((p) => p.name).join("+"), "µs per request": (nanos / 1000).toFixed(2) }
  })

const program = Effect.gen(function*() {
  const rows = []
  for (const callers of [1, 1_000, 100_000]) {
    rows.push(yield* measure(callers, 200_000, false))
  }
  rows.push(yield* measure(1_000, 200_000, true))
  console.table(rows)
}).pipe(
  Effect.provide(RateLimiter.Default.pipe(
    Layer.provide(Layer.effect(AppConfig, appConfig)),
  ))
)

Effect.runPromise(program)
