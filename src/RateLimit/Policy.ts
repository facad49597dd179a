/** A rate limit: a token bucket per caller, by name (RateLimiter.ts; shared in Redis, RedisBuckets.ts). */
export interface Policy {
  readonly name: string
  readonly capacity: number
  /** Tokens added per millisecond. */
  readonly refillPerMillisecond: number
}
