/**
 * An event's public page in Chromium, as a guest uses it (CONTRACT §16): at 360 px, with scripts on
 * and off, by keyboard alone (the honeypot out of the tab order), axe-core finding no serious or
 * critical violation on the page, a refused form and the answer; registering sends the
 * confirmation, which is rendered here too. Screenshots: test-artifacts/dashboard/public-*.png and
 * test-artifacts/public/confirmation-email.png (the docs' copies: docs/screenshots/).
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { browser } from "../support/Browser.js"
import { Auditor, expectQuiet } from "../support/Dashboard.js"
import { uniqueEmail } from "../support/Fixtures.js"
import { emailsTo, MAIL_FROM, waitForEmails } from "../support/Invitations.js"
import { guestsByEmail, publicEvent } from "../support/PublicPage.js"
import { type SmtpSink, smtpSink } from "../support/SmtpSink.js"
import { liveServer, TestServer } from "../support/TestServer.js"

class Sink extends Context.Tag("test/Sink")<Sink, SmtpSink>() {}

const withSmtp = Layer.unwrapScoped(Effect.map(smtpSink(), (sink) =>
  Layer.merge(liveServer({ SMTP_URL: sink.url, MAIL_FROM }), Layer.succeed(Sink, sink))))

layer(withSmtp, { timeout: 180_000, excludeTestServices: true })("the public event page in Chromium", (it) => {
  it.scoped("a guest registers at 360 px with scripts on and off, by keyboard; axe finds nothing serious", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      const { event, slug } = yield* publicEvent(server, {
        name: "Harbor Lights Festival",
        primaryDate: "2031-06-01T19:30:00+02:00",
        endDate: "2031-06-01T23:30:00+02:00",
        locationName: "Pier 9",
        locationAddress: "9 Quai des Lanternes",
        locationCity: "Marseille",
        rsvpDescription: "Lanterns on the water, music until late.\nBring a warm coat: the pier is windy after dark.",
        capacityEnabled: true,
        capacity: 40,
        rsvpQuestions: [{ title: "How did you hear about us?", description: "Optional" }]
      })
      const closed = yield* publicEvent(server, { name: "Closed Gala", registrationOpen: false, locationName: "Town Hall" })
      const chromium = yield* browser
      const url = `${server.url}/e/${slug}`

      // axe, one h1 and screenshots of the page at both widths, and of a refused form and the answer
      for (const width of [1280, 360]) {
        const auditor = yield* Effect.acquireRelease(Effect.promise(() => Auditor.open(chromium, width)), (a) => Effect.promise(() => a.context.close()))
        yield* Effect.promise(() => auditor.visit(url, "public-page"))
        if (width === 1280) {
          yield* Effect.promise(() => auditor.visit(`${server.url}/e/${closed.slug}`, "public-closed"))
          yield* Effect.promise(() => auditor.visit(`${server.url}/e/no-such-event`, "public-not-found", { status: 404 }))
        }
        if (width === 360) {
          // no sideways scrolling at 360 px
          expect(yield* Effect.promise(() => auditor.page.evaluate(() => document.documentElement.scrollWidth))).toBeLessThanOrEqual(360)
          yield* Effect.promise(async () => {
            await auditor.page.getByLabel("First name").fill("Ada")
            await auditor.page.getByLabel("Last name").fill("Lovelace")
            await auditor.page.locator("#email").fill("ada@localhost")
            await auditor.page.getByRole("button", { name: "Register" }).click()
            await auditor.audit("public-refused", { status: 400 })
          })
          expect(yield* Effect.promise(() => auditor.page.getByRole("alert").innerText())).toContain("Email must be an email address.")
          yield* Effect.promise(async () => {
            await auditor.page.locator("#email").fill(uniqueEmail("audited"))
            await auditor.page.getByRole("button", { name: "Register" }).click()
            await auditor.audit("registration-done")
          })
          expect(yield* Effect.promise(() => auditor.page.locator("h1").innerText())).toBe("Check your email")
        }
        expectQuiet(auditor.watched, `public page at ${width} px`)
      }

      // by keyboard alone, scripts off: Tab reaches every field in order, never the honeypot; Enter sends
      for (const javaScriptEnabled of [false, true]) {
        const context = yield* Effect.acquireRelease(
          Effect.promise(() => chromium.newContext({ viewport: { width: 360, height: 740 }, javaScriptEnabled })),
          (c) => Effect.promise(() => c.close())
        )
        const page = yield* Effect.promise(() => context.newPage())
        const email = uniqueEmail(javaScriptEnabled ? "keyboard-js" : "keyboard-nojs")
        const focused: Array<string> = []
        yield* Effect.promise(async () => {
          await page.goto(url)
          await page.locator("a.calendar-link, .calendar-link a").focus()
          for (const text of ["Ada", "Keys", email, "A friend"]) {
            await page.keyboard.press("Tab")
            focused.push(await page.evaluate(() => document.activeElement?.id ?? ""))
            await page.keyboard.type(text)
          }
          await page.keyboard.press("Tab")
          focused.push(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value ?? ""))
          await page.keyboard.press("Space")
          for (let i = 0; i < 20; i++) {
            await page.keyboard.press("Tab")
            const here = await page.evaluate(() => `${document.activeElement?.tagName}#${document.activeElement?.id}`)
            focused.push(here)
            if (here.startsWith("BUTTON")) break
          }
          await Promise.all([page.waitForURL(/\/register$/), page.keyboard.press("Enter")])
        })
        expect(focused.slice(0, 5)).toEqual(["firstName", "lastName", "email", "answer0", "Vegetarian"])
        expect(focused).not.toContain("INPUT#website")
        expect(focused.at(-1)).toBe("BUTTON#")
        expect(yield* Effect.promise(() => page.locator("h1").innerText())).toBe("Check your email")
        const guest = (yield* guestsByEmail(server, event.eventId)).get(email)!
        expect(guest).toMatchObject({ firstName: "Ada", lastName: "Keys", rsvpStatus: "Accepted", dietaryRestrictions: ["Vegetarian"] })
        expect(guest.rsvpQuestionResponses[0].answers).toEqual(["A friend"])
        yield* waitForEmails(sink, [email])
      }

      // the confirmation as a mail reader shows it
      const [mail] = emailsTo(sink, sink.received.flatMap((m) => m.to).filter((to) => to.startsWith("keyboard-js")))
      const context = yield* Effect.acquireRelease(Effect.promise(() => chromium.newContext({ viewport: { width: 640, height: 900 } })), (c) => Effect.promise(() => c.close()))
      const page = yield* Effect.promise(() => context.newPage())
      mkdirSync("test-artifacts/public", { recursive: true })
      yield* Effect.promise(async () => {
        await page.setContent(mail!.parsed.html as string)
        await page.screenshot({ path: "test-artifacts/public/confirmation-email.png", fullPage: true })
      })
      expect(yield* Effect.promise(() => page.locator("h1").innerText())).toBe("You're registered")
    }))
})
