/** Standard Webhooks signatures: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`. */
import { createHmac } from "node:crypto"

export const SECRET_PREFIX = "whsec_"

export const sign = (secret: string, id: string, timestamp: number, body: string): string => {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`
}
