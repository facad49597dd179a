import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // on PostgreSQL when CONVENE_TEST_ENGINE=postgres (test/support/engine-setup.ts)
    globalSetup: ["test/support/engine-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { concurrent: false },
    // The Migrator imports the numbered files in migrations/ at run time; inlining it lets
    // Vitest load them as TypeScript, as the compiled service loads them as JavaScript.
    server: { deps: { inline: ["@effect/sql"] } }
  }
})
