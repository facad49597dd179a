/**
 * The registration's email (src/SelfRegistration/ConfirmationEmail.tsx): its subject and first words
 * name the status, both parts carry the personal link, the ticket's code only when given, online
 * links only to a guest who holds a place, everything from data escaped in the HTML.
 */
import { describe, expect, it } from "@effect/vitest"
import { EventRowId, OrganizationRowId } from "../../src/Domain/RowIds.js"
import type { EventRow } from "../../src/Events/EventRow.js"
import { type ConfirmationInput, renderConfirmation } from "../../src/SelfRegistration/ConfirmationEmail.js"

const event = {
  id: EventRowId(1),
  public_id: "e1",
  organization_id: OrganizationRowId(1),
  name: "Gala <b>night</b>",
  slug: "gala",
  primary_date: "2031-06-01T20:00:00+02:00",
  primary_date_utc: "2031-06-01T18:00:00.000Z",
  timezone: "Europe/Paris",
  location_name: "Hall",
  location_address: null,
  location_apartment: null,
  location_city: "Lyon",
  location_state: null,
  location_postal_code: null,
  location_country: null,
  virtual_locations: JSON.stringify([{ url: "https://meet.example/room", password: null, phoneNumber: null, sourceType: null }]),
  rsvp_description: null,
  link_preview_description: null
} as unknown as EventRow

const input = (fields: Partial<ConfirmationInput>): ConfirmationInput => ({
  event,
  organizer: "Acme",
  guest: { firstName: "Ada", lastName: "L" },
  status: "Accepted",
  rsvpLink: "https://convene.test/rsvp/gala?invite=abc",
  ticket: undefined,
  again: false,
  ...fields
})

describe("the registration's email", () => {
  it("names the status in its subject and body, with the link in both parts", () => {
    for (const [status, headline] of [["Accepted", "You're registered"], ["Waitlisted", "You're on the waitlist"], ["Pending", "Registration received, awaiting approval"]] as const) {
      const mail = renderConfirmation(input({ status }))
      expect(mail.subject).toBe(`${headline}: Gala <b>night</b>`)
      expect(mail.text).toContain(headline)
      expect(mail.text).toContain("https://convene.test/rsvp/gala?invite=abc")
      expect(mail.html).toContain('href="https://convene.test/rsvp/gala?invite=abc"')
      expect(mail.html).toContain("Gala &lt;b>night&lt;/b>")
      expect(mail.html).not.toContain("<b>night")
    }
  })

  it("the ticket's code when given; online links only to a guest who holds a place; the link again for a known address", () => {
    const accepted = renderConfirmation(input({ ticket: "ABCDE-FGHJK" }))
    expect(accepted.text).toContain("Your ticket: ABCDE-FGHJK")
    expect(accepted.text).toContain("https://meet.example/room")
    const waiting = renderConfirmation(input({ status: "Waitlisted" }))
    expect(waiting.text).not.toContain("Your ticket")
    expect(waiting.text + waiting.html).not.toContain("meet.example")
    const again = renderConfirmation(input({ status: "Declined", again: true }))
    expect(again.subject).toBe("Your link: Gala <b>night</b>")
    expect(again.text).toContain("already on the guest list")
  })
})
