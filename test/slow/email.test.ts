/**
 * Email (docs/integrators.md#email-invitations) below the API: the SMTP_URL and MAIL_FROM settings, the invitation
 * template's two parts, and the Mailer against a real SMTP server (smtp-server), its answers
 * sorted into sent, refused for good (5xx) and worth retrying (4xx, no connection, no answer).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Layer, Option, Redacted } from "effect"
import { createServer } from "node:net"
import { appConfig, AppConfig } from "../../src/Config/AppConfig.js"
import { describeConfigError } from "../../src/Config/Env.js"
import { defaults } from "../../src/Events/EventMapping.js"
import { EventRowId, OrganizationRowId } from "../../src/Domain/RowIds.js"
import type { EventRow } from "../../src/Events/EventRow.js"
import { renderInvitation } from "../../src/Invitations/InvitationEmail.js"
import { failureOf, Mailer, type OutgoingEmail } from "../../src/Email/Mailer.js"
import { smtpSink } from "../support/SmtpSink.js"
import { testEnvironment } from "../support/TestServer.js"

const configWith = (env: Record<string, string>) =>
  appConfig.pipe(
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ ...testEnvironment("/tmp/unused.db"), ...env })))),
    Effect.either
  )

const problem = (env: Record<string, string>) =>
  Effect.map(configWith(env), (result) => (Either.isLeft(result) ? describeConfigError(result.left) : "ok"))

describe("SMTP_URL and MAIL_FROM", () => {
  it.effect("both or neither; each refusal is one line naming the variable, never the password", () =>
    Effect.gen(function*() {
      expect(yield* problem({})).toBe("ok")
      expect(yield* problem({ SMTP_URL: "smtp://mail.example.org" })).toMatch(/^MAIL_FROM must be set with SMTP_URL/)
      expect(yield* problem({ MAIL_FROM: "events@example.org" })).toMatch(/^SMTP_URL must be set with MAIL_FROM/)
      const wrongScheme = yield* problem({ SMTP_URL: "https://user:hunter2@mail.example.org", MAIL_FROM: "events@example.org" })
      expect(wrongScheme).toMatch(/^SMTP_URL must start with smtp:\/\/ or smtps:\/\//)
      expect(wrongScheme).not.toContain("hunter2")
      const garbage = yield* problem({ SMTP_URL: "mail.example.org hunter2", MAIL_FROM: "events@example.org" })
      expect(garbage).toMatch(/^SMTP_URL must be a URL/)
      expect(garbage).not.toContain("hunter2")
      expect(yield* problem({ SMTP_URL: "smtp://mail.example.org", MAIL_FROM: "not an address" })).toMatch(/^MAIL_FROM must be an email address/)
      expect(yield* problem({ SMTP_URL: "smtp://mail.example.org", MAIL_FROM: "Bad\nName <a@b.org>" })).toMatch(/^MAIL_FROM/)
    }))

  it.effect("keeps the URL redacted and reads a name and an address from MAIL_FROM", () =>
    Effect.gen(function*() {
      const config = yield* configWith({ SMTP_URL: "smtps://me:p%40ss@mail.example.org:465", MAIL_FROM: "\"Acme Events\" <events@acme.test>" })
      expect(Either.isRight(config)).toBe(true)
      const email = Option.getOrThrow(Either.getOrThrow(config).email)
      expect(String(email.smtpUrl)).not.toContain("p%40ss")
      expect(Redacted.value(email.smtpUrl)).toBe("smtps://me:p%40ss@mail.example.org:465")
      expect(email).toMatchObject({ fromAddress: "events@acme.test", fromName: "Acme Events" })
    }))
})

const event: EventRow = {
  ...defaults,
  id: EventRowId(1),
  public_id: "2f0c8f4e-7a9b-4c1d-9e2f-0a1b2c3d4e5f",
  organization_id: OrganizationRowId(1),
  name: "Gala <script>alert(1)</script>",
  slug: "gala",
  primary_date: "2030-06-01T20:00:00+02:00",
  primary_date_utc: "2030-06-01T18:00:00.000Z",
  timezone: "Europe/Paris",
  location_name: "Grand Hall",
  location_city: "Paris",
  virtual_locations: JSON.stringify([{ url: "https://meet.example.com/gala", password: null, phoneNumber: null, sourceType: null }]),
  rsvp_description: "Dress code: <b>black tie</b>",
  calendar_sequence: 0,
  updated_at: "2030-05-01T10:00:00.000Z"
}

describe("the invitation template", () => {
  const rendered = renderInvitation({
    event,
    organizer: "Acme & Co",
    guest: { firstName: "Ada <i>", lastName: "Lovelace" },
    rsvpLink: "https://convene.test/rsvp/gala?invite=tok\"en",
    subject: "Hello\r\nBcc: victim@example.com",
    message: "First paragraph <img src=x onerror=alert(1)>\nsame paragraph\n\nSecond paragraph"
  })

  it("says the same in both parts: greeting, message, event, time in its zone, place, online link, RSVP link", () => {
    for (const part of [rendered.text, rendered.html]) {
      expect(part).toContain("Saturday, June 1, 2030")
      expect(part).toContain("8:00 PM")
      expect(part).toContain("Europe/Paris")
      expect(part).toContain("Grand Hall, Paris")
      expect(part).toContain("https://meet.example.com/gala")
      expect(part).toContain("Second paragraph")
    }
    expect(rendered.text).toContain("https://convene.test/rsvp/gala?invite=tok\"en")
    expect(rendered.text).toContain("Hello Ada <i>,")
    expect(rendered.text).toContain("Acme & Co invites you to Gala <script>alert(1)</script>.")
  })

  it("escapes every value in the HTML part", () => {
    expect(rendered.html).not.toContain("<script>")
    expect(rendered.html).not.toContain("<img")
    expect(rendered.html).not.toContain("<b>black tie</b>")
    expect(rendered.html).not.toContain("<i>")
    expect(rendered.html).toContain("Gala &lt;script>alert(1)&lt;/script>")
    expect(rendered.html).toContain("Acme &amp; Co")
    expect(rendered.html).toContain("href=\"https://convene.test/rsvp/gala?invite=tok&quot;en\"")
  })

  it("keeps the subject to one line", () => {
    expect(rendered.subject).toBe("Hello Bcc: victim@example.com")
    expect(renderInvitation({ event, organizer: "Acme", guest: { firstName: "A", lastName: "B" }, rsvpLink: "https://x.test/" }).subject)
      .toBe("Invitation: Gala <script>alert(1)</script>")
  })
})

describe("what an SMTP answer means", () => {
  it("refusing the message with a 5xx is permanent; 4xx, lost connections, timeouts and logins are not", () => {
    expect(failureOf({ code: "EENVELOPE", responseCode: 550, command: "RCPT TO", response: "550 5.1.1 No such user" }).permanent).toBe(true)
    expect(failureOf({ code: "EMESSAGE", responseCode: 554, command: "DATA", response: "554 rejected" }).permanent).toBe(true)
    expect(failureOf({ code: "EENVELOPE", responseCode: 451, command: "RCPT TO", response: "451 greylisted" }).permanent).toBe(false)
    expect(failureOf({ code: "EMESSAGE", responseCode: 452, response: "452 mailbox full" }).permanent).toBe(false)
    expect(failureOf({ code: "ECONNECTION", message: "connect ECONNREFUSED" }).permanent).toBe(false)
    expect(failureOf({ code: "ETIMEDOUT", message: "Greeting never received" }).permanent).toBe(false)
    expect(failureOf({ code: "EAUTH", responseCode: 535, command: "AUTH PLAIN", response: "535 bad credentials" }).permanent).toBe(false)
    expect(failureOf({ code: "EENVELOPE", responseCode: 550, command: "RCPT TO", response: "550 No such user" }).message)
      .toBe("SMTP 550 (RCPT TO): 550 No such user")
  })
})

const message: OutgoingEmail = {
  messageId: "b2c1d8e0-1111-4222-8333-944455556666@convene.test",
  to: "ada@example.com",
  subject: "Invitation: Gala",
  text: "Hello Ada,\nplain part\n",
  html: "<!doctype html><p>Hello Ada, <strong>HTML part</strong></p>",
  attachments: [{ filename: "invitation.ics", contentType: "text/calendar; charset=utf-8; method=PUBLISH", content: "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n" }]
}

/** A Mailer for `SMTP_URL`, with the test environment. */
const mailerFor = (smtpUrl: string, extra: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const config = yield* Effect.flatMap(configWith({ SMTP_URL: smtpUrl, MAIL_FROM: "Acme Events <events@acme.test>", ...extra }), (r) =>
      Either.isRight(r) ? Effect.succeed(r.right) : Effect.dieMessage(describeConfigError(r.left)))
    return yield* Layer.build(Mailer.Default.pipe(Layer.provide(Layer.succeed(AppConfig, config)))).pipe(
      Effect.map((context) => Context.get(context, Mailer))
    )
  })

describe("the Mailer over SMTP", () => {
  it.scopedLive("sends both parts and the calendar file, From = MAIL_FROM, with the stored Message-ID", () =>
    Effect.gen(function*() {
      const sink = yield* smtpSink()
      const mailer = yield* mailerFor(sink.url)
      const sent = yield* mailer.send(message)
      expect(sent.code).toBe(250)
      const [mail] = yield* sink.waitFor(1)
      expect(mail!.from).toBe("events@acme.test")
      expect(mail!.to).toEqual(["ada@example.com"])
      const parsed = mail!.parsed
      expect(parsed.from?.value[0]).toMatchObject({ address: "events@acme.test", name: "Acme Events" })
      expect(parsed.subject).toBe("Invitation: Gala")
      expect(parsed.messageId).toBe(`<${message.messageId}>`)
      expect(parsed.text).toBe("Hello Ada,\nplain part\n")
      expect(parsed.html).toContain("<strong>HTML part</strong>")
      expect(parsed.attachments).toHaveLength(1)
      expect(parsed.attachments[0]!.filename).toBe("invitation.ics")
      expect(parsed.attachments[0]!.contentType).toBe("text/calendar")
      expect(parsed.attachments[0]!.content.toString("utf8")).toBe("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
    }), 30_000)

  it.scopedLive("logs in with the user and password of SMTP_URL, percent-decoded", () =>
    Effect.gen(function*() {
      const sink = yield* smtpSink({ auth: { user: "me@acme.test", pass: "p@ss word/:" } })
      const mailer = yield* mailerFor(`smtp://me%40acme.test:${encodeURIComponent("p@ss word/:")}@127.0.0.1:${sink.port}`)
      yield* mailer.send(message)
      expect(sink.received).toHaveLength(1)
      const wrong = yield* Effect.flip(
        (yield* mailerFor(`smtp://me%40acme.test:wrong@127.0.0.1:${sink.port}`)).send(message)
      )
      expect(wrong.permanent).toBe(false)
      expect(wrong.message).toMatch(/535/)
    }), 30_000)

  it.scopedLive("tells a permanent refusal from a temporary one", () =>
    Effect.gen(function*() {
      const sink = yield* smtpSink()
      sink.answer = (n) => (n === 1 ? { code: 550, message: "5.1.1 No such user" } : { code: 451, message: "4.7.1 Try again later" })
      const mailer = yield* mailerFor(sink.url)
      const permanent = yield* Effect.flip(mailer.send(message))
      expect(permanent).toMatchObject({ permanent: true, code: 550 })
      const temporary = yield* Effect.flip(mailer.send(message))
      expect(temporary).toMatchObject({ permanent: false, code: 451 })
      expect(sink.received).toHaveLength(0)
    }), 30_000)

  it.scopedLive("a server that is not there, or never answers, is a temporary failure within WEBHOOK_TIMEOUT", () =>
    Effect.gen(function*() {
      // a port with nothing listening
      const closed = yield* Effect.async<number>((resume) => {
        const probe = createServer().listen(0, "127.0.0.1", () => {
          const port = (probe.address() as { port: number }).port
          probe.close(() => resume(Effect.succeed(port)))
        })
      })
      const absent = yield* Effect.flip((yield* mailerFor(`smtp://127.0.0.1:${closed}`)).send(message))
      expect(absent.permanent).toBe(false)
      expect(absent.message).toMatch(/ECONNREFUSED|ECONNECTION/)

      // a server that takes the message and never answers
      const sink = yield* smtpSink()
      sink.answer = () => "hang"
      const mailer = yield* mailerFor(sink.url, { WEBHOOK_TIMEOUT: "1 second" })
      const started = Date.now()
      const silent = yield* Effect.flip(mailer.send(message))
      const took = Date.now() - started
      expect(silent.permanent).toBe(false)
      expect(took).toBeGreaterThanOrEqual(900)
      expect(took).toBeLessThan(3_000)
    }), 30_000)
})
