/**
 * What PostgreSQL's client tells `/metrics` (CONTRACT §19; the serializer is
 * src/Telemetry/Prometheus.ts): the pool's connections by state, read when scraped
 * (`PoolStatus`, provided by Postgres.ts's layer; absent on SQLite), and how long write
 * transactions wait for the write lock (`WRITE_LOCK`), kept as they run. Effect's `Metric`
 * registry is the process's: the scrape takes a snapshot of it.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"

/** The pool's connections now. */
export interface PoolState {
  readonly inUse: number
  readonly idle: number
  /** Statements waiting for a connection of the pool. */
  readonly waiting: number
  /** The most connections the pool opens (`DATABASE_POOL_SIZE`). */
  readonly max: number
}

export class PoolStatus extends Context.Tag("Convene/PoolStatus")<PoolStatus, () => PoolState>() {}

/** Seconds, from a millisecond to ten seconds. */
const WAITS = MetricBoundaries.fromIterable([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])

/** The write lock's statement (`pg_advisory_xact_lock`), from sent to answered: the wait behind every instance's writers. */
export const writeLockWait = Metric.histogram(
  "convene_db_write_lock_wait_seconds",
  WAITS,
  "Time a write transaction waited for the write lock (PostgreSQL advisory lock shared by every instance)"
)

/** The wait in this process for one of the write transactions' connections (`WRITERS_WITH_A_CONNECTION`). */
export const writeQueueWait = Metric.histogram(
  "convene_db_write_queue_wait_seconds",
  WAITS,
  "Time a write transaction waited in this instance for its turn to take a connection and ask for the write lock"
)

export const writeLockWaiting = Metric.gauge("convene_db_write_lock_waiting", {
  description: "Write transactions of this instance waiting for the write lock now"
})

/**
 * `effect` timed into `histogram` (seconds, by the `Clock`), however it ends, and counted in
 * `waiting` while it runs.
 */
export const timedWait = (histogram: Metric.Metric.Histogram<number>, waiting?: Metric.Metric.Gauge<number>) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const started = clock.unsafeCurrentTimeNanos()
    waiting?.unsafeModify(1, [])
    return Effect.ensuring(
      effect,
      Effect.sync(() => {
        waiting?.unsafeModify(-1, [])
        histogram.unsafeUpdate(Number(clock.unsafeCurrentTimeNanos() - started) / 1e9, [])
      })
    )
  })

/** The write lock's statement, timed and counted. */
export const timedLock = timedWait(writeLockWait, writeLockWaiting)

/**
 * The wait for a writer's turn in this process, timed: from now until `use` runs the effect it is
 * given (once its permit is taken).
 */
export const timedQueue = <A, E, R>(use: (entered: Effect.Effect<void>) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const started = clock.unsafeCurrentTimeNanos()
    return use(Effect.sync(() => writeQueueWait.unsafeUpdate(Number(clock.unsafeCurrentTimeNanos() - started) / 1e9, [])))
  })
