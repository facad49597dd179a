/**
 * Adding guests to an event (Team Member, as `POST /event/:id/guestlist`): contacts found by name or
 * email and ticked, or a new contact by email and name (an existing contact with that email is the
 * one added), through `GuestLists.add`, so history and notifications are the API's.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { Caller } from "../../Domain/Caller.js"
import { Events } from "../../Events/Events.js"
import type { EventRow } from "../../Events/EventRow.js"
import { MAX_HISTORY_ENTRIES, NewGuest } from "../../Guests/Domain.js"
import { GuestLists } from "../../Guests/GuestLists.js"
import { Persons } from "../../Persons/Persons.js"
import { type EventSummary, eventPath, summaryOf } from "../Events/Summary.js"
import { Cut, decodeForm, fieldsOf, pathParams, readQuery, Selection } from "../Kit/Form.js"
import { plural } from "../Kit/Format.js"
import type { Viewer } from "../Kit/Viewer.js"
import { Web } from "../Kit/Web.js"
import { AddGuestsPage, type NewGuestErrors, type NewGuestForm } from "./AddPage.js"
import { historyFull, MAX_BATCH, someNames } from "./Words.js"

/** Contacts shown per search on the add page. */
const CONTACTS_SHOWN = 20

/** The add page's forms: which one (`new`, or ticked contacts), the search it came from, the ticked contacts. */
const AddForm = Schema.Struct({ kind: Schema.String, contact: Cut(200), personIds: Schema.propertySignature(Selection).pipe(Schema.fromKey("personId")) })
const readAdd = fieldsOf(AddForm)
/** A new guest's fields as typed, shown again when refused. */
const readTyped = fieldsOf(Schema.Struct({ email: Schema.String, firstName: Schema.String, lastName: Schema.String }))
/** A new guest as `POST /event/:id/guestlist` takes one by email: the email and both names, each given. */
const decodeNewGuest = decodeForm(Schema.required(NewGuest.from.pipe(Schema.pick("email", "firstName", "lastName"))))
const LABELS = [["email", "Email"], ["firstName", "First name"], ["lastName", "Last name"]] as const

export const AddRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const web = yield* Web
    const guestLists = yield* GuestLists
    const events = yield* Events
    const persons = yield* Persons
    const { site } = web

    /** Contacts matching a name (substring) or a whole email address, and whether each is on the list. */
    const findContacts = (caller: Caller, eventId: string, term: string) =>
      Effect.gen(function*() {
        const found = yield* persons.search(caller, term.includes("@") ? { email: term, limit: CONTACTS_SHOWN } : { query: term, limit: CONTACTS_SHOWN }).pipe(
          Effect.catchTag("InvalidRequest", () => Effect.succeed({ persons: [], total: 0 }))
        )
        const ids = found.persons.map((p) => p.personId)
        const listed = ids.length === 0
          ? new Set<string>()
          : yield* guestLists.search(caller, eventId, { personIds: ids.join(","), limit: CONTACTS_SHOWN }).pipe(
            Effect.map((r) => new Set(r.guests.map((g) => g.personId))),
            Effect.catchTag("InvalidRequest", "Forbidden", () => Effect.succeed(new Set<string>()))
          )
        return {
          total: found.total,
          found: found.persons.map((p) => ({ personId: p.personId, name: `${p.firstName} ${p.lastName}`, email: p.email, onList: listed.has(p.personId) }))
        }
      })

    const addPage = (viewer: Viewer, event: EventRow, contact: string, extra: { newGuest?: NewGuestForm; errors?: NewGuestErrors; flash?: boolean } = {}) =>
      Effect.map(
        contact === "" ? Effect.succeed(undefined) : findContacts(viewer.caller, event.public_id, contact),
        (contacts) =>
          AddGuestsPage({
            site,
            member: viewer.member,
            flash: extra.flash === false ? null : viewer.flash,
            event: summaryOf(event),
            contact,
            contacts,
            ...(extra.newGuest === undefined ? {} : { newGuest: extra.newGuest }),
            ...(extra.errors === undefined ? {} : { errors: extra.errors })
          })
      )

    /** The add page again, the new guest's form refused with `errors`. */
    const refused = (viewer: Viewer, event: EventRow, contact: string, newGuest: NewGuestForm, errors: NewGuestErrors, status: number) =>
      Effect.map(addPage(viewer, event, contact, { newGuest, errors, flash: false }), (page) => web.render(page, status))

    const addPath = (event: EventSummary, contact: string) => eventPath(event, `/guests/add${contact === "" ? "" : `?${new URLSearchParams({ contact })}`}`)

    yield* router.get(
      "/app/events/:id/guests/add",
      web.page("Team Member", (viewer) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const { contact } = yield* readQuery(Schema.Struct({ contact: Cut(200) }))
          const event = yield* events.find(viewer.caller, id)
          return web.render(yield* addPage(viewer, event, contact))
        }))
    )

    yield* router.post(
      "/app/events/:id/guests/add",
      web.action("Team Member", (viewer, form) =>
        Effect.gen(function*() {
          const { id } = yield* pathParams("id")
          const row = yield* events.find(viewer.caller, id)
          const { contact, kind, personIds } = readAdd(form)
          const back = addPath(summaryOf(row), contact)

          if (kind === "new") {
            const typed = readTyped(form)
            const decoded = decodeNewGuest(form)
            if (Either.isLeft(decoded)) {
              const errors: NewGuestErrors = {}
              // in the form's order, one message per field
              for (const [field, label] of LABELS) {
                const issue = decoded.left.find((i) => i.field === field)
                if (issue !== undefined) errors[field] = `${label} ${issue.message}`
              }
              if (Object.keys(errors).length === 0) errors.email = "Give the email, first name and last name of the new guest."
              return yield* refused(viewer, row, contact, typed, errors, 400)
            }
            return yield* web.perform(viewer, guestLists.add(viewer.caller, id, [decoded.right]), {
              to: back,
              done: ({ affected, guests: [guest] }) =>
                affected.length === 0
                  ? refused(viewer, row, contact, typed, { email: `${guest!.name} (${guest!.email}) is already on the guest list. Nothing was changed.` }, 409)
                  : guest!.firstName !== decoded.right.firstName || guest!.lastName !== decoded.right.lastName
                  ? `${guest!.name} added to the guest list (your existing contact with the email ${guest!.email}).`
                  : `${guest!.name} added to the guest list.`,
              failed: (error) =>
                refused(viewer, row, contact, typed, {
                  email: error._tag === "Conflict"
                    ? `This guest's RSVP history is full (${MAX_HISTORY_ENTRIES.toLocaleString("en-US")} entries), so they cannot be put back on the list. Nothing was changed.`
                    : "This guest could not be added (a colleague changed the list at the same moment). Please try again."
                }, 409)
            })
          }

          if (personIds.length === 0) return yield* web.flashTo(viewer, "error", "Tick at least one contact to add.", back)
          if (personIds.length > MAX_BATCH) return yield* web.flashTo(viewer, "error", `Add at most ${MAX_BATCH} contacts at a time.`, back)
          return yield* web.perform(viewer, guestLists.add(viewer.caller, id, personIds.map((personId) => ({ personId }))), {
            to: back,
            done: (change) => {
              const isNew = new Set(change.affected)
              const newNames = change.rows.filter((r) => isNew.has(r.gid)).map((r) => `${r.first_name} ${r.last_name}`)
              const already = change.rows.filter((r) => !isNew.has(r.gid)).map((r) => `${r.first_name} ${r.last_name}`)
              const said = [
                newNames.length > 0 ? `Added ${plural(newNames.length, "guest")}: ${someNames(newNames)}.` : "",
                already.length > 0
                  ? `${someNames(already)} ${already.length === 1 ? "is" : "are"} already on the list${newNames.length === 0 ? "; nothing was changed" : ""}.`
                  : ""
              ].filter((p) => p !== "").join(" ")
              return web.flashTo(viewer, newNames.length > 0 ? "success" : "error", said, back)
            },
            failed: (error) =>
              error._tag === "Conflict" ? historyFull("One of the chosen contacts") : "One of the chosen contacts does not exist any more. Nothing was added."
          })
        }))
    )
  })
)
