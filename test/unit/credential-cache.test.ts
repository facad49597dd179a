/**
 * The credential cache's rules (src/Auth/CredentialCache.ts), against a stand-in for the database's
 * signals: what may be remembered, and what makes it forgotten. The server's own tests check the
 * same end to end (auth.test.ts: a used API token revoked through the API; cli.test.ts and
 * members.test.ts: revoked or ended by the CLI, another process; auth.test.ts: an access token at
 * its expiry under TestClock).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CredentialCache } from "../../src/Auth/CredentialCache.js"
import { DirectSql, type DirectSqlShape } from "../../src/Db/DirectSql.js"

/** The database as the cache sees it: another process's commits, and a write transaction. */
const database = () => {
  const state = { version: 1 as number | undefined, writing: false }
  const direct = {
    externalVersion: () => state.version,
    writing: () => state.writing
  } as Pick<DirectSqlShape, "externalVersion" | "writing"> as DirectSqlShape
  return { state, layer: CredentialCache.Default.pipe(Layer.provide(Layer.succeed(DirectSql, direct))) }
}

const withCache = <A>(f: (cache: CredentialCache, state: { version: number | undefined; writing: boolean }) => A) => {
  const { layer, state } = database()
  return Effect.runSync(Effect.provide(Effect.map(CredentialCache, (cache) => f(cache, state)), layer))
}

describe("credential cache", () => {
  it("remembers a lookup made while nothing moved, until its expiry", () =>
    withCache((cache) => {
      cache.remember(cache.ticket(), "a", "alice", 1_000)
      expect(cache.get("a", 999)).toBe("alice")
      expect(cache.get("a", 1_000)).toBeUndefined()
      expect(cache.get("b", 0)).toBeUndefined()
    }))

  it("forgets everything on a revocation, and keeps no lookup that began before it", () =>
    withCache((cache) => {
      cache.remember(cache.ticket(), "a", "alice", Infinity)
      const raced = cache.ticket()
      Effect.runSync(cache.forget)
      expect(cache.get("a", 0)).toBeUndefined()
      cache.remember(raced, "b", "bob", Infinity)
      expect(cache.get("b", 0)).toBeUndefined()
      cache.remember(cache.ticket(), "b", "bob", Infinity)
      expect(cache.get("b", 0)).toBe("bob")
    }))

  it("remembers nothing looked up while a write transaction is open, nor answered while one is", () =>
    withCache((cache, db) => {
      db.writing = true
      const during = cache.ticket()
      expect(during).toBeUndefined()
      cache.remember(during, "a", "alice", Infinity)
      db.writing = false
      expect(cache.get("a", 0)).toBeUndefined()
      const before = cache.ticket()
      db.writing = true
      cache.remember(before, "a", "alice", Infinity)
      db.writing = false
      expect(cache.get("a", 0)).toBeUndefined()
    }))

  it("forgets everything when another process commits, and keeps no lookup across it", () =>
    withCache((cache, db) => {
      cache.remember(cache.ticket(), "a", "alice", Infinity)
      const raced = cache.ticket()
      db.version = 2
      expect(cache.get("a", 0)).toBeUndefined()
      cache.remember(raced, "b", "bob", Infinity)
      expect(cache.get("b", 0)).toBeUndefined()
    }))

  it("remembers nothing where other writers cannot be seen (PostgreSQL)", () =>
    withCache((cache, db) => {
      db.version = undefined
      cache.remember(cache.ticket(), "a", "alice", Infinity)
      expect(cache.size()).toBe(0)
      expect(cache.get("a", 0)).toBeUndefined()
    }))

  it("looks up through the cache: a find is remembered until its expiry, a miss is looked up again", () =>
    withCache((cache) => {
      let lookups = 0
      const find = (value: string | undefined) =>
        cache.through("a", 0, Effect.sync(() => (lookups++, value === undefined ? undefined : { value, expiresAt: 10 })))
      expect(Effect.runSync(find(undefined))).toBeUndefined()
      expect(Effect.runSync(find(undefined))).toBeUndefined()
      expect(lookups).toBe(2)
      expect(Effect.runSync(find("alice"))).toBe("alice")
      expect(Effect.runSync(find("bob"))).toBe("alice")
      expect(lookups).toBe(3)
      expect(cache.get("a", 10)).toBeUndefined()
    }))

  it("is bounded: the oldest entries go first", () =>
    withCache((cache) => {
      for (let i = 0; i < 10_005; i++) cache.remember(cache.ticket(), `k${i}`, i, Infinity)
      expect(cache.size()).toBe(10_000)
      expect(cache.get("k4", 0)).toBeUndefined()
      expect(cache.get("k5", 0)).toBe(5)
      expect(cache.get("k10004", 0)).toBe(10_004)
    }))
})
