/**
 * Reminders end to end (CONTRACT §17): the build run as a process, a real SMTP server. A reminder
 * that came due while the service was stopped goes out once it is back (late, before the start),
 * to each `Accepted` guest only, with the event's Reply-To; a second restart sends it again to
 * nobody (the marks of `reminders_sent` survive the process). Runs on both engines (the
 * constraint is the database's). The rule and the scheduler: test/unit/reminders.test.ts; the
 * marks on both engines: test/repo/reminders.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { createEvent, expectStatus, uniqueEmail } from "../support/Fixtures.js"
import { emailsTo, MAIL_FROM, waitForEmails } from "../support/Invitations.js"
import { startServer } from "../support/Process.js"
import { smtpSink } from "../support/SmtpSink.js"
import { API_TOKEN, send, temporaryDirectory, type TestServer, testEnvironment } from "../support/TestServer.js"

type Server = TestServer["Type"]

describe("reminders across restarts", () => {
  it.scopedLive("one due while the service was stopped goes out when it is back, once, also across another restart", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const sink = yield* smtpSink()
      const env = { ...testEnvironment(join(dir, "convene.db")), SMTP_URL: sink.url, MAIL_FROM, WEBHOOK_RETRY_SCHEDULE: "200ms", LOG_LEVEL: "Error" }

      const first = yield* startServer(env)
      const api = send(first.url)
      // starts in 60 s; its reminder (53 s before) comes due in about 7 s, while the service is
      // stopped (adding three guests and stopping take about a second, more on a busy machine)
      const startAt = Date.now() + 60_000
      const dueAt = startAt - 53_000
      const event = yield* createEvent({ request: api } as unknown as Server, {
        name: "Launch Night",
        primaryDate: new Date(startAt).toISOString(),
        timezone: "Europe/Paris",
        locationName: "Dock 5",
        reminders: ["PT53S"],
        replyTo: "host@acme.test",
        virtualLocations: [{ url: "https://meet.example.com/launch", password: null, phoneNumber: null, sourceType: null }]
      })
      const guests = ["Ann", "Ben", "Cat"].map((firstName) => ({ firstName, lastName: "Guest", email: uniqueEmail(`remind-${firstName.toLowerCase()}`) }))
      const added = expectStatus(yield* api("POST", `/event/${event.eventId}/guestlist`, { token: API_TOKEN, body: { guests } }), 200).body
      const ids = (added.guests as Array<{ personId: string }>).map((g) => g.personId)
      expectStatus(
        yield* api("PUT", `/event/${event.eventId}/guestlist`, {
          token: API_TOKEN,
          body: { guests: [{ personId: ids[0], rsvpStatus: "Accepted" }, { personId: ids[1], rsvpStatus: "Accepted" }, { personId: ids[2], rsvpStatus: "Declined" }] }
        }),
        200
      )
      expect(yield* first.kill("SIGTERM")).toBe(0)
      expect(Date.now()).toBeLessThan(dueAt)
      expect(sink.received).toEqual([])

      // back after the reminder's time: the first pass sends it
      yield* Effect.sleep(Math.max(0, dueAt - Date.now() + 1_000))
      const second = yield* startServer(env)
      const accepted = [guests[0]!.email, guests[1]!.email]
      const mails = yield* waitForEmails(sink, accepted, 20_000)
      expect(Date.now()).toBeLessThan(startAt)
      expect(mails.map((m) => m.parsed.subject)).toEqual(mails.map(() => expect.stringMatching(/^Reminder: Launch Night starts in (less than a minute|1 minute)$/)))
      const ann = mails.find((m) => m.to.includes(guests[0]!.email))!
      expect(ann.parsed.replyTo?.text).toBe("host@acme.test")
      expect(ann.parsed.text).toContain("Where: Dock 5")
      expect(ann.parsed.text).toContain("https://meet.example.com/launch")
      expect(ann.parsed.text).toMatch(/Your ticket: [0-9A-Z]{5}-[0-9A-Z]{5}/)
      expect(ann.parsed.text).toMatch(/https:\/\/convene\.test\/rsvp\/[^?]+\?invite=\S+/)
      expect(second.url).not.toBe("")
      expect(yield* second.kill("SIGTERM")).toBe(0)

      // another restart before the start: nothing again, for anybody
      const third = yield* startServer(env)
      yield* Effect.sleep("3 seconds")
      expect(emailsTo(sink, accepted)).toHaveLength(2)
      expect(emailsTo(sink, [guests[2]!.email])).toEqual([])
      expect(sink.received).toHaveLength(2)
      expect(yield* third.kill("SIGTERM")).toBe(0)
    }), 120_000)
})
