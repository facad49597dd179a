// `node bench/webhooks-only.mjs`: the webhook figures alone, on a fresh database.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServer, TOKEN } from "./lib.mjs"
import { measureWebhooks } from "./webhooks.mjs"

const dir = mkdtempSync(join(tmpdir(), "convene-bench-"))
const server = await startServer({
  script: "dist/src/main.js",
  port: 3290,
  env: {
    DATABASE_PATH: join(dir, "convene.db"),
    BOOTSTRAP_ORG_SLUG: "bench",
    BOOTSTRAP_API_TOKEN: TOKEN,
    RATE_LIMIT_BURST: "1000000",
    RATE_LIMIT_PER_SECOND: "1000000",
    WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: "true",
    LOG_LEVEL: "Warn"
  }
})
try {
  const result = await measureWebhooks(server)
  console.table([{
    "p50 ms": result.p50.toFixed(1),
    "p99 ms": result.p99.toFixed(1),
    "deliveries/s": result.deliveriesPerSecond.toFixed(0),
    deliveries: result.deliveries
  }])
} finally {
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
