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
 * Redis must never cost a request more than `REDIS_TIMEOUT` (CONTRACT §19): a circuit breaker
 * (RedisBreaker.ts) lets a request wait that long at most, and the first request that fails or
 * waits longer (Redis down, or hung) sends this instance's requests to its own buckets for 10 s
 * at least, until a background PING is answered (at once when a dropped connection is made
 * again). Commands never queue while the connection is down (no offline queue), and ioredis gives
 * a command up itself soon after `REDIS_TIMEOUT`, so nothing waits on Redis behind the breaker's back.
 * A busy machine can make a healthy Redis slow to answer by tens of milliseconds, and counting
 * alone lets a caller through at the rate of every instance added up: the timeout is a few times
 * that. A draw given up after the timeout may still run in Redis once it answers: that caller's
 * shared bucket then holds a token fewer than it should. The switch both ways is logged once
 * (Warning when Redis is lost, Info when it is back). The URL, which may hold a password, is
 * never logged.
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import type { Redis } from "ioredis"
import { AppConfig } from "../Config/AppConfig.js"
import type { Policy } from "./Policy.js"
import { makeBreaker } from "./RedisBreaker.js"

/** How long the start waits for the first connection. */
const CONNECT_WAIT = "2 seconds"
/** How long Redis is left alone once a request failed or waited too long (CONTRACT §19). */
const LEFT_ALONE = "10 seconds"

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
  /** Whether requests draw from Redis now (false: this instance counts alone, or there is no Redis). */
  readonly sharing: Effect.Effect<boolean>
}

/** What went wrong with Redis, in a few words: ioredis's message, or the breaker's timeout. */
const messageOf = (reason: unknown): string => {
  const error = Cause.isUnknownException(reason) ? reason.error : reason
  return error instanceof Error ? error.message : String(error)
}

export const bucketKey = (policy: Policy, caller: string) => `convene:rl:${policy.name}:${caller}`

export class RedisBuckets extends Effect.Service<RedisBuckets>()("Convene/RedisBuckets", {
  scoped: Effect.gen(function*() {
    const { rateLimit } = yield* AppConfig
    if (Option.isNone(rateLimit.redisUrl)) {
      const none: SharedBuckets = { enabled: false, draw: () => Effect.succeedNone, sharing: Effect.succeed(false) }
      return none
    }
    const secretUrl = Redacted.value(rateLimit.redisUrl.value)
    const url = new URL(secretUrl)
    const where = `${url.hostname}:${url.port === "" ? "6379" : url.port}`
    // loaded only when shared limits are asked for: a start without REDIS_URL does not pay for it
    const { Redis } = yield* Effect.promise(() => import("./RedisClient.js"))
    const timeout = Duration.toMillis(rateLimit.redisTimeout)
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const redis = new Redis(secretUrl, {
          lazyConnect: true,
          // a command sent while the connection is down fails at once instead of waiting for it
          enableOfflineQueue: false,
          // nor is it sent again on the next connection
          maxRetriesPerRequest: 0,
          // the breaker stops waiting after REDIS_TIMEOUT; ioredis gives the command up a little
          // later (a promise of it left pending for as long as Redis hangs is of no use to anyone)
          commandTimeout: Math.ceil(2 * timeout),
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

    const breaker = yield* makeBreaker({
      timeout: rateLimit.redisTimeout,
      openFor: LEFT_ALONE,
      probe: Effect.tryPromise(() => client.ping()),
      onOpen: (reason) =>
        Effect.logWarning(
          `rate limits: Redis at ${where} cannot be reached (${
            messageOf(reason)
          }); this instance counts on its own until it answers again (asked every ${LEFT_ALONE})`
        ),
      onClose: Effect.logInfo(`rate limits: Redis at ${where} is back; limits are shared by every instance again`)
    })
    // a connection made again (Redis restarted) is worth a probe at once
    const runtime = yield* Effect.runtime<never>()
    const onReady = () => Runtime.runSync(runtime)(breaker.reconnected)
    client.on("ready", onReady)
    yield* Effect.addFinalizer(() => Effect.sync(() => client.off("ready", onReady)))

    // connected before the first request, so that it is not counted alone for want of a connection;
    // a Redis that cannot be reached at start does not hold the start up for more than a moment
    const connected = yield* Effect.tryPromise(() => client.connect()).pipe(Effect.timeout(CONNECT_WAIT), Effect.either)
    if (connected._tag === "Left") {
      yield* breaker.open(connected.left._tag === "UnknownException" ? connected.left.error : new Error(`no connection within ${CONNECT_WAIT}`))
    }

    const draw = (caller: string, drawFrom: ReadonlyArray<Policy>): Effect.Effect<Option.Option<ReadonlyArray<number>>> => {
      const keys = drawFrom.map((policy) => bucketKey(policy, caller))
      const args = drawFrom.flatMap((policy) => [policy.capacity, policy.refillPerMillisecond])
      return Effect.flatMap(
        breaker.guard(() => client.convene_draw(keys.length, ...keys, ...args)),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (answer) => {
            const levels = answer.slice(1).map(Number)
            return levels.length === drawFrom.length && levels.every(Number.isFinite)
              ? Effect.succeed(Option.some(levels))
              : Effect.as(breaker.open(new Error("unexpected answer to the rate-limit script")), Option.none())
          }
        })
      )
    }

    const shared: SharedBuckets = { enabled: true, draw, sharing: breaker.closed }
    return shared
  })
}) {}
