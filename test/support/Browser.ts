/** Headless Debian Chromium driven by playwright-core, scoped to a test. */
import { Effect } from "effect"
import { type Browser, chromium } from "playwright-core"

export const browser = Effect.acquireRelease(
  Effect.promise((): Promise<Browser> =>
    chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
  ),
  (b) => Effect.promise(() => b.close())
)
