/**
 * What `GET /metrics` answers (CONTRACT §19; Ops/Metrics.ts serves it): the registry's metrics,
 * kept as the service runs (Metrics.ts, Db/PostgresMetrics.ts), and what is read at the moment of
 * the scrape: the outbox's backlog from the database (Outbox/Backlog.ts), PostgreSQL's pool,
 * whether the rate limits are shared through Redis, readiness, the process's memory and event-loop
 * delay, and the build. Families and labels: README.md, "Watching Convene".
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import { readFileSync } from "node:fs"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { AppConfig } from "../Config/AppConfig.js"
import { PoolStatus, writeLockWait, writeLockWaiting, writeQueueWait } from "../Db/PostgresMetrics.js"
import { OutboxBacklog } from "../Outbox/Backlog.js"
import { PACKAGE_FILES } from "../Paths.js"
import { RedisBuckets } from "../RateLimit/RedisBuckets.js"
import { Readiness } from "../Runtime/Readiness.js"
import { OWN_PREFIX, registerDefaults } from "./Metrics.js"
import { type Family, fromSnapshot, gauge, render } from "./Prometheus.js"

/** The longest a scrape waits for the database; past it, what it reads there is left out (`convene_database_up` 0). */
const DATABASE_WAIT = Duration.seconds(2)

/** The version in the project's `package.json`. */
const packageVersion = (): string => {
  for (const file of PACKAGE_FILES) {
    try {
      const { name, version } = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string }
      if (name === "convene" && typeof version === "string") return version
    } catch {
      // not there: the next
    }
  }
  return "unknown"
}

const nanos = (value: number) => (Number.isFinite(value) ? value / 1e9 : 0)

export class Scrape extends Effect.Service<Scrape>()("Convene/MetricsScrape", {
  scoped: Effect.gen(function*() {
    const config = yield* AppConfig
    const backlog = yield* OutboxBacklog
    const redis = yield* RedisBuckets
    const readiness = yield* Readiness
    const pool = yield* Effect.serviceOption(PoolStatus)
    const build = gauge("convene_build_info", "The running build: its version, database engine and Node.js version (always 1)", [[[
      ["version", packageVersion()],
      ["engine", Option.isSome(config.databaseUrl) ? "postgresql" : "sqlite"],
      ["node", process.versions.node]
    ], 1]])
    registerDefaults()
    if (Option.isSome(pool)) [writeLockWait, writeQueueWait, writeLockWaiting].forEach((metric) => metric.register())

    // the event loop's delay, sampled every 10 ms by Node, since the last scrape
    const delay = monitorEventLoopDelay({ resolution: 10 })
    delay.enable()
    yield* Effect.addFinalizer(() => Effect.sync(() => delay.disable()))

    const eventLoop = (): ReadonlyArray<Family> => {
      const families = [
        gauge("nodejs_eventloop_lag_mean_seconds", "Mean event-loop delay since the last scrape", nanos(delay.mean)),
        gauge("nodejs_eventloop_lag_p50_seconds", "Median event-loop delay since the last scrape", nanos(delay.percentile(50))),
        gauge("nodejs_eventloop_lag_p90_seconds", "90th percentile of the event-loop delay since the last scrape", nanos(delay.percentile(90))),
        gauge("nodejs_eventloop_lag_p99_seconds", "99th percentile of the event-loop delay since the last scrape", nanos(delay.percentile(99))),
        gauge("nodejs_eventloop_lag_max_seconds", "Longest event-loop delay since the last scrape", nanos(delay.max))
      ]
      delay.reset()
      return families
    }

    const memory = (): ReadonlyArray<Family> => {
      const usage = process.memoryUsage()
      return [
        gauge("process_resident_memory_bytes", "Resident memory size of the process", usage.rss),
        gauge("nodejs_heap_size_used_bytes", "V8 heap in use", usage.heapUsed),
        gauge("nodejs_heap_size_total_bytes", "V8 heap allocated", usage.heapTotal),
        gauge("nodejs_external_memory_bytes", "Memory of C++ objects bound to JavaScript objects (buffers among them)", usage.external)
      ]
    }

    const database = Effect.gen(function*() {
      const read = yield* Effect.either(Effect.timeout(backlog.read, DATABASE_WAIT))
      const up = gauge("convene_database_up", "1 when this scrape's reads of the database answered (within 2 s), else 0", Either.isRight(read) ? 1 : 0)
      if (Either.isLeft(read)) return [up]
      const { channels, claimants } = read.right
      const perChannel = (name: string, help: string, value: (c: typeof channels[number]) => number) =>
        gauge(name, help, channels.map((c) => [[["channel", c.channel]], value(c)] as const))
      const families: Array<Family> = [
        up,
        perChannel("convene_outbox_pending", "Outbox deliveries not yet delivered, failed or cancelled, by channel (the whole outbox, every instance's)", (c) => c.pending),
        perChannel("convene_outbox_due", "Pending outbox deliveries due now (being attempted or waiting for a slot), by channel", (c) => c.due),
        perChannel("convene_outbox_oldest_pending_age_seconds", "Age of the oldest pending outbox delivery, by channel (0 when none)", (c) => c.oldestPendingSeconds),
        perChannel(
          "convene_outbox_oldest_due_age_seconds",
          "How long the most overdue pending delivery has been due, by channel (0 when none is due): the dispatcher's lag",
          (c) => c.oldestDueSeconds
        )
      ]
      if (claimants !== undefined) {
        families.push(gauge("convene_outbox_instances", "Instances claiming outbox deliveries, by heartbeat: live, or stale (15 s without one)", [
          [[["state", "live"]], claimants.live],
          [[["state", "stale"]], claimants.stale]
        ]))
      }
      return families
    })

    const text = Effect.gen(function*() {
      const ready = yield* Effect.isSuccess(Effect.timeout(readiness.check, DATABASE_WAIT))
      const sharing = redis.enabled ? yield* redis.sharing : false
      const families: Array<Family> = [
        build,
        gauge("convene_ready", "1 when /readyz answers 200 (database reachable, migrated, not shutting down), else 0", ready ? 1 : 0),
        gauge("convene_rate_limit_redis_configured", "1 when REDIS_URL is set", redis.enabled ? 1 : 0),
        gauge("convene_rate_limit_redis_in_use", "1 while the rate limits are shared through Redis, 0 while this instance counts alone", sharing ? 1 : 0),
        ...(yield* database),
        ...memory(),
        ...eventLoop()
      ]
      if (Option.isSome(pool)) {
        const state = pool.value()
        families.push(
          gauge("convene_db_pool_connections", "PostgreSQL pool: connections in use and idle, and statements waiting for one", [
            [[["state", "in_use"]], state.inUse],
            [[["state", "idle"]], state.idle],
            [[["state", "waiting"]], state.waiting]
          ]),
          gauge("convene_db_pool_max_connections", "PostgreSQL pool: the most connections it opens (DATABASE_POOL_SIZE)", state.max)
        )
      }
      const registry = fromSnapshot(yield* Metric.snapshot, (name) => name.startsWith(OWN_PREFIX))
      return render([...registry, ...families])
    })

    return { text } as const
  }),
  dependencies: [OutboxBacklog.Default, RedisBuckets.Default]
}) {}
