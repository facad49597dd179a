/**
 * Status emails (CONTRACT §17) over stub layers: which status changes are news to the guest (a
 * decision on a `Pending` registration; a promotion is told by the promotion itself:
 * test/unit/waitlist.test.ts), and what the guest lists hand the `StatusMailer` port
 * (src/Guests/StatusEmails.ts): each guest's email, name, own RSVP link and, when `Accepted`, ticket;
 * nothing without email configured, for a guest without an email, or for one removed meanwhile.
 * The emails over SMTP: test/api/status-emails.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { EventRowId, GuestRowId, OrganizationRowId, PersonRowId } from "../../src/Domain/RowIds.js"
import type { EventRow } from "../../src/Events/EventRow.js"
import { GuestInvites } from "../../src/Guests/GuestInvites.js"
import { type GuestRow, GuestsRepo } from "../../src/Guests/GuestsRepo.js"
import { GuestStatusEmails } from "../../src/Guests/StatusEmails.js"
import { newsOf, type StatusMailGuest, StatusMailer } from "../../src/Guests/StatusMail.js"
import { TicketCodes } from "../../src/Guests/TicketCodes.js"
import { PublicOrigin } from "../../src/Runtime/PublicOrigin.js"
import { makeTestLayer } from "../support/TestLayer.js"

describe("the news of a status change", () => {
  it("is a decision on a Pending registration: approved (Accepted or Waitlisted) or declined; nothing else", () => {
    expect(newsOf("Pending", "Accepted")).toEqual({ kind: "approved", rsvpStatus: "Accepted" })
    expect(newsOf("Pending", "Waitlisted")).toEqual({ kind: "approved", rsvpStatus: "Waitlisted" })
    expect(newsOf("Pending", "Declined")).toEqual({ kind: "declined", rsvpStatus: "Declined" })
    expect(newsOf("Pending", "Maybe")).toBeUndefined()
    expect(newsOf("Pending", "Pending")).toBeUndefined()
    expect(newsOf("Invited", "Accepted")).toBeUndefined()
    expect(newsOf("Waitlisted", "Accepted")).toBeUndefined()
    expect(newsOf("Accepted", "Declined")).toBeUndefined()
  })
})

const event = { id: EventRowId(7), public_id: "event-7", organization_id: OrganizationRowId(3), name: "Gala", slug: "gala" } as EventRow

const row = (gid: number, fields: Partial<GuestRow> = {}): GuestRow => ({
  gid: GuestRowId(gid),
  person_id: PersonRowId(gid),
  public_id: `person-${gid}`,
  first_name: `First${gid}`,
  last_name: `Last${gid}`,
  email: `g${gid}@example.org`,
  removed_at: null,
  ...fields
} as GuestRow)

const over = (configured: boolean, rows: ReadonlyArray<GuestRow>) => {
  const sent: Array<ReadonlyArray<StatusMailGuest>> = []
  const issued: Array<number> = []
  const layer = GuestStatusEmails.DefaultWithoutDependencies.pipe(
    Layer.provide(Layer.succeed(StatusMailer, { configured, send: (_, guests) => Effect.sync(() => void sent.push(guests)) })),
    Layer.provide(makeTestLayer(GuestsRepo)({ byIds: (ids) => Effect.succeed(rows.filter((r) => ids.includes(r.gid))) })),
    Layer.provide(makeTestLayer(GuestInvites)({ ensureInviteTokens: (_, __, guests) => Effect.succeed(new Map(guests.map((g) => [g.gid, `token-${g.gid}`]))) })),
    Layer.provide(makeTestLayer(TicketCodes)({ issue: (gid) => Effect.sync(() => (issued.push(gid), `CODE${gid}`)) })),
    Layer.provide(makeTestLayer(PublicOrigin)({ rsvpLink: (slug, token) => token === null ? null : `https://convene.test/rsvp/${slug}?invite=${token}` }))
  )
  return { layer, sent, issued }
}

describe("the guest lists' status emails", () => {
  it.effect("hands the port each guest's news, email, name, own link, and a ticket only when Accepted", () => {
    const fake = over(true, [row(1), row(2), row(3, { email: "" }), row(4, { removed_at: "2031-01-01T00:00:00.000Z" })])
    return Effect.gen(function*() {
      const emails = yield* GuestStatusEmails
      yield* emails.tell(event, [
        { guestId: GuestRowId(1), news: { kind: "approved", rsvpStatus: "Accepted" } },
        { guestId: GuestRowId(2), news: { kind: "declined", rsvpStatus: "Declined" } },
        { guestId: GuestRowId(3), news: { kind: "approved", rsvpStatus: "Waitlisted" } },
        { guestId: GuestRowId(4), news: { kind: "promoted", rsvpStatus: "Accepted" } }
      ])
      expect(fake.sent).toEqual([[
        {
          news: { kind: "approved", rsvpStatus: "Accepted" },
          email: "g1@example.org",
          firstName: "First1",
          lastName: "Last1",
          rsvpLink: "https://convene.test/rsvp/gala?invite=token-1",
          ticketCode: "CODE1"
        },
        {
          news: { kind: "declined", rsvpStatus: "Declined" },
          email: "g2@example.org",
          firstName: "First2",
          lastName: "Last2",
          rsvpLink: "https://convene.test/rsvp/gala?invite=token-2",
          ticketCode: null
        }
      ]])
      expect(fake.issued).toEqual([1])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("does nothing without email configured, or without news", () => {
    const fake = over(false, [row(1)])
    const quiet = over(true, [row(1)])
    return Effect.gen(function*() {
      yield* Effect.flatMap(GuestStatusEmails, (emails) => emails.tell(event, [{ guestId: GuestRowId(1), news: { kind: "approved", rsvpStatus: "Accepted" } }])).pipe(
        Effect.provide(fake.layer)
      )
      yield* Effect.flatMap(GuestStatusEmails, (emails) => emails.tell(event, [])).pipe(Effect.provide(quiet.layer))
      expect([fake.sent, fake.issued, quiet.sent]).toEqual([[], [], []])
    })
  })
})
