/**
 * Rate-limit buckets shared by every instance, in Redis (`REDIS_URL`), so that several instances
 * behind one load balancer give a caller the configured rate in all, not once per instance.
 *
 * One request draws from its buckets with one Lua script (`DRAW`), run atomically by Redis: it
 * reads the time from Redis's own clock (`TIME`, so instances whose clocks differ agree), refills
 * each bucket to that time, and takes a token from each only when every one holds a whole token
 * (all or nothing, as in this process). A bucket is a hash `{ tokens, at }` under
 * `convene:rl:<policy>:<caller>` that expires once it would be full again: an idle caller leaves
 * nothing behind. Our own script rather than a library's limiter (such as @effect/experimental's
 * RateLimiter): a request draws from two buckets at once (the general one and the bulk one for
 * `PUT /persons`) and must take from both or neither, and the answer's headers need each bucket's
 * level; a single-key limiter gives neither.
 *
 * Redis must never cost a request: commands fail at once while the connection is down (no offline
 * queue) and after a second when Redis does not answer (a busy machine can make a healthy Redis
 * slow to answer by tens of milliseconds; counting alone then would let a caller through at the
 * rate of every instance added up); then `draw` answers none and the caller
 * counts in this process's buckets instead, and Redis is left alone for a second before it is
 * tried again. The switch both ways is logged once (Warning when Redis is lost, Info when it is
 * back). The URL, which may hold a password, is never logged.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import type { Redis } from "ioredis"
import { AppConfig } from "../Config/AppConfig.js"
import type { Policy } from "./Policy.js"

/** How long a command may take before the request counts in this process. */
const COMMAND_TIMEOUT_MS = 1_000
/** How long the start waits for the first connection. */
const CONNECT_WAIT = "2 seconds"
/** How long Redis is left alone after a failure. */
const PAUSE_AFTER_FAILURE_MS = 1_000

/**
 * KEYS: the buckets. ARGV: per bucket, its capacity and its refill per millisecond. Answers
 * `[allowed, level 1, level 2, ...]`, each level the bucket's tokens before this request (as text:
 * Redis would truncate a Lua number to an integer).
 */
const DRAW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local levels = {}
local allowed = 1
for i = 1, #KEYS do
  local capacity = tonumber(ARGV[2 * i - 1])
  local rate = tonumber(ARGV[2 * i])
  local bucket = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens = capacity
  if bucket[1] then
    tokens = math.min(capacity, tonumber(bucket[1]) + math.max(0, now - tonumber(bucket[2])) * rate)
  end
  levels[i] = tokens
  if tokens < 1 then allowed = 0 end
end
local answer = { allowed }
for i = 1, #KEYS do
  if allowed == 1 then
    local capacity = tonumber(ARGV[2 * i - 1])
    local rate = tonumber(ARGV[2 * i])
    local left = levels[i] - 1
    redis.call('HSET', KEYS[i], 'tokens', string.format('%.17g', left), 'at', now)
    redis.call('PEXPIRE', KEYS[i], math.ceil((capacity - left) / rate) + 1000)
  end
  answer[#answer + 1] = string.format('%.17g', levels[i])
end
return answer
`

type DrawingClient = Redis & {
  readonly convene_draw: (keyCount: number, ...args: Array<string | number>) => Promise<Array<string | number>>
}

export interface SharedBuckets {
  /** Whether `REDIS_URL` is set. */
  readonly enabled: boolean
  /**
   * Draws one token from each bucket for `caller`, all or nothing, answering each bucket's level
   * before the draw; none when Redis cannot be asked (the caller then counts in this process).
   */
  readonly draw: (caller: string, drawFrom: ReadonlyArray<Policy>) => Effect.Effect<Option.Option<ReadonlyArray<number>>>
}

export const bucketKey = (policy: Policy, caller: string) => `convene:rl:${policy.name}:${caller}`

export class RedisBuckets extends Effect.Service<RedisBuckets>()("Convene/RedisBuckets", {
  scoped: Effect.gen(function*() {
    const { rateLimit } = yield* AppConfig
    if (Option.isNone(rateLimit.redisUrl)) {
      const none: SharedBuckets = { enabled: false, draw: () => Effect.succeedNone }
      return none
    }
    const secretUrl = Redacted.value(rateLimit.redisUrl.value)
    const url = new URL(secretUrl)
    const where = `${url.hostname}:${url.port === "" ? "6379" : url.port}`
    // loaded only when shared limits are asked for: a start without REDIS_URL does not pay for it
    const { Redis } = yield* Effect.promise(() => import("./RedisClient.js"))
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const redis = new Redis(secretUrl, {
          lazyConnect: true,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          commandTimeout: COMMAND_TIMEOUT_MS,
          connectTimeout: 2_000,
          // reconnect for ever, at most every 2 seconds
          retryStrategy: (times) => Math.min(times * 100, 2_000)
        })
        // connection errors are reported through `draw`'s failures; an unheard 'error' event would end the process
        redis.on("error", () => {})
        redis.defineCommand("convene_draw", { lua: DRAW })
        return redis as DrawingClient
      }),
      (redis) => Effect.promise(() => redis.quit().catch(() => redis.disconnect()))
    )
    /** Until when Redis is left alone (epoch ms), and whether it is down: the log says each switch once. */
    const state = yield* Ref.make({ pausedUntil: 0, down: false })

    const lost = (cause: unknown) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          Ref.modify(state, (s) => [s.down, { pausedUntil: now + PAUSE_AFTER_FAILURE_MS, down: true }] as const),
          (wasDown) =>
            wasDown ? Effect.void : Effect.logWarning(
              `rate limits: Redis at ${where} cannot be reached (${
                cause instanceof Error ? cause.message : String(cause)
              }); each instance counts on its own until it is back`
            )
        ))

    // connected before the first request, so that it is not counted alone for want of a connection;
    // a Redis that cannot be reached at start does not hold the start up for more than a moment
    const connected = yield* Effect.tryPromise(() => client.connect()).pipe(Effect.timeout(CONNECT_WAIT), Effect.either)
    if (connected._tag === "Left") {
      yield* lost(connected.left._tag === "UnknownException" ? connected.left.error : new Error(`no connection within ${CONNECT_WAIT}`))
    }

    const draw = (caller: string, drawFrom: ReadonlyArray<Policy>): Effect.Effect<Option.Option<ReadonlyArray<number>>> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if ((yield* Ref.get(state)).pausedUntil > now) return Option.none()
        const keys = drawFrom.map((policy) => bucketKey(policy, caller))
        const args = drawFrom.flatMap((policy) => [policy.capacity, policy.refillPerMillisecond])
        const answer = yield* Effect.tryPromise(() => client.convene_draw(keys.length, ...keys, ...args)).pipe(Effect.either)
        if (answer._tag === "Left") {
          yield* lost(answer.left.error)
          return Option.none()
        }
        const levels = answer.right.slice(1).map(Number)
        if (levels.length !== drawFrom.length || levels.some((n) => !Number.isFinite(n))) {
          yield* lost(new Error("unexpected answer to the rate-limit script"))
          return Option.none()
        }
        const wasDown = yield* Ref.modify(state, (s) => [s.down, { pausedUntil: 0, down: false }] as const)
        if (wasDown) yield* Effect.logInfo(`rate limits: Redis at ${where} is back; limits are shared by every instance again`)
        return Option.some(levels)
      })

    const shared: SharedBuckets = { enabled: true, draw }
    return shared
  })
}) {}
