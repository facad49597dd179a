/**
 * Cursors of the change feed: opaque, tamper-evident and bound to one organization.
 *
 * A cursor is one 16-byte block, `[version][organization id: 7 bytes][seq: 8 bytes]`, encrypted
 * with AES-256 under the feed's key (made once by migration 0015) and written in base64url: 22
 * characters. A single block under a block cipher is a keyed permutation, so a cursor says nothing
 * of the sequence numbers, which run across all organizations (no one learns how much others
 * write), and the same position always gives the same cursor. Decrypting a changed, made-up or
 * other organization's cursor gives a block whose version and organization do not match (one
 * chance in 2^64 otherwise): it is refused as not a cursor of this feed, never read as a position.
 */
import { createCipheriv, createDecipheriv } from "node:crypto"
import type { OrganizationRowId } from "../Domain/RowIds.js"

const VERSION = 1
const BLOCK = 16
const TEXT = /^[A-Za-z0-9_-]{22}$/
const MAX_ORGANIZATION = 2 ** 56

const block = (key: Buffer, data: Buffer, encrypt: boolean): Buffer => {
  // whole blocks, each on its own: no chaining, no padding (ECB of one block is the cipher itself)
  const cipher = encrypt ? createCipheriv("aes-256-ecb", key, null) : createDecipheriv("aes-256-ecb", key, null)
  cipher.setAutoPadding(false)
  return Buffer.concat([cipher.update(data), cipher.final()])
}

/**
 * The cursors of positions `seqs` in the feed of `organizationId`, sealed in one pass (in ECB each
 * block is sealed on its own: a page of a thousand costs one cipher, not a thousand).
 */
export const encodeCursors = (key: Buffer, organizationId: OrganizationRowId, seqs: ReadonlyArray<number>): Array<string> => {
  const plain = Buffer.alloc(BLOCK * seqs.length)
  seqs.forEach((seq, i) => {
    const at = i * BLOCK
    plain.writeUInt8(VERSION, at)
    plain.writeUIntBE(Math.floor(organizationId / 2 ** 48), at + 1, 1)
    plain.writeUIntBE(organizationId % 2 ** 48, at + 2, 6)
    plain.writeBigUInt64BE(BigInt(seq), at + 8)
  })
  const sealed = seqs.length === 0 ? plain : block(key, plain, true)
  return seqs.map((_, i) => sealed.subarray(i * BLOCK, (i + 1) * BLOCK).toString("base64url"))
}

/** The cursor of position `seq` in the feed of `organizationId`. */
export const encodeCursor = (key: Buffer, organizationId: OrganizationRowId, seq: number): string => encodeCursors(key, organizationId, [seq])[0]!

/** The position a cursor of `organizationId` names, or undefined when it is not one. */
export const decodeCursor = (key: Buffer, organizationId: OrganizationRowId, text: string): number | undefined => {
  if (!TEXT.test(text) || organizationId >= MAX_ORGANIZATION) return undefined
  const sealed = Buffer.from(text, "base64url")
  // base64url of 16 bytes leaves 4 spare bits: only the canonical spelling is a cursor
  if (sealed.length !== BLOCK || sealed.toString("base64url") !== text) return undefined
  const plain = block(key, sealed, false)
  const organization = plain.readUIntBE(1, 1) * 2 ** 48 + plain.readUIntBE(2, 6)
  const seq = plain.readBigUInt64BE(8)
  if (plain.readUInt8(0) !== VERSION || organization !== organizationId || seq > BigInt(Number.MAX_SAFE_INTEGER)) return undefined
  return Number(seq)
}
