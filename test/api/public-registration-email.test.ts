/**
 * Self-registration with email configured (CONTRACT §16), through the suite's SMTP server: one
 * answer page for every valid registration ("check your email"), whether the address was known or
 * not; the confirmation naming the status, with the personal RSVP link (whose page offers "No, I
 * can't make it"), the calendar file and, when Accepted, the ticket; an address already on the list
 * gets its existing link again, at most once an hour; registration emails count toward the
 * organization's daily quota (past it, the registration stands and no email goes).
 */
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import ICAL from "ical.js"
import { queryDatabase } from "../support/Engine.js"
import { uniqueEmail } from "../support/Fixtures.js"
import { outboxSettled } from "../support/Outbox.js"
import { emailsTo, MAIL_FROM, waitForEmails } from "../support/Invitations.js"
import { guestsByEmail, publicEvent, register } from "../support/PublicPage.js"
import { type SmtpSink, smtpSink } from "../support/SmtpSink.js"
import { TestServer, testServer } from "../support/TestServer.js"

class Sink extends Context.Tag("test/Sink")<Sink, SmtpSink>() {}

const withSmtp = Layer.unwrapScoped(Effect.map(smtpSink(), (sink) =>
  Layer.merge(
    testServer({ SMTP_URL: sink.url, MAIL_FROM, TRUSTED_PROXIES: "127.0.0.1", EMAIL_DAILY_LIMIT: "3" }),
    Layer.succeed(Sink, sink)
  )))

let orgs = 0

/** An organization of its own (the daily quota is per organization) and a public event of it. */
const ownEvent = (fields: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const server = yield* TestServer
    const org = yield* server.organization(`reg-mail-${process.pid}-${++orgs}`)
    const { event, slug } = yield* publicEvent(server, { name: "Mail Gala", ...fields }, org.token)
    return { server, org, event, slug }
  })

const local = (server: TestServer["Type"], link: string) => link.replace("https://convene.test", server.url)

layer(withSmtp, { timeout: 90_000, excludeTestServices: true })("self-registration with email", (it) => {
  it.effect("the same 'check your email' page for a new and a known address; the confirmation names the status, with the link, the .ics and the ticket", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const { event, org, server, slug } = yield* ownEvent({ capacityEnabled: true, capacity: 1, replyTo: "host@example.org" })
      const first = uniqueEmail("mail-first")
      const second = uniqueEmail("mail-second")
      const one = yield* register(server, slug, { email: first, firstName: "Ann" })
      expect(one.status).toBe(200)
      expect(one.text).toContain("Check your email")
      expect(one.text).not.toContain("invite=")
      const [mail] = yield* waitForEmails(sink, [first])
      expect(mail!.parsed.subject).toBe("You're registered: Mail Gala")
      const text = mail!.parsed.text!
      expect(text).toContain("Hello Ann")
      // every email about an event answers to its replyTo (CONTRACT §17)
      expect(mail!.parsed.replyTo?.text).toBe("host@example.org")
      const link = /https:\/\/convene\.test\/rsvp\/\S+\?invite=\S+/.exec(text)![0]
      expect(mail!.parsed.html).toContain(link)
      const guest = (yield* guestsByEmail(server, event.eventId, org.token)).get(first)!
      expect(guest.rsvpStatus).toBe("Accepted")
      expect(guest.rsvpLink).toBe(link)
      expect(text).toMatch(/Your ticket: [A-Z0-9]{5}-[A-Z0-9]{5}/)
      const ics = mail!.parsed.attachments.find((a) => a.filename === "invitation.ics")!
      const vevent = new ICAL.Component(ICAL.parse(ics.content.toString("utf8"))).getFirstSubcomponent("vevent")!
      expect(new ICAL.Event(vevent).summary).toBe("Mail Gala")
      // the ticket's QR code, inline in the HTML part
      const qr = mail!.parsed.attachments.find((a) => a.contentType === "image/png")
      expect(qr?.cid).toBe("ticket@convene")
      expect(mail!.parsed.html).toContain("data:image/png;base64") // mailparser inlines cid: images
      // the guest's page offers "No, I can't make it", which frees the place
      const rsvpPage = yield* Effect.promise(() => server.fetch(local(server, link)).then((r) => r.text()))
      expect(rsvpPage).toMatch(/No, I can(&#39;|')t make it/)

      const two = yield* register(server, slug, { email: second })
      const [waiting] = yield* waitForEmails(sink, [second])
      expect(waiting!.parsed.subject).toBe("You're on the waitlist: Mail Gala")
      expect(waiting!.parsed.text).not.toMatch(/Your ticket/)
      expect(waiting!.parsed.attachments.some((a) => a.contentType === "image/png")).toBe(false)
      // a known address gets the very same page
      const again = yield* register(server, slug, { email: first.toUpperCase(), firstName: "Someone" })
      expect(again.text).toBe(one.text)
      expect(two.text).toBe(one.text)
    }))

  it.effect("an address already on the list gets its existing link again, at most once an hour; approval: 'awaiting approval'", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const { event, org, server, slug } = yield* ownEvent({ registrationApproval: true })
      const email = uniqueEmail("mail-pending")
      yield* register(server, slug, { email })
      const [confirmation] = yield* waitForEmails(sink, [email])
      expect(confirmation!.parsed.subject).toBe("Registration received, awaiting approval: Mail Gala")
      // registered again at once: within the hour of the confirmation, no email
      yield* register(server, slug, { email })
      yield* outboxSettled(server)
      expect(emailsTo(sink, [email])).toHaveLength(1)
      const guest = (yield* guestsByEmail(server, event.eventId, org.token)).get(email)!
      expect(guest.rsvpStatus).toBe("Pending")
      expect(guest.rsvpStatusHistory).toHaveLength(1)
    }))

  it.effect("an address already on the list, not emailed in the last hour, gets its link again; registration emails count toward the daily quota", () =>
    Effect.gen(function*() {
      const sink = yield* Sink
      const { event, org, server, slug } = yield* ownEvent()
      const known = uniqueEmail("mail-known")
      yield* server.request("POST", `/event/${event.eventId}/guestlist`, {
        token: org.token,
        body: { guests: [{ email: known, firstName: "Kim", lastName: "Known" }], generateRsvpLinks: true }
      })
      yield* register(server, slug, { email: known })
      const [mail] = yield* waitForEmails(sink, [known])
      expect(mail!.parsed.subject).toBe("Your link: Mail Gala")
      const link = (yield* guestsByEmail(server, event.eventId, org.token)).get(known)!.rsvpLink as string
      expect(mail!.parsed.text).toContain(link)
      expect(mail!.parsed.text).toContain("already on the guest list")
      // the quota is 3 a day: two more registrations use it up, the next one is stored without an email
      const more = [uniqueEmail("mail-q1"), uniqueEmail("mail-q2"), uniqueEmail("mail-q3")]
      for (const email of more) expect((yield* register(server, slug, { email })).text).toContain("Check your email")
      yield* waitForEmails(sink, more.slice(0, 2))
      yield* outboxSettled(server)
      expect(emailsTo(sink, more.slice(2))).toHaveLength(0)
      expect((yield* guestsByEmail(server, event.eventId, org.token)).get(more[2]!)!.rsvpStatus).toBe("Accepted")
      // no email went, so none counts as this hour's: the claim went back with it
      const emailedAt = (address: string) =>
        Effect.promise(() =>
          queryDatabase<{ at: string | null }>(
            server.databaseEnv,
            "SELECT g.link_emailed_at AS at FROM event_guests g JOIN persons p ON p.id = g.person_id WHERE p.email = ?",
            [address]
          )
        )
      expect((yield* emailedAt(more[2]!))[0]!.at).toBeNull()
      expect((yield* emailedAt(more[1]!))[0]!.at).not.toBeNull()
    }))
})
