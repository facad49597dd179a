/**
 * Headless Debian Chromium driven by playwright-core. One Chromium per test worker, launched by
 * the first test that needs it (a launch, its first page and its close cost 1.7 s here, for each
 * of 16 tests a pass when each had its own); each test works in contexts of its own, closed when
 * the test ends, so that no cookie, storage or page outlives it. Playwright kills the browser
 * when the worker exits; one that crashed is launched again by the next test.
 */
import { Effect } from "effect"
import { type Browser, chromium } from "playwright-core"

let shared: Promise<Browser> | undefined

/** A Chromium of its own, with `args` besides the suite's (a fake camera: tickets.browser.test.ts). */
export const launchChromium = (args: ReadonlyArray<string> = []) =>
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
      "--disable-sync",
      ...args
    ]
  })

const launchShared = () =>
  launchChromium().then((b) => {
    b.on("disconnected", () => {
      shared = undefined
    })
    return b
  })

export const browser = Effect.acquireRelease(
  Effect.promise((): Promise<Browser> => (shared ??= launchShared())),
  (b) => Effect.promise(() => Promise.all(b.contexts().map((context) => context.close())))
)
