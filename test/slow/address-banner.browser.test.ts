/**
 * The public address's banner in Chromium (CONTRACT §16, "Public address"): with PUBLIC_BASE_URL
 * unset, an Admin who reaches the dashboard under a host name other than this computer's (here
 * `convene.lan`, resolved to the loopback by Chromium) sees on every page that links point at
 * `http://localhost:<port>`, with axe finding nothing serious; under `localhost` the banner is gone.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { launchChromium } from "../support/Browser.js"
import { Auditor, SESSION_COOKIE, signIn } from "../support/Dashboard.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, liveServer, TestServer } from "../support/TestServer.js"

layer(liveServer({ PUBLIC_BASE_URL: "" }), { excludeTestServices: true })("the public address's banner in Chromium", (it) => {
  it.scoped("an Admin under another host name sees where links point; under localhost, nothing", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const port = new URL(server.url).port
      const localhost = `http://localhost:${port}`
      // signed in through the service's own origin (the forms' Origin check is PUBLIC_BASE_URL's, here the guess)
      const owner = yield* signIn(server.url, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }, { origin: localhost })
      const chromium = yield* Effect.acquireRelease(
        Effect.promise(() => launchChromium(["--host-resolver-rules=MAP convene.lan 127.0.0.1"])),
        (b) => Effect.promise(() => b.close())
      )
      yield* Effect.promise(async () => {
        const auditor = await Auditor.open(chromium, 360, { mobile: true })
        try {
          const lan = `http://convene.lan:${port}`
          await auditor.useSession(lan, owner.session())
          await auditor.visit(`${lan}/app/events`, "address-banner")
          const banner = auditor.page.getByRole("note", { name: "Public address" })
          expect(await banner.textContent()).toContain(`point at ${localhost}, which works only on the server itself, while you reached this dashboard at convene.lan`)

          await auditor.context.addCookies([{ name: SESSION_COOKIE, value: owner.session()!, url: localhost }])
          await auditor.page.goto(`${localhost}/app/events`)
          expect(await auditor.page.getByRole("heading", { level: 1 }).count()).toBe(1)
          expect(await auditor.page.getByRole("note", { name: "Public address" }).count()).toBe(0)
        } finally {
          await auditor.close()
        }
      })
    }), 60_000)
})
