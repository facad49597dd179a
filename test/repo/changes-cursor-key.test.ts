/**
 * The change feed's cursor key is read once it is first needed and kept once read; a read that
 * fails (the database restarting, no connection free) is not kept: the next request reads it again
 * and answers, where `Effect.cached` kept the failure and every feed request died until a restart.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as SqlError from "@effect/sql/SqlError"
import { Changes } from "../../src/Changes/Changes.js"
import { ChangesRepo } from "../../src/Changes/ChangesRepo.js"
import { TestDatabase, testDatabase } from "../support/Database.js"

layer(testDatabase(), { excludeTestServices: true })("the change feed's cursor key", (it) => {
  it.effect("a failed first read is not kept: the next feed request reads the key and answers", () =>
    Effect.gen(function*() {
      const { caller } = yield* Effect.flatMap(TestDatabase, (database) => database.organization("cursor-key"))
      let reads = 0
      const changes = yield* Effect.provide(Changes, Changes.DefaultWithoutDependencies.pipe(
        Layer.provide(Layer.effect(ChangesRepo, Effect.map(ChangesRepo, (repo) =>
          ChangesRepo.make({
            ...repo,
            cursorKey: Effect.suspend(() =>
              ++reads === 1 ? Effect.fail(new SqlError.SqlError({ cause: new Error("the database system is shutting down") })) : repo.cursorKey)
          })))),
        Layer.provide(ChangesRepo.Default)
      ))
      expect(Exit.isFailure(yield* Effect.exit(changes.feed(caller, {})))).toBe(true)
      const page = yield* changes.feed(caller, {})
      expect(page.changes).toEqual([])
      expect(typeof page.nextCursor).toBe("string")
      yield* changes.feed(caller, {})
      expect(reads).toBe(2)
    }))
})
