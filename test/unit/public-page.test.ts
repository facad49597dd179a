/**
 * The public page's pure parts (CONTRACT §16): when registration is open, the status a
 * registration gets, the places left, JSON that cannot end its script element, the schema.org
 * `Event` for each kind of place, and the registration form read into the API's limits.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { EventRowId, OrganizationRowId } from "../../src/Domain/RowIds.js"
import { defaults } from "../../src/Events/EventMapping.js"
import type { EventRow } from "../../src/Events/EventRow.js"
import { registeredStatus } from "../../src/Guests/Registration.js"
import { placesLeft, registrationOpen } from "../../src/SelfRegistration/Domain.js"
import { formOf } from "../../src/Web/Kit/Form.js"
import { readRegistration } from "../../src/Web/Public/Input.js"
import { eventJsonLd, scriptSafeJson } from "../../src/Web/Public/Meta.js"

/** A public event with registration open, on the service's own defaults for every other column. */
const event = (fields: Partial<EventRow> = {}): EventRow => ({
  id: EventRowId(7),
  public_id: "event-7",
  organization_id: OrganizationRowId(3),
  ...defaults,
  name: "Gala",
  slug: "gala",
  primary_date: "2031-06-01T20:00:00+02:00",
  primary_date_utc: "2031-06-01T18:00:00.000Z",
  timezone: "Europe/Paris",
  is_public: 1,
  calendar_sequence: 0,
  updated_at: "2031-01-01T00:00:00.000Z",
  ...fields
})

const at = (iso: string) => Date.parse(iso)

describe("the public page's rules", () => {
  it("registration is open while public, open and before the close (or the start)", () => {
    expect(registrationOpen(event(), at("2031-06-01T17:59:59Z"))).toBe(true)
    expect(registrationOpen(event(), at("2031-06-01T18:00:00Z"))).toBe(false)
    expect(registrationOpen(event({ registration_closes_at: "2031-05-01T00:00:00Z" }), at("2031-04-30T23:59:59Z"))).toBe(true)
    expect(registrationOpen(event({ registration_closes_at: "2031-05-01T00:00:00Z" }), at("2031-05-01T00:00:00Z"))).toBe(false)
    expect(registrationOpen(event({ registration_open: 0 }), at("2030-01-01T00:00:00Z"))).toBe(false)
    expect(registrationOpen(event({ is_public: 0 }), at("2030-01-01T00:00:00Z"))).toBe(false)
    expect(registrationOpen(event({ slug: null }), at("2030-01-01T00:00:00Z"))).toBe(false)
  })

  it("a registration is Pending with approval, else Accepted while places remain, else Waitlisted; places left never below 0", () => {
    const asks = (a: "Pending" | "Accepted") => ({ asks: a, responses: [], dietaryRestrictions: [] })
    expect(registeredStatus(asks("Pending"), { capacityEnabled: true, capacity: 1, accepted: 0 })).toBe("Pending")
    expect(registeredStatus(asks("Accepted"), { capacityEnabled: true, capacity: 2, accepted: 1 })).toBe("Accepted")
    expect(registeredStatus(asks("Accepted"), { capacityEnabled: true, capacity: 2, accepted: 2 })).toBe("Waitlisted")
    expect(registeredStatus(asks("Accepted"), { capacityEnabled: false, capacity: 2, accepted: 9 })).toBe("Accepted")
    expect(placesLeft(event({ capacity_enabled: 1, capacity: 5 }), 7)).toBe(0)
    expect(placesLeft(event({ capacity_enabled: 1, capacity: 5 }), 2)).toBe(3)
    expect(placesLeft(event({ capacity_enabled: 0, capacity: 5 }), 2)).toBeUndefined()
  })

  it("JSON in the script element: nothing can end it or open a comment; it parses back the same", () => {
    const value = { name: "</script><!-- & \u2028 \u2029 >" }
    const text = scriptSafeJson(value)
    expect(text).not.toMatch(/[<>&\u2028\u2029]/)
    expect(JSON.parse(text)).toEqual(value)
  })

  it("the schema.org Event: a Place, a VirtualLocation whose url is the page, or both; never an online URL", () => {
    const url = "https://convene.test/e/gala"
    const online = JSON.stringify([{ url: "https://meet.example/secret", password: "pw", phoneNumber: null, sourceType: null }])
    expect(eventJsonLd(event({ location_name: "Hall" }), "Acme", url)).toMatchObject({
      eventAttendanceMode: "https://schema.org/OfflineEventAttendanceMode",
      location: { "@type": "Place", name: "Hall" }
    })
    const virtual = eventJsonLd(event({ virtual_locations: online }), "Acme", url)
    expect(virtual).toMatchObject({ eventAttendanceMode: "https://schema.org/OnlineEventAttendanceMode", location: { "@type": "VirtualLocation", url } })
    expect(JSON.stringify(virtual)).not.toContain("meet.example")
    const mixed = eventJsonLd(event({ virtual_locations: online, location_city: "Lyon", end_date: "2031-06-01T23:00:00+02:00" }), "Acme", url)
    expect(mixed).toMatchObject({
      eventAttendanceMode: "https://schema.org/MixedEventAttendanceMode",
      endDate: "2031-06-01T23:00:00+02:00",
      location: [{ "@type": "Place", name: "Lyon", address: { "@type": "PostalAddress", addressLocality: "Lyon" } }, { "@type": "VirtualLocation", url }]
    })
    expect(eventJsonLd(event(), "Acme", url).location).toEqual({ "@type": "Place", name: "To be announced" })
  })

  it("the form is read with the API's limits, each refusal at its field", () => {
    const questions = event({ rsvp_questions: JSON.stringify([{ title: "Team?", description: null }]) })
    const good = readRegistration(questions, formOf("firstName=%20Ada%20&lastName=L&email=ada%40example.org&answer0=Blue&dietary=Vegan&dietary=Nope&dietaryOther=a%2C%20b%2C%20a"))
    expect(good).toEqual(Either.right({ firstName: "Ada", lastName: "L", email: "ada@example.org", answers: ["Blue"], dietaryRestrictions: ["Vegan", "a", "b"] }))
    const bad = readRegistration(questions, formOf(`firstName=&lastName=${"x".repeat(201)}&email=nope&answer0=${"y".repeat(1001)}`))
    expect(Either.isLeft(bad) && Object.keys(bad.left).sort()).toEqual(["answer0", "email", "firstName", "lastName"])
    expect(Either.isLeft(bad) && bad.left["firstName"]).toBe("First name must not be empty.")
    expect(Either.isLeft(bad) && bad.left["email"]).toBe("Email must be an email address.")
  })
})
