/**
 * The first start in Chromium (README.md "Quick start", docs/integrators.md#the-dashboard): the real service process on an empty database with
 * no BOOTSTRAP_* variables prints an admin email, a password and the dashboard's address; a person
 * opens `/`, signs in with them by keyboard alone, creates an API key under Team settings › Linked
 * Services › API Keys, copies it from the page, uses it against the API, revokes it in the page,
 * and the same request is refused at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { join } from "node:path"
import { browser } from "../support/Browser.js"
import { expectPageHeaders, expectQuiet, watch } from "../support/Dashboard.js"
import { startServer } from "../support/Process.js"
import { temporaryDirectory } from "../support/TestServer.js"

describe("first start in the browser", () => {
  it.scopedLive("signs in with the printed credentials, creates an API key in the page, uses it, and revokes it", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const server = yield* startServer({
        DATABASE_PATH: join(dir, "convene.db"),
        // empty counts as unset, whatever the surrounding environment holds
        BOOTSTRAP_ORG_SLUG: "",
        BOOTSTRAP_ORG_NAME: "",
        BOOTSTRAP_ADMIN_EMAIL: "",
        BOOTSTRAP_ADMIN_PASSWORD: "",
        BOOTSTRAP_API_TOKEN: "",
        PUBLIC_BASE_URL: ""
      })
      const printed = yield* Effect.sync(() => server.output()).pipe(
        Effect.filterOrFail((out) => /curl .*\/person/.test(out)),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo("10 seconds"))),
        Effect.orDie
      )
      const email = printed.match(/admin email:\s+(\S+)/)![1]!
      const password = printed.match(/admin password:\s+(\S+)/)![1]!
      const dashboard = printed.match(/dashboard:\s+(\S+)/)![1]!
      expect(dashboard).toBe(`${server.url}/app`)
      const chromium = yield* browser

      yield* Effect.promise(async () => {
        const context = await chromium.newContext({ viewport: { width: 1280, height: 900 } })
        const page = await context.newPage()
        const watched = watch(page)

        // `/` leads to the sign-in page
        const opened = await page.goto(`${server.url}/`)
        expect(new URL(page.url()).pathname).toBe("/app/login")
        expectPageHeaders(await opened!.allHeaders(), "sign-in page")
        expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Sign in")

        // by keyboard: Tab reaches the email field, then the password, then the button; Enter submits
        await page.keyboard.press("Tab")
        await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("email")
        await page.keyboard.type(email)
        await page.keyboard.press("Tab")
        expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("password")
        await page.keyboard.type(password)
        await page.keyboard.press("Tab")
        expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Sign in")
        await page.keyboard.press("Shift+Tab")
        await Promise.all([page.waitForURL(/\/app\/events$/), page.keyboard.press("Enter")])
        expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Events")
        expect(await page.locator(".topbar").innerText()).toContain("Super Admin")

        // Team settings › Linked Services › API Keys
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team settings" }).click()
        await page.getByRole("link", { name: "Linked Services › API Keys" }).click()
        expect(new URL(page.url()).pathname).toBe("/app/team/api-keys")
        await page.getByLabel("Name").fill("CRM sync")
        await page.getByRole("button", { name: "Create API key" }).click()
        const shown = page.getByLabel("API key", { exact: true })
        const key = await shown.inputValue()
        expect(key).toMatch(/^cvn_[A-Za-z0-9_-]{32,}$/)
        expect(await shown.getAttribute("readonly")).not.toBeNull()
        // the copy button (shown with scripts) copies that very key
        await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
        await page.getByRole("button", { name: "Copy" }).click()
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key)
        await expect.poll(() => page.getByRole("button", { name: "Copied" }).count()).toBe(1)

        const person = () => fetch(`${server.url}/person`, { headers: { "x-api-key": key } }).then((r) => r.status)
        expect(await person()).toBe(200)

        // the list shows the key with its last use; revoking asks first (a script confirm), then acts
        await page.getByRole("link", { name: "I have stored it safely" }).click()
        expect(await page.getByRole("table").innerText()).toContain("CRM sync")
        await page.getByRole("button", { name: "Revoke CRM sync" }).click()
        await page.waitForURL(/\/app\/team\/api-keys$/)
        expect(watched.dialogs).toEqual([{ type: "confirm", message: "Revoke the key “CRM sync”? Software using it stops working at once." }])
        expect(await page.getByRole("status").first().innerText()).toContain("API key “CRM sync” revoked. It no longer works.")
        expect(await person()).toBe(401)
        // the first start's own token stays; the revoked key moves to the revoked ones
        expect(await page.getByRole("table").innerText()).not.toContain("CRM sync")
        expect(await page.getByText("1 revoked key").count()).toBe(1)
        expectQuiet(watched, "first start")
        await context.close()
      })
    }), 90_000)
})
