/**
 * Rate-limit response headers: the `X-RateLimit-*` pair integrators read, exact
 * (docs/integrators.md#rate-limits), and beside them the IETF draft's `RateLimit-Policy` / `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-09),
 * one quota policy per token bucket (quota = burst, window = seconds to refill it).
 */
import type { Policy } from "./Policy.js"
import type { Decision } from "./RateLimiter.js"

const windowSeconds = (policy: Policy) => Math.ceil(policy.capacity / policy.refillPerMillisecond / 1000)

export const rateLimitHeaders = (decision: Decision): Record<string, string> => ({
  "x-ratelimit-limit": String(decision.tightest.policy.capacity),
  "x-ratelimit-remaining": String(decision.tightest.remaining),
  "ratelimit-policy": decision.states
    .map(({ policy }) => `"${policy.name}";q=${policy.capacity};w=${windowSeconds(policy)}`)
    .join(", "),
  "ratelimit": decision.states
    .map(({ fullInSeconds, policy, remaining }) => `"${policy.name}";r=${remaining};t=${fullInSeconds}`)
    .join(", ")
})
