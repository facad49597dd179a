/** A contact as the pages name and link it, and the one holding an email a form was refused for. */
import * as Effect from "effect/Effect"
import type { Caller } from "../../Domain/Caller.js"
import { Persons } from "../../Persons/Persons.js"

export const contactPath = (personId: string) => `/app/contacts/${encodeURIComponent(personId)}`

export const nameOf = (p: { readonly firstName: string; readonly lastName: string }) => `${p.firstName} ${p.lastName}`.trim()

/** The active contact holding an email, to link to when the email refused a form (or an unarchiving). */
export const emailHolder = Effect.map(Persons, (persons) => (caller: Caller, email: string) =>
  email.includes("@")
    ? Effect.map(persons.browse(caller, { term: email, archived: false, limit: 1, skip: 0 }), (page) => {
      const found = page.persons[0]
      return found === undefined ? undefined : { personId: found.personId, name: nameOf(found) }
    })
    : Effect.succeed(undefined))
