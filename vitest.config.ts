import { defineConfig } from "vitest/config"

/**
 * The suite in tiers, each a folder (README, "Development"; ARCHITECTURE.md, "Tests"):
 *
 * - `unit` (test/unit/): pure modules and services alone, over stub layers (test/support/TestLayer.ts),
 *   under `TestClock` where time matters. No database, no server.
 * - `repo` (test/repo/): repositories and services over a real database, without HTTP. The only tier
 *   that runs on both engines by default: what the engines do differently is proven here.
 * - `api` (test/api/): the application in process (test/support/InProcess.ts: the service's own HTTP
 *   server without a port), through the typed client and raw requests. SQLite.
 * - `slow` (test/slow/): what needs real sockets, processes, browsers or time: killed and restarted
 *   services, Chromium, latency and memory under load. SQLite. `test/slow/pg/` holds the tests of
 *   PostgreSQL alone (several instances, the pool), which run in the PostgreSQL pass only.
 *
 * The projects below are how the tiers are scheduled, not the tiers themselves. With
 * `isolate: false`, Vitest runs a group's projects one after the other (each project's files two at
 * a time, then fresh workers for the next project): every project costs a tail with one worker idle
 * and a module graph loaded again, so there are as few as the schedule needs.
 *
 * - SQLite (`npm run test:fast`, `npm test`'s first pass): `fast` (the unit, repo and api tiers),
 *   `slow` (the slow tier, built service, Chromium), then `slow-alone` (`ALONE`, one at a time).
 * - PostgreSQL (`CONVENE_TEST_ENGINE=postgres`, test/support/postgres-pass.mjs): `pg` (the repo tier,
 *   test/slow/pg/ and `BOTH_ENGINES`), `pgbouncer` (`POOLED`: the same service through PgBouncer in
 *   transaction mode), then `pg-alone` and `pgbouncer-alone` (their files that measure, one at a
 *   time). `fast`, `slow` and `slow-alone` exist there too (without those files), for given files
 *   (`npm run test:pg -- <files>`).
 */
const onPostgres = process.env["CONVENE_TEST_ENGINE"] === "postgres"

/**
 * Slow files that measure time or memory (latency under load, the event loop during an import,
 * peak RSS, a shutdown's timing, shared rate limits within 5%): they run one at a time once the
 * others are done, with the machine to themselves, so that what they measure is their own work.
 * The other files run two at a time, among them those that SIGKILL the service in the middle of
 * writes and judge what survived (crash, idempotency-crash, webhooks-crash), whatever the timing.
 */
const ALONE = [
  "test/slow/concurrency.test.ts",
  "test/slow/csv-guests-scale.test.ts",
  "test/slow/csv-persons-scale.test.ts",
  "test/slow/email.test.ts",
  "test/slow/invitations-restart.test.ts",
  "test/slow/large-answers.test.ts",
  "test/slow/rate-limit-redis.test.ts",
  "test/slow/redis-hung.test.ts",
  "test/slow/shutdown.test.ts",
  "test/slow/slow-readers.test.ts",
  "test/slow/streamed-answers.test.ts",
  "test/slow/webhook-receivers.test.ts",
  "test/slow/webhooks-pool.test.ts"
]

/**
 * Files whose subject is the engine's as much as the service's (a crash in the middle of a
 * transaction, a shutdown that closes the pool, a failing statement's log line, backups, keys held
 * by a killed instance, the outbox's retention, the pool's metrics, the SQL in traces), or with
 * tests of PostgreSQL's own beside the others (a drain behind Caddy, an instance that hangs): in
 * the PostgreSQL pass too, in the `pg` project, beside test/slow/pg/ (and on PostgreSQL, only
 * there). Slow files mostly; an API file here is the in-process service on the suite's engine.
 */
const BOTH_ENGINES = [
  "test/api/metrics.test.ts",
  "test/api/outbox-retention.test.ts",
  "test/slow/crash.test.ts",
  "test/slow/drain.test.ts",
  "test/slow/idempotency-crash.test.ts",
  "test/slow/large-answers.test.ts",
  "test/slow/logging.test.ts",
  "test/slow/operations.test.ts",
  "test/slow/reminders.test.ts",
  "test/slow/shutdown.test.ts",
  "test/slow/tracing.test.ts",
  "test/slow/webhooks-crash.test.ts"
]

/**
 * Of the PostgreSQL pass's own files (test/slow/pg/ and BOTH_ENGINES), those that measure time,
 * memory or fairness (a rate limit shared within 5%, a pool that answers 503 after its acquire
 * timeout, a drain's and a shutdown's timing, peak RSS, a balancer's health checks): one at a time,
 * after the others, like ALONE on SQLite. The others each start PostgreSQL servers or service
 * processes of their own and judge what survived a kill or a restart, not how fast: three at a
 * time (`maxWorkers` below), among them several instances' writes and deliveries
 * (test/slow/pg/multi-instance.test.ts, whose shared rate limit is multi-instance-rate's, here).
 */
const PG_ALONE = [
  "test/slow/drain.test.ts",
  "test/slow/large-answers.test.ts",
  "test/slow/pg/balancer.test.ts",
  "test/slow/pg/multi-instance-rate.test.ts",
  "test/slow/pg/pg-pool.test.ts",
  "test/slow/shutdown.test.ts"
]

/**
 * The PostgreSQL files a pooler could break, run again through PgBouncer in transaction mode
 * (CONTRACT §15, `DATABASE_POOL_MODE=transaction`; test/support/PgBouncer.ts): several instances on
 * one database and their outbox, the pool under pressure, keyed requests whose instance hangs (of
 * idempotency-crash, only its PostgreSQL test: the others meet nothing a pooler changes), webhooks
 * (the API's, and the pool's fairness in real time), the pool's metrics.
 * test/slow/pg/pgbouncer.test.ts (migrations, load, a PostgreSQL restart behind PgBouncer) starts a
 * PgBouncer of its own, in `pg`.
 */
const POOLED = [
  "test/api/metrics.test.ts",
  "test/api/webhooks.test.ts",
  "test/slow/idempotency-crash.test.ts",
  "test/slow/pg/multi-instance.test.ts",
  "test/slow/pg/pg-pool.test.ts",
  "test/slow/webhooks-pool.test.ts"
]
/** Of those, the ones that measure (`ALONE`, `PG_ALONE`): one at a time, after the others. */
const POOLED_ALONE = POOLED.filter((file) => ALONE.includes(file) || PG_ALONE.includes(file))

const common = {
  // every file starts with @effect/vitest's own `it` methods (see there): with `isolate: false`
  // below, a `layer(...)` file otherwise leaves its runtime on the shared `it`
  setupFiles: ["test/support/vitest-setup.ts"],
  pool: "forks" as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // The Migrator imports the numbered files in migrations/ at run time; inlining it lets
  // Vitest load them as TypeScript, as the compiled service loads them as JavaScript.
  server: { deps: { inline: ["@effect/sql"] } },
  sequence: { groupOrder: 0, concurrent: false }
}

/** PostgreSQL for the run, when CONVENE_TEST_ENGINE=postgres (test/support/engine-setup.ts). */
const engine = ["test/support/engine-setup.ts"]
/** And `dist/`, built from the sources, for the tests that start the service or the CLI as processes. */
const built = ["test/support/engine-setup.ts", "test/support/build-setup.ts"]
/** And PgBouncer in front of PostgreSQL, which the project's test servers reach (test/support/Engine.ts). */
const pooled = {
  globalSetup: ["test/support/engine-setup.ts", "test/support/pgbouncer-setup.ts", "test/support/build-setup.ts"],
  env: { CONVENE_TEST_POOLER: "pgbouncer" }
}
/** One file at a time, after the others. */
const alone = { poolOptions: { forks: { singleFork: true } }, sequence: { groupOrder: 1, concurrent: false } }

/** On PostgreSQL, the files of the `pg` projects (the SQLite projects leave them out there). */
const onPostgresOwn = onPostgres ? ["test/repo/**", "test/slow/pg/**", ...BOTH_ENGINES] : ["test/slow/pg/**"]

export default defineConfig({
  test: {
    // The PostgreSQL pass's files mostly wait on processes and database servers of their own
    // (restarts, outages, kills, a hung instance's key): three at a time (its `pg` project took
    // 84 s instead of 118 s, none of its files longer). The SQLite pass's browsers and loads keep
    // both cores busy: two (three made it slower, 399 s against 384 s). With fewer than the most
    // at the start, Vitest once ended a worker that still had files ("Terminating worker thread").
    maxWorkers: onPostgres ? 3 : 2,
    minWorkers: onPostgres ? 3 : 1,
    // A worker runs its files one after the other in one module graph, not a fresh one per file:
    // loading the service's modules anew for each of 64 files was a third of the suite's time
    // (collect 194 s of worker time a pass; 26 s now). Files share no state but what they start
    // and stop themselves (servers, databases, browsers, each scoped to its file or test). Set
    // here, at the root: a project's own `isolate` is not read.
    isolate: false,
    projects: [
      {
        test: {
          ...common,
          name: "fast",
          include: ["test/unit/**/*.test.ts", "test/repo/**/*.test.ts", "test/api/**/*.test.ts"],
          exclude: onPostgresOwn,
          globalSetup: engine
        }
      },
      {
        test: {
          ...common,
          name: "slow",
          include: ["test/slow/**/*.test.ts"],
          exclude: [...onPostgresOwn, ...ALONE],
          globalSetup: built
        }
      },
      { test: { ...common, ...alone, name: "slow-alone", include: ALONE, exclude: onPostgresOwn, globalSetup: built } },
      // the PostgreSQL pass's own: only when the suite runs on PostgreSQL. Its files that measure
      // time, memory or fairness run one at a time after the others (`pg-alone`); the rest, which
      // kill, restart or cut off processes and databases of their own and check what survived,
      // run three at a time beside the `repo` tier (`pg`). Then the same service through PgBouncer.
      ...(onPostgres
        ? [
          {
            test: {
              ...common,
              name: "pg",
              include: ["test/repo/**/*.test.ts", "test/slow/pg/**/*.test.ts", ...BOTH_ENGINES],
              exclude: PG_ALONE,
              globalSetup: built
            }
          },
          { test: { ...common, ...alone, name: "pg-alone", include: PG_ALONE, globalSetup: built } },
          { test: { ...common, ...pooled, name: "pgbouncer", include: POOLED, exclude: POOLED_ALONE } },
          { test: { ...common, ...alone, ...pooled, name: "pgbouncer-alone", include: POOLED_ALONE } }
        ]
        : [])
    ]
  }
})
