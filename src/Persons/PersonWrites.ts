/**
 * The writes to persons (and their phones and SMS consent) that other features make as part of
 * their own writes, with the lookups they make for them: a guest-list batch or import finds the
 * persons it names (by id or email), creates the missing ones and fills their blank fields; the RSVP
 * page records a guest's SMS consent. Only Persons writes these tables; the other features ask here.
 *
 * Unlike `Persons`' methods, which are whole operations of the API, these run inside the caller's
 * transaction and leave `SqlError` to it: a unique violation (an email taken by a person created
 * meanwhile) is the caller's race to report, as its own error.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { OrganizationRowId, PersonRowId } from "../Domain/RowIds.js"
import type { FilledPerson, FirstPhone, NewPersonsBatch, RowBatch } from "./PersonBatches.js"
import { PersonsRepo } from "./PersonsRepo.js"

/** A person a guest-list item names by email, as it is created when no active person has that email. */
export interface GuestPerson {
  readonly publicId: string
  readonly firstName: string
  readonly lastName: string
  readonly email: string
  readonly company: string | null
  readonly position: string | null
}

/** Fields a guest-list item gives for its person: each fills the person's only where it has none. */
export interface BlankFills {
  readonly company: string | null
  readonly position: string | null
  /** Becomes the person's preferred phone if the person has no phone at all. */
  readonly phone: string | null
}

export class PersonWrites extends Effect.Service<PersonWrites>()("Convene/PersonWrites", {
  effect: Effect.gen(function*() {
    const repo = yield* PersonsRepo

    /** The row id of the organization's person with this public id (archived ones included), if any. */
    const idOf = (organizationId: OrganizationRowId, publicId: string) => repo.idByPublicId(organizationId, publicId)

    /**
     * The organization's active person with this email, else a new one made of `person` (its
     * other profile fields empty). Answers its row id and public id, and whether it was created.
     */
    const activeByEmailOrCreate = (organizationId: OrganizationRowId, person: GuestPerson, at: string) =>
      Effect.gen(function*() {
        const existing = yield* repo.activeByEmail({ organizationId, email: person.email })
        if (Option.isSome(existing)) return { id: existing.value.id, publicId: existing.value.public_id, created: false }
        const id = yield* repo.insert({
          publicId: person.publicId,
          organizationId,
          firstName: person.firstName,
          lastName: person.lastName,
          email: person.email,
          company: person.company,
          position: person.position,
          birthday: null,
          address: null,
          apartment: null,
          city: null,
          state: null,
          country: null,
          postalCode: null,
          contextNote: null,
          profilePicture: null,
          createdAt: at
        })
        return { id, publicId: person.publicId, created: true }
      })

    /** Fills the person's blank company, position and phone; answers whether it filled anything. */
    const fillBlanks = (personId: PersonRowId, fills: BlankFills, at: string) =>
      Effect.gen(function*() {
        let filled = yield* repo.fillCompanyAndPosition(personId, fills.company, fills.position, at)
        if (fills.phone !== null && !(yield* repo.hasPhone(personId))) {
          yield* repo.setPreferredPhone(personId, fills.phone, at)
          filled = true
        }
        return filled
      })

    /** Records the SMS consent of one of the organization's phone numbers (by whom: `source`). */
    const setSmsConsent = (row: { organizationId: OrganizationRowId; number: string; consent: string; source: string; at: string }) =>
      repo.setConsent(row)

    return {
      idOf,
      activeByEmailOrCreate,
      fillBlanks,
      setSmsConsent,
      /** The active persons holding these emails (given as email keys), as an import matches them. */
      activeByEmailKeys: repo.activeByEmailKeys,
      /** Creates an import's persons in one statement. */
      insertMany: (organizationId: OrganizationRowId, persons: NewPersonsBatch, at: string) => repo.insertMany(organizationId, persons, at),
      /** Fills an import's blank fields in one statement; answers how many persons it found still active with their email. */
      fillBlanksMany: (persons: RowBatch<FilledPerson>, at: string) => repo.fillBlanksMany(persons, at),
      /** Gives an import's persons (by email key) their first phone, unless they have one, in one statement. */
      addFirstPhones: (organizationId: OrganizationRowId, phones: RowBatch<FirstPhone>, at: string) => repo.addFirstPhones(organizationId, phones, at)
    } as const
  }),
  dependencies: [PersonsRepo.Default]
}) {}
