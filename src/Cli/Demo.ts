/**
 * `convene demo`: a living organization in one command: a few hundred contacts with custom fields,
 * past and upcoming events, guest lists with RSVP histories and check-ins, RSVP links, and a
 * ticketed gala with purchases, refunds and a dispute. The data is made up, the same every time.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { Events } from "../Events/Events.js"
import type { RsvpStatus } from "../Guests/Domain.js"
import { GuestLists } from "../Guests/GuestLists.js"
import { ApiTokens } from "../Auth/ApiTokens.js"
import { Members } from "../Organizations/Members.js"
import { Organizations } from "../Organizations/Organizations.js"
import { Payments } from "../Payments/Payments.js"
import { CustomFields } from "../Persons/CustomFields.js"
import { Persons } from "../Persons/Persons.js"

import { serverAddress, shareWithFirstAdmins } from "./DemoAccess.js"
import { CITIES, COMPANIES, concertOf, dayFrom, DEMO_ZONE, FIRST, generator, INTERESTS, LAST, POSITIONS, SIZES, studiosName } from "./DemoData.js"

export const demo = Command.make(
  "demo",
  { org: Options.text("org").pipe(Options.withDefault("demo"), Options.withDescription("Slug of the demo organization")) },
  ({ org }) =>
    Effect.gen(function*() {
      const organizations = yield* Organizations
      const persons = yield* Persons
      const customFields = yield* CustomFields
      const events = yield* Events
      const guestLists = yield* GuestLists
      const payments = yield* Payments
      const ids = yield* Ids
      const random = generator(2026)
      const days = dayFrom(yield* Clock.currentTimeMillis)
      const pick = <A>(list: ReadonlyArray<A>) => list[Math.floor(random() * list.length)]!

      if (Option.isSome(yield* organizations.find(org))) {
        return yield* Effect.fail(new Error(`organization ${org} exists already; pass --org to load the demo under another slug`))
      }
      const organization = yield* organizations.create({ slug: org, name: "Riverside Community Arts (demo)" })
      const password = Redacted.make(yield* ids.secret(12))
      const adminEmail = `admin@${org}.example`
      yield* (yield* Members).addDirectly(organization, {
        email: adminEmail,
        password: Option.some(password),
        firstName: "Demo",
        lastName: "Admin",
        role: "Super Admin"
      })
      const { token, tokenId } = yield* (yield* ApiTokens).createApiToken(organization.id, "demo")
      const caller: Caller = {
        organizationId: organization.id,
        organizationSlug: organization.slug,
        role: "Admin",
        actor: { type: "apiKey", id: tokenId },
        userId: Option.none(),
        callerKey: `apiKey:${tokenId}`
      }

      // Custom fields and 320 contacts
      const size = yield* customFields.create(organization.id, { fieldName: "T-shirt size", fieldType: "text" })
      const hours = yield* customFields.create(organization.id, { fieldName: "Volunteer hours", fieldType: "number" })
      const interests = yield* customFields.create(organization.id, {
        fieldName: "Interests",
        fieldType: "multiselect",
        options: INTERESTS.map((value, i) => ({ value, color: ["#e4572e", "#29335c", "#f3a712", "#669bbc", "#a8c686"][i]! }))
      })
      // In transactions of 40 contacts, and one per event below: one write lock each rather than one
      // per write (on a server under write load, each of those waited for the writes queued before
      // it), each short enough that the server's writes wait for one at most. An event is loaded
      // whole or not at all.
      const sql = yield* SqlClient.SqlClient
      const personIds: Array<string> = []
      const contact = (i: number) => Effect.gen(function*() {
        const firstName = pick(FIRST)
        const lastName = pick(LAST)
        const company = pick(COMPANIES)
        const position = pick(POSITIONS)
        const { personId } = yield* persons.create(caller, {
          firstName,
          lastName,
          email: `${firstName}.${lastName}.${i}@example.org`.toLowerCase(),
          city: pick(CITIES),
          ...(company === null ? {} : { company }),
          ...(position === null ? {} : { position }),
          ...(random() < 0.7 ? { phone: `+1 555 ${String(1000 + i).padStart(4, "0")}` } : {})
        })
        personIds.push(personId)
        if (random() < 0.6) {
          yield* persons.update(caller, personId, {
            personId,
            customFields: [{ fieldId: size.fieldId, value: pick(SIZES) }, { fieldId: hours.fieldId, value: Math.floor(random() * 40) }],
            customFieldMultiselect: INTERESTS.filter(() => random() < 0.3).map((value) => ({ fieldId: interests.fieldId, value })),
            ...(random() < 0.5 ? { smsConsent: random() < 0.8 ? "optedIn" as const : "optedOut" as const } : {})
          }).pipe(Effect.catchTag("InvalidRequest", () => Effect.void))
        }
      })
      for (let from = 0; from < 320; from += 40) {
        yield* sql.withTransaction(Effect.forEach(Array.from({ length: 40 }, (_, n) => from + n), contact, { discard: true }))
      }
      const sample = (n: number) => [...personIds].sort(() => random() - 0.5).slice(0, n)
      const invite = (eventId: string, guests: ReadonlyArray<string>) =>
        guestLists.add(caller, eventId, guests.map((personId) => ({ personId })))
      const answer = (eventId: string, updates: ReadonlyArray<{ personId: string; rsvpStatus?: RsvpStatus; attendanceStatus?: "Attended" | "No Show" }>) =>
        updates.length === 0 ? Effect.void : Effect.asVoid(guestLists.update(caller, eventId, updates))
      const rsvp = (): RsvpStatus => {
        const r = random()
        return r < 0.6 ? "Accepted" : r < 0.8 ? "Declined" : "Maybe"
      }

      // A past open-studios day with check-ins
      yield* sql.withTransaction(Effect.gen(function*() {
        const studios = yield* events.create(caller, {
          name: studiosName(days(-40, 10)),
          primaryDate: days(-40, 10).toISOString(),
          timezone: DEMO_ZONE,
          locationName: "Riverside Arts Center",
          locationAddress: "12 Mill Street",
          locationCity: "Riverside",
          rsvpDescription: "Artists open their studios for a day.\nFamilies welcome.",
          eventTags: ["studios", "family"]
        })
        const studioGuests = sample(120)
        yield* invite(studios.eventId, studioGuests)
        yield* answer(studios.eventId, studioGuests.map((personId) => ({ personId, rsvpStatus: rsvp() })))
        yield* answer(studios.eventId, studioGuests.map((personId) => ({ personId, attendanceStatus: random() < 0.75 ? "Attended" : "No Show" })))
      }))

      // An upcoming concert with RSVP questions, custom columns and RSVP links
      // (public, registration open: its page /e/<slug> and the organization's /o/<slug> show it)
      const season = concertOf(days(30, 19))
      const concert = yield* sql.withTransaction(Effect.gen(function*() {
        const concert = yield* events.create(caller, {
          name: season.name,
          primaryDate: days(30, 19).toISOString(),
          timezone: DEMO_ZONE,
          isPublic: true,
          locationName: season.locationName,
          locationCity: season.locationCity,
          virtualLocations: [{ url: "https://stream.example.org/summer-concert", sourceType: "livestream" }],
          images: [{ type: "headerImg", url: "https://images.example.org/concert-header.jpg" }],
          rsvpDescription: `An evening of local bands.\r\n${season.bring}`,
          linkPreviewDescription: `Free ${season.name.toLowerCase().replace(/ at the .*| in the .*/, "")} with local bands.`,
          featuredImage: "https://images.example.org/concert-featured.jpg",
          capacityEnabled: true,
          capacity: 250,
          rsvpQuestions: [{ title: "How many children are coming?" }, { title: "Can you help set up?", description: "From 4pm" }],
          customColumns: ["Table", "Volunteer shift"]
        })
        const concertGuests = sample(200)
        yield* invite(concert.eventId, concertGuests)
        yield* answer(concert.eventId, concertGuests.map((personId) => ({ personId, rsvpStatus: rsvp() })))
        yield* answer(concert.eventId, concertGuests.filter(() => random() < 0.25).map((personId) => ({ personId, rsvpStatus: rsvp() })))
        yield* Effect.asVoid(guestLists.update(caller, concert.eventId, concertGuests.slice(0, 12).map((personId, i) => ({
          personId,
          customColumns: { "Volunteer shift": i % 2 === 0 ? "Setup" : "Cleanup" },
          dietaryRestrictions: i % 3 === 0 ? ["vegetarian"] : null
        }))))
        yield* guestLists.search(caller, concert.eventId, { personIds: concertGuests.slice(0, 50).join(","), limit: 50, generateRsvpLinks: true })
        return concert
      }))

      // A small public workshop at capacity, with a waitlist and registrations awaiting approval
      yield* sql.withTransaction(Effect.gen(function*() {
        const workshop = yield* events.create(caller, {
          name: "Pottery Workshop",
          primaryDate: days(45, 14).toISOString(),
          timezone: DEMO_ZONE,
          isPublic: true,
          registrationApproval: true,
          locationName: "Clay Studio",
          capacityEnabled: true,
          capacity: 20
        })
        const workshopGuests = sample(29)
        yield* invite(workshop.eventId, workshopGuests)
        yield* answer(workshop.eventId, workshopGuests.map((personId, i) => ({
          personId,
          rsvpStatus: i < 20 ? "Accepted" as const : i < 26 ? "Waitlisted" as const : "Pending" as const
        })))
      }))

      // A ticketed gala with purchases, refunds and a dispute
      yield* sql.withTransaction(Effect.gen(function*() {
        const gala = yield* events.create(caller, {
          name: "Annual Gala",
          primaryDate: days(75, 19).toISOString(),
          timezone: DEMO_ZONE,
          locationName: "Grand Hall",
          ticketingEnabled: true,
          rsvpDescription: "Our yearly fundraiser."
        })
        const galaGuests = sample(80)
        yield* invite(gala.eventId, galaGuests)
        yield* answer(gala.eventId, galaGuests.map((personId) => ({ personId, rsvpStatus: "Accepted" })))
        const purchases: Array<{ purchaseId: string; items: ReadonlyArray<{ itemId: string; total: number }> }> = []
        for (let i = 0; i + 1 < 60; i += 2) {
          const couple = i % 10 === 0
          const guests = couple ? [galaGuests[i]!, galaGuests[i + 1]!] : [galaGuests[i]!]
          purchases.push(yield* payments.purchase(caller, gala.eventId, {
            items: [
              ...guests.map((personId) => ({ personId, type: "TICKET", subtotal: 12000, tax: 960, serviceFee: 350, ...(i === 4 ? { promoCode: "EARLYBIRD" } : {}) })),
              ...(random() < 0.4 ? [{ personId: guests[0]!, type: "DONATION", subtotal: 2500 + Math.floor(random() * 10) * 500, tax: 0, serviceFee: 0 }] : [])
            ]
          }))
        }
        for (const item of purchases[1]!.items) {
          yield* payments.refund(caller, gala.eventId, purchases[1]!.purchaseId, { amount: item.total, itemId: item.itemId })
        }
        yield* payments.refund(caller, gala.eventId, purchases[2]!.purchaseId, { amount: 5000 })
        yield* payments.dispute(caller, gala.eventId, purchases[3]!.purchaseId)
      }))

      const shared = yield* shareWithFirstAdmins(organization)
      const address = yield* serverAddress
      yield* Console.log([
        `Loaded the demo organization "${organization.slug}" (${organization.name}): 320 contacts, 4 events, guest lists with RSVP`,
        "histories, check-ins, registrations awaiting approval, RSVP links and a ticketed gala with payments.",
        shared.emails.length === 0
          ? `  Sign in at ${address}/app as its Super Admin (below).`
          : `  ${shared.emails.join(", ")} (of "${shared.slug}") can open it now: sign in at ${address}/app and pick it in the Organization menu.`,
        `  Super Admin: ${adminEmail} / ${Redacted.value(password)}`,
        `  API token:   ${Redacted.value(token)}`,
        `  Public page: ${address}/o/${organization.slug} (and ${address}/e/${concert.primarySlug ?? ""}, open for registration)`,
        `  Try: curl -H "x-api-key: ${Redacted.value(token)}" "${address}/event?showOrganizationEvents=true"`
      ].join("\n"))
    })
).pipe(Command.withDescription("Load a demo organization with contacts, events, guest lists and payments"))
