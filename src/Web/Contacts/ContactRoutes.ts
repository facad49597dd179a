/**
 * One contact (docs/integrators.md#persons): their page (every field, custom fields, the events they
 * are on as the guest lists show them, payments by role), and archiving and unarchiving them (Team
 * Member and above), through the same `Persons`, `CustomFields` and `GuestLists` services as the API.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { seesPayments } from "../../Guests/Domain.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import { CustomFields } from "../../Persons/CustomFields.js"
import type { PersonDetail } from "../../Persons/Domain.js"
import { Persons } from "../../Persons/Persons.js"
import { guestHistory } from "../Guests/History.js"
import { refusedBy } from "../Kit/Action.js"
import { confirmed, pathParams } from "../Kit/Form.js"
import { dateTimeIn } from "../Kit/Format.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { contactPath, emailHolder, nameOf } from "./Contact.js"
import type { ContactEventView } from "./ContactEvents.js"
import { ContactPage } from "./ContactPage.js"

export const ContactRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const persons = yield* Persons
    const customFields = yield* CustomFields
    const guestLists = yield* GuestLists
    const history = yield* guestHistory
    const holderOf = yield* emailHolder
    const { site } = web

    /** The events a contact is on, as the guest lists render them for the member (payments by role). */
    const eventsOf = (viewer: Viewer, person: PersonDetail) =>
      Effect.gen(function*() {
        const lines = yield* history(viewer, {
          you: "you",
          member: (name) => name ?? "a team member",
          apiKey: (name) => (name === undefined ? "an API key" : `API key “${name}”`),
          guest: "the guest"
        })
        const shown = yield* Effect.forEach(person.eventHistory, (entry) =>
          guestLists.guest(viewer.caller, entry.eventId, person.personId).pipe(
            Effect.map(({ event, guest, row }): ContactEventView => ({
              eventId: entry.eventId,
              name: event.name,
              when: dateTimeIn(event.primary_date, event.timezone),
              iso: event.primary_date,
              rsvpStatus: guest.rsvpStatus,
              attendance: guest.attendanceStatus,
              history: lines(row, event.timezone),
              ...(seesPayments(viewer.role)
                ? {
                  payment: guest.paymentStatus === undefined || guest.paymentStatus === null
                    ? null
                    : { status: guest.paymentStatus, amount: guest.paymentAmount ?? null, donation: guest.donationAmount ?? null }
                }
                : {})
            })),
            // taken off the list (or the event deleted) since the person was read
            Effect.catchTag("NotFound", () => Effect.succeed(undefined))
          ))
        return shown.filter((e) => e !== undefined)
      })

    const contactPage = (viewer: Viewer, person: PersonDetail, status = 200, flash = viewer.flash) =>
      Effect.gen(function*() {
        const definitions = yield* customFields.list(viewer.organization.id)
        const smsConsent = person.phone === null ? null : yield* persons.smsConsentOf(viewer.caller, person.phone)
        const events = yield* eventsOf(viewer, person)
        return web.render(
          ContactPage({
            site,
            member: viewer.member,
            flash,
            person,
            smsConsent,
            definitions,
            events,
            canWrite: viewer.can("Team Member"),
            seesPayments: seesPayments(viewer.role),
            canDefineFields: viewer.can("Admin")
          }),
          status
        )
      })

    yield* router.get(
      "/app/contacts/:id",
      web.page("Viewer", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          return yield* contactPage(viewer, yield* persons.get(viewer.caller, id))
        }))
    )

    yield* router.post(
      "/app/contacts/:id/archive",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const person = yield* persons.get(viewer.caller, id)
          const name = nameOf(person)
          const back = contactPath(person.personId)
          if (person.archived) return yield* web.flashTo(viewer, "error", `${name} was archived already.`, back)
          if (!confirmed(form)) {
            return web.confirm(viewer, {
              section: "contacts",
              title: `Archive ${name}?`,
              message: `${name} leaves the contact list and searches, and stays on the guest lists they are on. You can unarchive them later.`,
              action: `${back}/archive`,
              confirmLabel: `Archive ${name}`,
              cancel: back
            })
          }
          yield* persons.archive(viewer.caller, person.personId)
          return yield* web.flashTo(viewer, "success", `${name} archived. Find them with “Show archived contacts”.`, back)
        }))
    )

    yield* router.post(
      "/app/contacts/:id/unarchive",
      web.action("Team Member", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const person = yield* persons.get(viewer.caller, id)
          const name = nameOf(person)
          const back = contactPath(person.personId)
          if (!person.archived) return yield* web.flashTo(viewer, "error", `${name} is not archived.`, back)
          return yield* web.perform(viewer, persons.unarchive(viewer.caller, person.personId), {
            to: back,
            done: () => `${name} is back in the contact list.`,
            // another active contact has the email now
            failed: refusedBy(() =>
              Effect.flatMap(holderOf(viewer.caller, person.email), (holder) =>
                contactPage(viewer, person, 409, {
                  kind: "error",
                  message: `${name} cannot be unarchived: ${holder === undefined ? "another active contact" : holder.name} has the email ${person.email} now, ` +
                    "and each active contact needs an email of their own. Change the email of one of them first."
                })))
          })
        }))
    )
  })
)
