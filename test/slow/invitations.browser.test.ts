/**
 * An invitation from end to end in Chromium (docs/integrators.md#email-invitations): an organizer ticks a guest on the guest
 * list, writes the invitation, checks the preview and sends it; a real SMTP server receives the
 * email; the guest opens the link from the email and answers yes; the guest list says Accepted.
 * Pages must raise no console error (the CSP forbids inline styles and scripts).
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { browser } from "../support/Browser.js"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { type SmtpSink, smtpSink } from "../support/SmtpSink.js"
import { ADMIN_EMAIL, ADMIN_PASSWORD, TestServer, liveServer } from "../support/TestServer.js"

class Sink extends Context.Tag("test/BrowserSink")<Sink, SmtpSink>() {}

const withSmtp = Layer.unwrapScoped(Effect.map(smtpSink(), (sink) =>
  Layer.merge(liveServer({ SMTP_URL: sink.url, MAIL_FROM: "Acme Events <events@acme.test>", WEBHOOK_RETRY_SCHEDULE: "300ms" }), Layer.succeed(Sink, sink))))

layer(withSmtp, { excludeTestServices: true, timeout: 120_000 })("invitations in Chromium", (it) => {
  it.scoped("an organizer sends an invitation from the guest list; the guest opens the emailed link and answers yes", () =>
    Effect.gen(function*() {
      const server = yield* TestServer
      const sink = yield* Sink
      const event = yield* createEvent(server, {
        name: "Lantern Walk",
        primaryDate: "2031-10-04T18:30:00+01:00",
        timezone: "Europe/London",
        locationName: "Old Harbour"
      })
      const email = uniqueEmail("ines")
      const added = expectStatus(
        yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
          body: { guests: [{ email, firstName: "Inès", lastName: "Moreau" }, { email: uniqueEmail("other"), firstName: "Otto", lastName: "Other" }] }
        }),
        200
      )
      const ines = (added.body.guests as Array<{ personId: string; email: string }>).find((g) => g.email === email)!

      const chromium = yield* browser
      const context = yield* Effect.acquireRelease(
        Effect.promise(() => chromium.newContext({ viewport: { width: 1280, height: 900 } })),
        (c) => Effect.promise(() => c.close())
      )
      const page = yield* Effect.promise(() => context.newPage())
      const errors: Array<string> = []
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text())
      })
      page.on("pageerror", (e) => errors.push(e.message))

      yield* Effect.promise(async () => {
        await page.goto(`${server.url}/app/login`)
        await page.getByLabel("Email").fill(ADMIN_EMAIL)
        await page.getByLabel("Password").fill(ADMIN_PASSWORD)
        await page.getByRole("button", { name: "Sign in" }).click()
        await page.waitForURL((u) => !u.pathname.startsWith("/app/login"))
        await page.goto(`${server.url}/app/events/${event.eventId}/guests`)
        await page.locator(`input[name=personId][value="${ines.personId}"]`).check()
        await Promise.all([page.waitForURL(/\/invitations\/new$/), page.getByRole("button", { name: "Send invitations" }).click()])
        expect((await page.getByRole("heading", { level: 1 }).textContent())?.trim()).toBe("Send invitations")
        expect(await page.getByLabel("The 1 guest you selected").isChecked()).toBe(true)
        await page.getByLabel("Subject").fill("Walk with us")
        await page.getByLabel("Your message (optional)").fill("Bring a lantern!")
        await Promise.all([page.waitForURL(/\/invitations\/preview$/), page.getByRole("button", { name: "Preview the email" }).click()])
        expect((await page.getByRole("heading", { level: 1 }).textContent())?.trim()).toBe("Check the invitation")
        expect(await page.locator(".email-preview").textContent()).toContain("Bring a lantern!")
        expect(await page.locator(".email-preview").textContent()).toContain("Europe/London")
        await Promise.all([page.waitForURL(/\/invitations$/), page.getByRole("button", { name: "Send 1 invitation" }).click()])
        expect(await page.getByRole("status").textContent()).toContain("1 invitation queued.")
      })

      // the email arrives; its link is the guest's RSVP page
      const started = Date.now()
      while (!sink.received.some((m) => m.to.includes(email))) {
        if (Date.now() - started > 15_000) return yield* Effect.dieMessage("the invitation never arrived")
        yield* Effect.sleep("25 millis")
      }
      const mail = sink.received.find((m) => m.to.includes(email))!
      expect(mail.parsed.subject).toBe("Walk with us")
      const link = /https:\/\/convene\.test\/rsvp\/\S+/.exec(mail.parsed.text ?? "")![0]
      const guestPage = yield* Effect.promise(() => context.newPage())
      yield* Effect.promise(async () => {
        await guestPage.goto(server.url + new URL(link).pathname + new URL(link).search)
        expect((await guestPage.getByRole("heading", { level: 1 }).textContent())?.trim()).toBe("Lantern Walk")
        await guestPage.getByLabel("Yes, I will be there").check()
        await guestPage.getByRole("button", { name: "Send my answer" }).click()
        await guestPage.waitForURL(/saved=1/)
      })
      const guests = (yield* server.request("GET", `/event/${event.eventId}/guestlist`)).body.guests as Array<{ personId: string; rsvpStatus: string }>
      expect(guests.find((g) => g.personId === ines.personId)?.rsvpStatus).toBe("Accepted")

      // the log says it was sent
      yield* Effect.promise(async () => {
        await page.goto(`${server.url}/app/events/${event.eventId}/invitations`)
        expect(await page.getByRole("table").textContent()).toContain("Inès Moreau")
        expect(await page.getByRole("table").textContent()).toContain("Sent")
      })
      expect(errors).toEqual([])
    }))
})
