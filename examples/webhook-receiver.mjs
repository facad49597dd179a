// A Convene webhook receiver: verifies the Standard Webhooks signature, answers 200 at once, and
// deduplicates by webhook-id (a notification can arrive more than once).
//
//   CONVENE_WEBHOOK_SECRET=whsec_... node examples/webhook-receiver.mjs     # listens on :8080
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"

const TOLERANCE_SECONDS = 5 * 60

/** Whether a delivery is authentic: `headers` as received, `body` the raw request body. */
export const verify = (secret, headers, body, now = Date.now()) => {
  const id = headers["webhook-id"]
  const timestamp = headers["webhook-timestamp"]
  const signatures = headers["webhook-signature"]
  if (!id || !timestamp || !signatures) return false
  if (Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64")
  const expected = Buffer.from(createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64"))
  return String(signatures).split(" ").some((entry) => {
    const [version, signature] = entry.split(",")
    const candidate = Buffer.from(signature ?? "")
    return version === "v1" && candidate.length === expected.length && timingSafeEqual(candidate, expected)
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const secret = process.env.CONVENE_WEBHOOK_SECRET ?? ""
  const seen = new Set()
  createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      if (!verify(secret, req.headers, body)) {
        res.writeHead(401).end()
        return
      }
      res.writeHead(200).end()
      const id = req.headers["webhook-id"]
      if (seen.has(id)) return
      seen.add(id)
      setImmediate(() => console.log(id, JSON.parse(body)))
    })
  }).listen(Number(process.env.PORT ?? 8080))
}
