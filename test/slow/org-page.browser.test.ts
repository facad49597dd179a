/**
 * The organization's public face and an event's public address in Chromium (CONTRACT §16): the
 * page `/o/<orgSlug>` and an event's dashboard page at 360 px on a touch screen, with axe (no
 * serious or critical violation), one h1, the page headers and nothing wider than the screen; the
 * README's "Embed your events" example run from another origin against the server (CORS for real);
 * a new event's form in the browser's time zone (and the server's default without scripts); the
 * guest list's approval screen. Screenshots go to test-artifacts/org/ (SQLite pass only; the docs' copies: docs/screenshots/).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Page } from "playwright-core"
import { browser } from "../support/Browser.js"
import { ApiTokens } from "../../src/Auth/ApiTokens.js"
import { Organizations } from "../../src/Organizations/Organizations.js"
import { addMember, Auditor, MARKUP_AUDITS, SESSION_COOKIE, signIn, unique } from "../support/Dashboard.js"
import { liveServer, TestServer } from "../support/TestServer.js"

const SHOTS = "test-artifacts/org" // the docs' copies: docs/screenshots/

const restOf = (url: string, token: string) => async (method: string, path: string, body?: unknown) => {
  const response = await fetch(url + path, {
    method,
    headers: { "x-api-key": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  expect(response.status, `${method} ${path}: ${text}`).toBe(200)
  return JSON.parse(text) as Record<string, any>
}

const noWiderThanScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)

/** The README's embed example, fetching from `feed` instead of the example's address. */
const embedExample = (feed: string) => {
  const readme = readFileSync("README.md", "utf8")
  const block = /<!-- embed-example -->\s*```html\n([\s\S]*?)```\s*<!-- \/embed-example -->/.exec(readme)![1]!
  expect(block.split("\n").filter((line) => line.trim() !== "").length).toBeLessThanOrEqual(12)
  return block.replace(/https:\/\/events\.example\.org\/o\/[a-z-]+\/events\.json/, feed)
}

layer(liveServer(), { excludeTestServices: true })("the organization's public face in Chromium", (it) => {
  const setUp = Effect.gen(function*() {
    const server = yield* TestServer
    // a real name, for the screenshots
    const slug = unique("riverside")
    const created = yield* (yield* Organizations).create({ slug, name: "Riverside Community Arts" }).pipe(Effect.orDie)
    const org = { id: created.id, slug, name: created.name, token: Redacted.value((yield* (yield* ApiTokens).createApiToken(created.id, "test")).token) }
    const owner = yield* addMember(org, "Super Admin", { firstName: "Sam", lastName: "Super" })
    const rest = restOf(server.url, org.token)
    const data = yield* Effect.promise(async () => {
      const concert = await rest("POST", "/event", {
        name: "Winter Concert at the Arts Center",
        primaryDate: "2031-12-20T19:00:00-05:00",
        timezone: "America/New_York",
        isPublic: true,
        primarySlug: `concert-${org.slug}`,
        locationName: "Riverside Arts Center",
        locationCity: "Riverside",
        capacityEnabled: true,
        capacity: 250
      })
      const workshop = await rest("POST", "/event", {
        name: "Pottery Workshop for Beginners, with a rather long name to wrap on a phone",
        primaryDate: "2031-11-05T14:00:00+01:00",
        timezone: "Europe/Berlin",
        isPublic: true,
        registrationApproval: true,
        primarySlug: `pottery-${org.slug}`,
        locationName: "Clay Studio",
        locationCity: "Berlin",
        capacityEnabled: true,
        capacity: 3
      })
      await rest("POST", "/event", { name: "Board meeting", primaryDate: "2031-10-01T09:00:00Z", primarySlug: `board-${org.slug}` })
      const names = [["Ada", "Lovelace"], ["Grace", "Hopper"], ["Alan", "Turing"], ["Maya", "Okafor"], ["Noah", "Schmidt"]]
      const { guests } = await rest("POST", `/event/${workshop.eventId}/guestlist`, {
        guests: names.map(([firstName, lastName]) => ({ firstName, lastName, email: `${firstName!.toLowerCase()}.${org.slug}@example.com` }))
      })
      await rest("PUT", `/event/${workshop.eventId}/guestlist`, {
        guests: (guests as Array<Record<string, string>>).map((g, i) => ({ personId: g.personId, rsvpStatus: i === 0 ? "Accepted" : "Pending" }))
      })
      return { concert, workshop }
    })
    const session = (yield* signIn(server.url, owner)).session()!
    return { server, org, owner, session, ...data }
  })

  it.scoped("/o/<orgSlug> and an event's page at 360 px: axe, one h1, nothing wider than the screen", () =>
    Effect.gen(function*() {
      const { concert, org, server, session } = yield* setUp
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const auditor = await Auditor.open(chromium, 360, { mobile: true })
        try {
          await auditor.visit(`${server.url}/o/${org.slug}`, "org-page")
          const page = auditor.page
          expect(await page.locator("h2.event-name").allTextContents()).toEqual([
            "Pottery Workshop for Beginners, with a rather long name to wrap on a phone",
            "Winter Concert at the Arts Center"
          ])
          expect(await page.locator("main").textContent()).toContain("Sat, Dec 20, 2031, 7:00 PM EST")
          expect(await page.locator("script").count()).toBe(0)
          expect(await noWiderThanScreen(page)).toBe(true)
          if (MARKUP_AUDITS) await page.screenshot({ path: `${SHOTS}/org-page-360.png`, fullPage: true })

          await auditor.visit(`${server.url}/o/no-such-organization-here`, "org-page-unknown", { status: 404 })

          await auditor.useSession(server.url, session)
          await auditor.visit(`${server.url}/app/events/${concert.eventId}`, "event-page")
          const address = page.getByLabel("Public address")
          expect(await address.inputValue()).toBe(`https://convene.test/e/concert-${org.slug}`)
          expect(await noWiderThanScreen(page)).toBe(true)
          await page.locator("#public-page").scrollIntoViewIfNeeded()
          if (MARKUP_AUDITS) await page.locator("#public-page").screenshot({ path: `${SHOTS}/event-page-public-address.png` })
        } finally {
          await auditor.close()
        }
        // and on a desktop (its screenshot in test-artifacts/dashboard/, as every audited page's)
        const wide = await Auditor.open(chromium, 1280)
        try {
          await wide.visit(`${server.url}/o/${org.slug}`, "org-page")
          await wide.useSession(server.url, session)
          await wide.visit(`${server.url}/app/events/${concert.eventId}`, "event-page")
        } finally {
          await wide.close()
        }
      })
    }), 120_000)

  it.scoped("the README's embed example lists the events from another origin", () =>
    Effect.gen(function*() {
      const { org, server } = yield* setUp
      const chromium = yield* browser
      const html = `<!doctype html><html lang="en"><head><title>Our events</title></head><body><h1>Our events</h1>${
        embedExample(`${server.url}/o/${org.slug}/events.json`)
      }</body></html>`
      const site = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<ReturnType<typeof createServer>>((resolve) => {
            const s = createServer((_, response) => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html))
            s.listen(0, "127.0.0.1", () => resolve(s))
          })
        ),
        (s) => Effect.promise(() => new Promise<void>((resolve) => s.close(() => resolve())))
      )
      const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`
      expect(new URL(siteUrl).origin).not.toBe(new URL(server.url).origin)
      yield* Effect.promise(async () => {
        const context = await chromium.newContext({ timezoneId: "America/New_York" })
        try {
          const page = await context.newPage()
          await page.goto(siteUrl)
          const links = page.locator("#events li a")
          await links.first().waitFor()
          expect(await links.count()).toBe(2)
          expect(await links.nth(1).textContent()).toMatch(/^Winter Concert at the Arts Center: Dec 20, 2031, 7:00/)
          expect(await links.nth(1).getAttribute("href")).toBe(`https://convene.test/e/concert-${org.slug}`)
        } finally {
          await context.close()
        }
      })
    }), 60_000)

  it.scoped("a new event's form starts in the browser's time zone; without scripts, in the server's default", () =>
    Effect.gen(function*() {
      const { server, session } = yield* setUp
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        for (const javaScriptEnabled of [true, false]) {
          const context = await chromium.newContext({ timezoneId: "Asia/Tokyo", javaScriptEnabled })
          try {
            await context.addCookies([{ name: SESSION_COOKIE, value: session, url: server.url }])
            const page = await context.newPage()
            await page.goto(`${server.url}/app/events/new`)
            // without scripts, the server's default (the zone the organization's events use most, else UTC)
            const zone = await page.getByLabel("Time zone").inputValue()
            if (javaScriptEnabled) expect(zone).toBe("Asia/Tokyo")
            else expect(zone).not.toBe("Asia/Tokyo")
          } finally {
            await context.close()
          }
        }
      })
    }), 60_000)

  it.scoped("the approval screen: the guest list's Pending filter with approve and decline", () =>
    Effect.gen(function*() {
      const { server, session, workshop } = yield* setUp
      const chromium = yield* browser
      yield* Effect.promise(async () => {
        const auditor = await Auditor.open(chromium, 1280)
        try {
          await auditor.useSession(server.url, session)
          await auditor.visit(`${server.url}/app/events/${workshop.eventId}/guests?status=Pending`, "approval")
          const page = auditor.page
          await expect(page.getByRole("button", { name: "Approve Grace Hopper" }).count()).resolves.toBe(1)
          await expect(page.getByRole("button", { name: "Decline Grace Hopper" }).count()).resolves.toBe(1)
          if (MARKUP_AUDITS) await page.screenshot({ path: `${SHOTS}/approval.png`, fullPage: true })
          await page.getByRole("button", { name: "Approve Grace Hopper" }).click()
          await page.waitForLoadState("load")
          expect(await page.locator("main").textContent()).toContain("Grace Hopper")
        } finally {
          await auditor.close()
        }
      })
    }), 60_000)
})
