/**
 * Door mode in Chromium at 360 px (CONTRACT §17): search and one tap without a page load, the
 * confirmation a declined guest needs and the counter that does not count them as expected, a
 * scan through a fake camera in a browser without `BarcodeDetector` (the same-origin jsQR) in
 * express mode, a keyboard-wedge scan, check-ins made offline that are sent when the network is
 * back (one refused: the guest was removed meanwhile; one checked in at another door meanwhile:
 * once), a door link that shows no email address, and axe on both pages. Screenshots in
 * test-artifacts/door/door-*-360.png (the docs' copies: docs/screenshots/).
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { launchChromium } from "../support/Browser.js"
import { addMember, signIn, signInPage, textOf } from "../support/Dashboard.js"
import { qrVideo } from "../support/FakeCamera.js"
import { answerRsvp, createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { TestServer, liveServer } from "../support/TestServer.js"

const SHOTS = "test-artifacts/door" // the docs' copies: docs/screenshots/
const ticketOf = (html: string) => /<p class="code"><span class="visually-hidden">Ticket code: <\/span>([^<]+)<\/p>/.exec(html)?.[1]

/** axe-core's serious and critical findings on a page (its own context: axe's script needs the CSP bypassed). */
const axeFindings = async (browser: Browser, url: string, cookies: Parameters<import("playwright-core").BrowserContext["addCookies"]>[0]) => {
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 360, height: 740 } })
  await context.addCookies(cookies)
  await context.addInitScript({ content: readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8") })
  const page = await context.newPage()
  await page.goto(url)
  await page.waitForSelector("#door[data-loaded]")
  const result = await page.evaluate(() =>
    (window as any).axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] } })
  )
  await context.close()
  return (result.violations as Array<{ id: string; impact: string }>).filter((v) => v.impact === "serious" || v.impact === "critical")
}

const resultText = (page: Page) => page.locator("#door-result").innerText()
const countText = async (page: Page) => ((await page.locator("#door-count-text").textContent()) ?? "").replace(/\s+/g, " ").trim()

layer(liveServer(), { excludeTestServices: true })("door mode in Chromium", (it) => {
  it.scoped("search and tap, confirmation, a jsQR scan in express mode, a wedge scan, offline check-ins synced, a door link without emails", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const slug = `door-browser-${process.pid}`
      const organization = yield* server.organization(slug)
      const token = organization.token
      const event = yield* createEvent(server, { name: "Harbor Night Market", primarySlug: slug, timezone: "Europe/Lisbon" }, token)
      const names = [["Ada", "Lovelace"], ["Grace", "Hopper"], ["Dan", "Declined"], ["Olive", "Offline"], ["Rita", "Removed"]]
      const added = expectStatus(yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
        token,
        body: { guests: names.map(([firstName, lastName]) => ({ firstName, lastName, email: uniqueEmail(firstName!.toLowerCase()) })) }
      }), 200).body.guests as Array<Record<string, any>>
      const linked = expectStatus(yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${added.map((g) => g.personId).join(",")}&generateRsvpLinks=true`, { token }), 200)
        .body.guests as Array<Record<string, any>>
      const guest = Object.fromEntries(linked.map((g) => [g.firstName as string, g]))
      for (const name of ["Ada", "Grace", "Olive", "Rita"]) yield* answerRsvp(server.url, guest[name]!.rsvpLink, "Accepted")
      yield* answerRsvp(server.url, guest["Dan"]!.rsvpLink, "Declined")
      const rsvp = (name: string) => Effect.promise(() => fetch(server.url + new URL(guest[name]!.rsvpLink).pathname + new URL(guest[name]!.rsvpLink).search).then((r) => r.text()))
      const graceCode = ticketOf(yield* rsvp("Grace"))!
      const adaCode = ticketOf(yield* rsvp("Ada"))!
      const attendance = () =>
        Effect.map(server.request("GET", `/event/${event.eventId}/guestlist`, { token }), (r) =>
          Object.fromEntries((expectStatus(r, 200).body.guests as Array<Record<string, any>>).map((g) => [g.firstName, g.attendanceStatus])))
      const member = yield* addMember({ id: organization.id, slug, name: slug }, "Admin")

      // the fake camera films Grace's ticket: the door's address with her code, as her QR code holds it
      const video = join(mkdtempSync(join(tmpdir(), "door-")), "ticket.y4m")
      qrVideo(video, `https://convene.test/app/events/${event.eventId}/checkin?ticket=${graceCode.replace("-", "")}`)
      const chrome = yield* Effect.acquireRelease(
        Effect.promise(() => launchChromium(["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", `--use-file-for-fake-video-capture=${video}`])),
        (b) => Effect.promise(() => b.close())
      )
      const context = yield* Effect.promise(async () => {
        const c = await chrome.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true })
        c.setDefaultTimeout(15_000)
        await c.grantPermissions(["camera"], { origin: server.url })
        await c.addInitScript(() => delete (window as any).BarcodeDetector)
        return c
      })
      const page = yield* Effect.promise(() => context.newPage())
      const errors: Array<string> = []
      page.on("pageerror", (e) => errors.push(String(e)))
      const doorUrl = `${server.url}/app/events/${event.eventId}/checkin`

      yield* Effect.promise(async () => {
        await signInPage(page, server.url, member)
        await page.goto(doorUrl)
        await page.waitForSelector("#door[data-loaded]")
        // the service worker controls the door (the page and its files kept for when the network is away)
        await page.waitForFunction(() => navigator.serviceWorker.controller !== null)
        expect(await page.evaluate(() => document.activeElement?.id)).toBe("door-q")
        expect(await page.evaluate(() => "BarcodeDetector" in window)).toBe(false)
        expect(await page.locator("nav.nav, header.site").count()).toBe(0)
        await page.screenshot({ path: join(SHOTS, "door-idle-360.png") })

        // search and tap: no page load, the field emptied and focused, the counter of Accepted guests
        await page.evaluate(() => Object.assign(window, { samePage: true }))
        await page.locator("#door-q").pressSequentially("ada")
        await expect.poll(() => page.locator("#door-list > li").count()).toBe(1)
        await page.getByRole("button", { name: "Check in Ada Lovelace" }).tap()
        await expect.poll(() => resultText(page)).toContain("Ada Lovelace checked in.")
        expect(await resultText(page)).toContain("✓ Done")
        expect(await page.evaluate(() => (window as any).samePage)).toBe(true)
        expect(await page.locator("#door-q").inputValue()).toBe("")
        expect(await page.evaluate(() => document.activeElement?.id)).toBe("door-q")
        expect(await countText(page)).toBe("1 checked in of 4 expected")
        await page.screenshot({ path: join(SHOTS, "door-result-360.png") })

        // a declined guest: a confirmation naming the status; let in, not counted as expected
        await page.locator("#door-q").fill("dan")
        await page.getByRole("button", { name: "Check in Dan Declined" }).tap()
        await expect.poll(() => resultText(page)).toContain("Dan Declined answered Declined, not Accepted.")
        await page.getByRole("button", { name: "Check in anyway (Declined)" }).tap()
        await expect.poll(() => resultText(page)).toContain("Dan Declined checked in. Their RSVP is Declined.")
        expect(await countText(page)).toBe("1 checked in of 4 expected")
        expect(await page.locator("#door-count-extra").innerText()).toContain("Also 1 checked in without a yes.")

        // express mode (remembered), the camera read by jsQR: Grace checked in at once, then refused as already in
        await page.getByLabel("Express: check in at once on a valid scan").check()
        await page.getByRole("button", { name: "Scan with the camera" }).tap()
        await expect.poll(() => resultText(page), { timeout: 20_000 }).toContain("Grace Hopper checked in.")
        expect(await page.locator(".door-result.express").count()).toBe(1)
        await expect.poll(() => resultText(page), { timeout: 20_000 }).toContain("Grace Hopper is already checked in")
        expect(await resultText(page)).toContain("✕ Refused")
        expect(await page.locator(".door-scans li").count()).toBeGreaterThanOrEqual(2)
        await page.getByRole("button", { name: "Stop the camera" }).tap()
        expect(await page.evaluate(() => localStorage.getItem("convene.door.express"))).toBe("on")
        expect(await page.evaluate(() => Array.from(document.querySelectorAll("script")).some((s) => s.src.includes("/app/assets/jsQR.")))).toBe(true)

        // a keyboard-wedge scanner types the code and Enter into the focused field
        await page.keyboard.type(adaCode)
        await page.keyboard.press("Enter")
        await expect.poll(() => resultText(page)).toContain("Ada Lovelace is already checked in.")
      })
      const present = yield* attendance()
      expect(present).toMatchObject({ Ada: "Attended", Grace: "Attended", Dan: "Attended", Olive: null, Rita: null })

      // offline: two check-ins queued; meanwhile Rita is removed and Olive checked in at another door
      yield* Effect.promise(async () => {
        await context.setOffline(true)
        // Chromium's offline emulation may not yet cover a request a service worker lets through to the
        // network (it attaches lazily): the door's writes are cut here as well, as a dropped network would
        await context.route("**/checkin/**", (route) => route.request().method() === "POST" ? route.abort("internetdisconnected") : route.fallback())
        // and the cut is in force before the first tap: a request the service worker lets through (as
        // it lets the door's writes) fails, however late the emulation reached the worker
        await expect.poll(() => page.evaluate((url) => fetch(url, { method: "HEAD" }).then(() => "reached", () => "cut"), doorUrl), { timeout: 10_000 }).toBe("cut")
        for (const name of ["Olive Offline", "Rita Removed"]) {
          await page.locator("#door-q").fill(name.split(" ")[0]!)
          await page.getByRole("button", { name: `Check in ${name}` }).tap()
          await expect.poll(() => resultText(page)).toContain("no network")
        }
        await expect.poll(() => page.locator("#door-queue").innerText()).toContain("2 check-ins waiting to send")
        expect(await countText(page)).toBe("4 checked in of 4 expected")
        await page.screenshot({ path: join(SHOTS, "door-offline-queue-360.png") })
        // reloaded without network: the page from the service worker, the list and the queue from storage
        await page.reload()
        await expect.poll(() => page.locator("#door-queue").innerText()).toContain("2 check-ins waiting to send")
        await page.locator("#door-q").fill("grace")
        await expect.poll(() => page.locator("#door-list > li").count()).toBe(1)
        expect(await page.locator("#door-list").innerText()).toContain("Checked in")
        expect(await countText(page)).toBe("4 checked in of 4 expected")
      })
      expect(yield* attendance()).toMatchObject({ Olive: null, Rita: null })
      expectStatus(yield* server.request("DELETE", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: guest["Rita"]!.personId }] } }), 200)
      expectStatus(yield* server.request("PUT", `/event/${event.eventId}/guestlist`, { token, body: { guests: [{ personId: guest["Olive"]!.personId, attendanceStatus: "Attended" }] } }), 200)
      yield* Effect.promise(async () => {
        await context.unroute("**/checkin/**")
        await context.setOffline(false)
        await expect.poll(() => page.locator("#door-queue").innerText(), { timeout: 20_000 }).toContain("Rita Removed: refused by the server")
        expect(await page.locator("#door-queue").innerText()).not.toContain("Olive")
      })
      expect(yield* attendance()).toMatchObject({ Olive: "Attended" })
      expect(errors).toEqual([])

      // a door link: names, status and attendance, no email address anywhere
      const admin = yield* signIn(server.url, member, { origin: server.url, next: "/app/account" })
      const made = yield* admin.post(`/app/events/${event.eventId}/door-links`, { name: "North entrance" })
      const link = /https:\/\/convene\.test(\/door\/[A-Za-z0-9_-]{43})/.exec(textOf((yield* admin.get(made.location!)).html))![1]!
      const volunteer = yield* Effect.promise(async () => {
        const c = await chrome.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true })
        const p = await c.newPage()
        const lists: Array<string> = []
        p.on("response", (r) => void (r.url().endsWith("/guests.json") ? r.text().then((t) => lists.push(t)) : undefined))
        await p.goto(server.url + link)
        await p.waitForSelector("#door[data-loaded]")
        expect(await p.locator("body").innerText()).toContain("Ada Lovelace")
        expect(await p.content()).not.toContain("@")
        expect(lists.join("")).not.toContain("@")
        expect(lists.length).toBeGreaterThan(0)
        await p.screenshot({ path: join(SHOTS, "door-link-360.png") })
        // the volunteer undoes and redoes a check-in, without a page load
        await p.getByRole("button", { name: "Undo check-in of Ada Lovelace" }).first().tap()
        await expect.poll(() => p.locator("#door-result").innerText()).toContain("Check-in of Ada Lovelace undone.")
        await p.locator("#door-q").fill("ada")
        await p.getByRole("button", { name: "Check in Ada Lovelace" }).tap()
        await expect.poll(() => p.locator("#door-result").innerText()).toContain("Ada Lovelace checked in.")
        return { c, p }
      })
      yield* Effect.promise(() => volunteer.c.close())

      // axe: no serious or critical finding on the member's door and the link's
      const cookies = yield* Effect.promise(() => context.cookies())
      expect(yield* Effect.promise(() => axeFindings(chrome, doorUrl, cookies))).toEqual([])
      expect(yield* Effect.promise(() => axeFindings(chrome, server.url + link, []))).toEqual([])
    }), 180_000)
})
