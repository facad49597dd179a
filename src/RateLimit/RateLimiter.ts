/**
 * Token buckets per caller (docs/integrators.md#rate-limits), in memory: one `Ref` holding an
 * immutable map of buckets, time from `Clock`. A bucket is stored as the tokens it held at its
 * last use; refill is computed on access. Buckets that would be full again carry no information,
 * so a scoped sweeper evicts them and memory stays bounded by the callers seen recently.
 *
 * With `REDIS_URL`, the buckets of every instance are shared in Redis (RedisBuckets.ts), drawn by
 * one atomic script per request on Redis's clock; the buckets here are the fallback while Redis
 * cannot be reached, so a request is never refused or failed because of Redis. Both apply the
 * same rule (`decide`) to the levels they read.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { repeatedly } from "../Runtime/Background.js"
import { AppConfig } from "../Config/AppConfig.js"
import { countRejection } from "../Telemetry/Metrics.js"
import type { Policy } from "./Policy.js"
import { RedisBuckets } from "./RedisBuckets.js"


interface Bucket {
  readonly policy: Policy
  readonly tokens: number
  readonly at: number
}

export interface PolicyState {
  readonly policy: Policy
  /** Whole requests that can be sent right now. */
  readonly remaining: number
  /** Seconds until the bucket is full again. */
  readonly fullInSeconds: number
}

export interface Decision {
  readonly allowed: boolean
  /** Seconds to wait before retrying; at least 1 when not allowed. */
  readonly retryAfter: number
  /** Every policy the request drew from, in the order given. */
  readonly states: ReadonlyArray<PolicyState>
  /** The policy closest to running out: the one the `X-RateLimit-*` headers describe. */
  readonly tightest: PolicyState
}

const refilled = (policy: Policy, bucket: Bucket | undefined, now: number): number =>
  bucket === undefined
    ? policy.capacity
    : Math.min(policy.capacity, bucket.tokens + Math.max(0, now - bucket.at) * policy.refillPerMillisecond)

const isFull = (bucket: Bucket, now: number): boolean => refilled(bucket.policy, bucket, now) >= bucket.policy.capacity

const secondsUntil = (missing: number, policy: Policy): number =>
  missing <= 0 ? 0 : Math.ceil(missing / policy.refillPerMillisecond / 1000)

const keyOf = (policy: Policy, caller: string) => `${policy.name}\u0000${caller}`

/**
 * What a request gets from buckets whose levels (tokens before this request, refilled to now) are
 * `levels`: allowed when each holds a whole token, and then each gives one.
 */
export const decide = (drawFrom: ReadonlyArray<Policy>, levels: ReadonlyArray<number>): Decision => {
  const allowed = levels.every((tokens) => tokens >= 1)
  const after = allowed ? levels.map((tokens) => tokens - 1) : levels
  const states = drawFrom.map((policy, i): PolicyState => ({
    policy,
    remaining: Math.max(0, Math.floor(after[i]!)),
    fullInSeconds: secondsUntil(policy.capacity - after[i]!, policy)
  }))
  const retryAfter = allowed ? 0 : Math.max(1, ...drawFrom.map((policy, i) => secondsUntil(1 - levels[i]!, policy)))
  let tightest = states[0]!
  for (const state of states) if (state.remaining <= tightest.remaining) tightest = state
  return { allowed, retryAfter, states, tightest }
}

/** A decision, its refusal counted for `/metrics` by the policy that ran out. */
const counted = (decision: Decision): Decision => {
  if (!decision.allowed) countRejection(decision.tightest.policy.name)
  return decision
}

export class RateLimiter extends Effect.Service<RateLimiter>()("Convene/RateLimiter", {
  scoped: Effect.gen(function*() {
    const { rateLimit } = yield* AppConfig
    const buckets = yield* Ref.make(HashMap.empty<string, Bucket>())
    const shared = yield* RedisBuckets
    const general: Policy = {
      name: "general",
      capacity: rateLimit.burst,
      refillPerMillisecond: rateLimit.perSecond / 1000
    }
    const bulk: Policy = {
      name: "bulk",
      capacity: rateLimit.bulkBurst,
      refillPerMillisecond: rateLimit.bulkPerMinute / 60_000
    }

    /**
     * Draws one token from each policy's bucket for `caller` in this process, all or nothing: a
     * request refused by any bucket consumes from none.
     */
    const takeHere = (caller: string, drawFrom: ReadonlyArray<Policy>): Effect.Effect<Decision> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(buckets, (map) => {
          const levels = drawFrom.map((policy) =>
            refilled(policy, Option.getOrUndefined(HashMap.get(map, keyOf(policy, caller))), now)
          )
          const decision = counted(decide(drawFrom, levels))
          const next = decision.allowed
            ? drawFrom.reduce((m, policy, i) => HashMap.set(m, keyOf(policy, caller), { policy, tokens: levels[i]! - 1, at: now }), map)
            : map
          return [decision, next] as const
        }))

    /** Draws from the shared buckets in Redis when there are some and Redis answers; else from this process's. */
    const take = (caller: string, drawFrom: ReadonlyArray<Policy>): Effect.Effect<Decision> =>
      shared.enabled
        ? Effect.flatMap(shared.draw(caller, drawFrom), (levels) =>
          Option.isSome(levels) ? Effect.sync(() => counted(decide(drawFrom, levels.value))) : takeHere(caller, drawFrom))
        : takeHere(caller, drawFrom)

    /** Removes the buckets that have refilled completely: they hold nothing a fresh one would not. */
    const evictFull: Effect.Effect<number> = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Ref.modify(buckets, (map) => {
        const kept = HashMap.filter(map, (bucket) => !isFull(bucket, now))
        return [HashMap.size(map) - HashMap.size(kept), kept] as const
      }))

    yield* repeatedly("rate-limit bucket eviction", evictFull, Duration.seconds(15))

    return {
      general,
      bulk,
      take,
      takeHere,
      evictFull,
      size: Effect.map(Ref.get(buckets), HashMap.size)
    } as const
  }),
  dependencies: [RedisBuckets.Default]
}) {}
