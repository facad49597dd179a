import { defineConfig } from "vitest/config"

/**
 * Test files that measure time or memory, or kill and restart processes on a schedule (latency
 * under load, the event loop during an import, peak RSS, SIGKILL/SIGTERM in the middle of writes,
 * shared rate limits within 5%): they run one at a time once the others are done, with the
 * machine to themselves, so that what they measure is their own work. The other files run two at
 * a time.
 */
const ALONE = [
  "test/balancer.test.ts",
  "test/cli.test.ts",
  "test/concurrency.test.ts",
  "test/crash.test.ts",
  "test/csv-guests.test.ts",
  "test/csv-persons.test.ts",
  "test/database-outage.test.ts",
  "test/email.test.ts",
  "test/idempotency-crash.test.ts",
  "test/invitations.test.ts",
  "test/large-answers.test.ts",
  "test/multi-instance.test.ts",
  "test/rate-limit-redis.test.ts",
  "test/redis-hung.test.ts",
  "test/shutdown.test.ts",
  "test/slow-readers.test.ts",
  "test/streamed-answers.test.ts",
  "test/webhook-receivers.test.ts",
  "test/webhooks-crash.test.ts",
  "test/webhooks.test.ts"
]

const common = {
  // builds dist/ for the tests that run processes; on PostgreSQL when CONVENE_TEST_ENGINE=postgres
  // (test/support/engine-setup.ts, once for both groups)
  globalSetup: ["test/support/engine-setup.ts"],
  // every file starts with @effect/vitest's own `it` methods (see there)
  setupFiles: ["test/support/vitest-setup.ts"],
  pool: "forks" as const,
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // The Migrator imports the numbered files in migrations/ at run time; inlining it lets
  // Vitest load them as TypeScript, as the compiled service loads them as JavaScript.
  server: { deps: { inline: ["@effect/sql"] } }
}

export default defineConfig({
  test: {
    maxWorkers: 2,
    // A worker runs its files one after the other in one module graph, not a fresh one per file:
    // loading the service's modules anew for each of 64 files was a third of the suite's time
    // (collect 194 s of worker time a pass; 26 s now). Files share no state but what they start
    // and stop themselves (servers, databases, browsers, each scoped to its file or test). Set
    // here, at the root: a project's own `isolate` is not read.
    isolate: false,
    minWorkers: 1,
    projects: [
      {
        test: {
          ...common,
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: ALONE,
          sequence: { groupOrder: 0, concurrent: false }
        }
      },
      {
        test: {
          ...common,
          name: "alone",
          include: ALONE,
          poolOptions: { forks: { singleFork: true } },
          sequence: { groupOrder: 1, concurrent: false }
        }
      }
    ]
  }
})
