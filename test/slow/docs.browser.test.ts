/**
 * `/docs` works offline (CONTRACT §1): in Chromium, with every request to another origin refused,
 * the API reference renders the operations, tries to load nothing from anywhere else, uses fonts
 * served by Convene, shows none of Scalar's cloud menus, and breaks no rule of its
 * Content-Security-Policy (Chromium reports each violation as a console error).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DOCS_HEADERS } from "../../src/Ops/Docs.js"
import { browser } from "../support/Browser.js"
import { expectQuiet, watch } from "../support/Dashboard.js"
import { TestServer, liveServer } from "../support/TestServer.js"

layer(liveServer(), { excludeTestServices: true })("/docs in Chromium", (it) => {
  it.scoped("renders the API reference from Convene alone: nothing from another origin, its own fonts, no cloud menus", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const origin = new URL(server.url).origin
      const chromium = yield* browser
      const context = yield* Effect.acquireRelease(
        Effect.promise(() => chromium.newContext({ viewport: { width: 1280, height: 900 } })),
        (context) => Effect.promise(() => context.close())
      )
      // every page of the context, popups included: another origin is refused, and recorded
      const elsewhere: Array<string> = []
      yield* Effect.promise(() =>
        context.route("**/*", (route) => {
          const url = route.request().url()
          if (new URL(url).origin === origin) return route.continue()
          elsewhere.push(url)
          return route.abort("blockedbyclient")
        })
      )
      const page = yield* Effect.promise(() => context.newPage())
      const watched = watch(page)
      const reply = yield* Effect.promise(() => page.goto(`${server.url}/docs`))
      expect(reply?.status()).toBe(200)
      for (const [name, value] of Object.entries(DOCS_HEADERS)) expect(reply?.headers()[name], name).toBe(value)

      // the operations: a group's first operations are listed, another group opens
      yield* Effect.promise(() => page.getByText("The process is up").first().waitFor({ state: "visible", timeout: 30_000 }))
      yield* Effect.promise(async () => {
        await page.getByText("Persons", { exact: true }).first().click()
        await page.getByText("Create a person").first().waitFor({ state: "visible", timeout: 10_000 })
        // the fonts the page shows are loaded by now
        await page.evaluate(() => document.fonts.ready)
      })

      const loaded = yield* Effect.promise(() =>
        page.evaluate(() => {
          const fonts: Array<string> = []
          document.fonts.forEach((font) => {
            if (font.status === "loaded") fonts.push(font.family.replace(/"/g, ""))
          })
          return { resources: performance.getEntriesByType("resource").map((entry) => entry.name), fonts, text: document.body.innerText }
        })
      )
      expect(elsewhere, "requests to another origin").toEqual([])
      for (const url of loaded.resources) expect(new URL(url).origin, url).toBe(origin)
      const fontFiles = loaded.resources.filter((url) => url.endsWith(".woff2"))
      expect(fontFiles.length, "font files loaded").toBeGreaterThan(0)
      for (const url of fontFiles) expect(url).toMatch(new RegExp(`^${origin}/docs/assets/`))
      expect(new Set(loaded.fonts)).toEqual(new Set(["Inter", "JetBrains Mono"]))
      for (const menu of ["Share", "Generate SDKs", "Developer Tools", "Open API Client"]) {
        expect(loaded.text, menu).not.toContain(menu)
      }
      expectQuiet(watched, "/docs")
    }), { timeout: 90_000 })
})
