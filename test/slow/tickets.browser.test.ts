/**
 * Tickets in Chromium (docs/integrators.md#calendar-files-and-tickets): a guest opens their RSVP link and answers yes; the ticket
 * on the page is photographed and its QR code decoded by an independent decoder (jsQR) from the
 * screenshot; a Team Member at the door, on a phone-sized screen, checks the guest in with what the
 * QR code holds, typed into the ticket field, and the REST API shows the guest `Attended`. Then the
 * camera path: with a fake camera and a stand-in `BarcodeDetector` (headless Chromium on Linux has
 * none), the scanner reads a second guest's ticket, and one tap checks them in, once. Screenshots are saved
 * under test-artifacts/tickets/.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import jsQRModule from "jsqr"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { PNG } from "pngjs"
import { launchChromium } from "../support/Browser.js"
import { addMember, follow, signInPage, watch, expectQuiet } from "../support/Dashboard.js"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { TestServer, liveServer } from "../support/TestServer.js"

const ARTIFACTS = "test-artifacts/tickets"
/** jsQR is CommonJS whose types declare an ES default export: the function is `default` either way. */
const jsQR = (jsQRModule as unknown as { default: typeof jsQRModule.default }).default
const CODE = /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/

type Server = TestServer["Type"]

/** A link of the API (PUBLIC_BASE_URL) on the test server's own address. */
const local = (server: Server, link: string) => server.url + new URL(link).pathname + new URL(link).search

/** Chromium with a fake camera that needs no permission prompt. */
const browser = Effect.acquireRelease(
  Effect.promise(() => launchChromium(["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"])),
  (b) => Effect.promise(() => b.close())
)

/** Answers yes on the RSVP page and photographs the ticket; answers its code as shown and the screenshot. */
const acceptAndPhotograph = (page: Page, url: string, name: string) =>
  Effect.promise(async () => {
    await page.goto(url)
    await page.getByLabel("Yes, I will be there").check()
    await follow(page, page.getByRole("button", { name: "Send my answer" }))
    await page.waitForURL(/saved=1/)
    const ticket = page.getByRole("region", { name: "Your ticket" })
    await ticket.waitFor()
    const code = (await ticket.locator(".code").innerText()).replace("Ticket code:", "").trim()
    await page.screenshot({ path: join(ARTIFACTS, `rsvp-ticket-${name}.png`), fullPage: true })
    const shot = await ticket.locator("svg").screenshot({ path: join(ARTIFACTS, `ticket-qr-${name}.png`) })
    return { code, shot }
  })

/** What the QR code in a PNG screenshot holds, read by jsQR. */
const decode = (png: Buffer) => {
  const image = PNG.sync.read(png)
  const found = jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), image.width, image.height)
  expect(found, "a QR code in the screenshot").not.toBeNull()
  return found!.data
}

layer(liveServer(), { excludeTestServices: true })("tickets in Chromium", (it) => {
  it.scoped("a guest's ticket, photographed and decoded, checks them in at the door on a phone", () =>
    Effect.gen(function*() {
      mkdirSync(ARTIFACTS, { recursive: true })
      const server = yield* TestServer
      const slug = `tickets-browser-${process.pid}`
      const organization = yield* server.organization(slug)
      const token = organization.token
      const event = yield* createEvent(server, { name: "Harbor Night Market", primarySlug: slug, timezone: "Europe/Lisbon" }, token)
      const added = expectStatus(
        yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
          token,
          body: {
            guests: [
              { firstName: "Ada", lastName: "Lovelace", email: uniqueEmail("ada") },
              { firstName: "Grace", lastName: "Hopper", email: uniqueEmail("grace") }
            ]
          }
        }),
        200
      ).body.guests as Array<Record<string, any>>
      const [ada, grace] = expectStatus(
        yield* server.request("GET", `/event/${event.eventId}/guestlist/search?personIds=${added.map((g) => g.personId).join(",")}&generateRsvpLinks=true`, { token }),
        200
      ).body.guests as Array<Record<string, any>>
      const member = yield* addMember({ id: organization.id, slug, name: slug }, "Team Member")
      const attendance = () =>
        Effect.map(server.request("GET", `/event/${event.eventId}/guestlist`, { token }), (r) =>
          Object.fromEntries((expectStatus(r, 200).body.guests as Array<Record<string, any>>).map((g) => [g.personId, g.attendanceStatus])))

      const chrome = yield* browser
      const guestContext = yield* Effect.acquireRelease(
        Effect.promise(() => chrome.newContext({ viewport: { width: 390, height: 844 } })),
        (c) => Effect.promise(() => c.close())
      )
      const guestPage = yield* Effect.promise(() => guestContext.newPage())
      const guestWatched = watch(guestPage)

      // Ada answers yes: her ticket's QR code, read from a screenshot, holds the door's address with her code
      const adas = yield* acceptAndPhotograph(guestPage, local(server, ada!.rsvpLink), "ada")
      expect(adas.code).toMatch(CODE)
      const decoded = decode(adas.shot)
      expect(decoded).toBe(`https://convene.test/app/events/${event.eventId}/checkin?ticket=${adas.code.replace("-", "")}`)
      expectQuiet(guestWatched, "RSVP page with a ticket")

      // the door, on a phone: signed in as a Team Member, the decoded text typed into the ticket field
      const doorContext = yield* Effect.acquireRelease(
        Effect.promise(() => chrome.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true })),
        (c) => Effect.promise(() => c.close())
      )
      const door = yield* Effect.promise(() => doorContext.newPage())
      const doorWatched = watch(door)
      const doorUrl = `${server.url}/app/events/${event.eventId}/checkin`
      yield* Effect.promise(async () => {
        await signInPage(door, server.url, member)
        await door.goto(doorUrl)
        await door.getByRole("heading", { name: "Scan a ticket" }).waitFor()
        await door.waitForSelector("#door[data-loaded]")
        // no BarcodeDetector in this browser: the camera reads with the same-origin jsQR
        expect(await door.evaluate(() => "BarcodeDetector" in window)).toBe(false)
        expect(await door.getByRole("button", { name: "Scan with the camera" }).isVisible()).toBe(true)
        await door.screenshot({ path: join(ARTIFACTS, "door-360.png"), fullPage: true })
        // what the QR code holds, typed (or pasted, or sent by a scanner) into the search field with Enter
        await door.locator("#door-q").fill(decoded)
        await door.locator("#door-q").press("Enter")
        // whose ticket it is, then one tap lets them in (door.js: no page load)
        await door.getByRole("button", { name: "Check in Ada Lovelace" }).first().tap()
        await door.locator(".door-result.done").waitFor()
      })
      const banner = yield* Effect.promise(() => door.locator(".door-result").innerText())
      expect(banner).toContain("Ada Lovelace checked in.")
      yield* Effect.promise(() => door.screenshot({ path: join(ARTIFACTS, "door-checked-in-360.png"), fullPage: true }))
      expect((yield* attendance())[ada!.personId]).toBe("Attended")
      expectQuiet(doorWatched, "door page")

      // the camera: Grace's ticket, read by the scanner (a stand-in detector that sees what her QR code holds)
      const graces = yield* acceptAndPhotograph(guestPage, local(server, grace!.rsvpLink), "grace")
      const graceDecoded = decode(graces.shot)
      const scanner = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const context = await chrome.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true })
          await context.grantPermissions(["camera"], { origin: server.url })
          await context.addInitScript((held: string) => {
            class StandInDetector {
              static async getSupportedFormats() {
                return ["qr_code"]
              }
              async detect() {
                return [{ rawValue: held, format: "qr_code" }]
              }
            }
            Object.assign(window, { BarcodeDetector: StandInDetector })
          }, graceDecoded)
          return context
        }),
        (c) => Effect.promise(() => c.close())
      )
      const camera = yield* Effect.promise(() => scanner.newPage())
      const cameraWatched = watch(camera)
      const posts: Array<string> = []
      camera.on("request", (request) => {
        if (request.method() === "POST" && request.url().includes("/checkin/")) posts.push(request.url())
      })
      yield* Effect.promise(async () => {
        await signInPage(camera, server.url, member)
        await camera.goto(doorUrl)
        await camera.waitForSelector("#door[data-loaded]")
        const start = camera.getByRole("button", { name: "Scan with the camera" })
        await start.waitFor()
        await camera.screenshot({ path: join(ARTIFACTS, "door-scanner-360.png"), fullPage: true })
        await start.tap()
        // not in express mode: whose ticket it is, checked in with one tap
        await camera.locator("#door-result").getByRole("button", { name: "Check in Grace Hopper" }).tap()
        await camera.locator(".door-result.done").waitFor()
      })
      expect(yield* Effect.promise(() => camera.locator(".door-result").innerText())).toContain("Grace Hopper checked in.")
      // the ticket still held up is read again after a pause: already in, nothing sent again
      yield* Effect.promise(() => camera.locator(".door-result.refused").waitFor({ timeout: 10_000 }))
      expect(posts).toHaveLength(1)
      expect(yield* Effect.promise(() => camera.locator("#door-result").innerText())).toContain("Grace Hopper is already checked in")
      yield* Effect.promise(() => camera.screenshot({ path: join(ARTIFACTS, "door-scanned-360.png"), fullPage: true }))
      yield* Effect.promise(() => camera.getByRole("button", { name: "Stop the camera" }).tap())
      expect((yield* attendance())[grace!.personId]).toBe("Attended")
      expectQuiet(cameraWatched, "door page with the camera")
    }), 120_000)
})
