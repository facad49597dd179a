/**
 * Secrets at rest. API and access tokens carry 256 random bits, so one SHA-256 is enough to store
 * them and to find them by hash (nothing is compared byte by byte). Passwords get scrypt with a
 * per-user salt, compared in constant time.
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto"

export const API_TOKEN_PREFIX = "cvn_"
export const ACCESS_TOKEN_PREFIX = "cvs_"

export const hashToken = (token: string): Uint8Array => createHash("sha256").update(token).digest()

/** Two secrets (a form's CSRF token and the session's) compared in constant time. */
export const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

const N = 16384
const r = 8
const p = 1
const KEY_LENGTH = 32

const derive = (password: string, salt: Buffer, n: number, rr: number, pp: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r: rr, p: pp, maxmem: 64 * 1024 * 1024 }, (error, key) => {
      resume(error ? Effect.die(error) : Effect.succeed(key))
    })
  })

/** `scrypt$N$r$p$salt$hash`, both in base64. */
export const hashPassword = (password: Redacted.Redacted): Effect.Effect<string> =>
  Effect.suspend(() => {
    const salt = randomBytes(16)
    return Effect.map(
      derive(Redacted.value(password), salt, N, r, p),
      (key) => `scrypt$${N}$${r}$${p}$${salt.toString("base64")}$${key.toString("base64")}`
    )
  })

/** A stored hash that no password matches, so unknown emails cost as much as known ones. */
export const DUMMY_PASSWORD_HASH = `scrypt$${N}$${r}$${p}$${Buffer.alloc(16).toString("base64")}$${
  Buffer.alloc(KEY_LENGTH).toString("base64")
}`

export const verifyPassword = (password: Redacted.Redacted, stored: string): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const [scheme, n, rr, pp, salt, hash] = stored.split("$")
    if (scheme !== "scrypt" || salt === undefined || hash === undefined) return Effect.succeed(false)
    const expected = Buffer.from(hash, "base64")
    return Effect.map(
      derive(Redacted.value(password), Buffer.from(salt, "base64"), Number(n), Number(rr), Number(pp)),
      (key) => key.length === expected.length && timingSafeEqual(key, expected)
    )
  })
