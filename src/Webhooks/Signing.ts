/** Standard Webhooks signatures: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`. */
import { createHmac } from "node:crypto"

export const SECRET_PREFIX = "whsec_"

/**
 * A signature made as the body goes by: `update` takes the body's pieces in order (text is hashed
 * as UTF-8; a Buffer is hashed where it lies, not copied), `signature` ends it. A body kept in parts
 * is signed without ever being put together.
 */
export const signer = (secret: string, id: string, timestamp: number) => {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")
  const hmac = createHmac("sha256", key).update(`${id}.${timestamp}.`)
  return {
    update: (piece: string | Uint8Array): void => {
      hmac.update(piece)
    },
    signature: (): string => `v1,${hmac.digest("base64")}`
  }
}

export const sign = (secret: string, id: string, timestamp: number, body: string | Uint8Array): string => {
  const signing = signer(secret, id, timestamp)
  signing.update(body)
  return signing.signature()
}
