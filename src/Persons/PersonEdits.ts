/**
 * Writing persons (docs/integrators.md#persons): create, update (one, or a bulk update whose items
 * succeed or fail one by one), archive and restore. Each write records its change in the change
 * feed in its own transaction.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Changes } from "../Changes/Changes.js"
import { personChange } from "../Changes/Domain.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, fromParseError, InvalidRequest } from "../Domain/Errors.js"
import { onUniqueViolation, orDieOnStorage } from "../Db/SqlErrors.js"
import { blankToNull, emailKeyOf } from "../Domain/Fields.js"
import { resolveChanges } from "./CustomFieldChanges.js"
import { CustomFields } from "./CustomFields.js"
import { type CreatePerson, UpdatePerson } from "./Domain.js"
import { nameKeyOf } from "./Keys.js"
import { PersonQueries } from "./PersonQueries.js"
import { PersonsRepo, profileColumns } from "./PersonsRepo.js"

export type BulkResult =
  | { readonly personId: string | null; readonly success: true }
  | {
    readonly personId: string | null
    readonly success: false
    readonly error: { readonly message: string; readonly code: "not_found" | "conflict" | "invalid_request" }
  }

const emailTaken = (email: string) => new Conflict({ message: `An active person with email ${email} exists` })
const decodeUpdate = Schema.decodeUnknown(UpdatePerson, { errors: "all", onExcessProperty: "ignore" })

/** A change to an optional profile field: absent leaves it, `""` and null both clear it. */
const clearedOrSet = (value: string | null | undefined) => (value === undefined ? undefined : blankToNull(value))

export class PersonEdits extends Effect.Service<PersonEdits>()("Convene/PersonEdits", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* PersonsRepo
    const customFields = yield* CustomFields
    const { find } = yield* PersonQueries
    const ids = yield* Ids
    const changeFeed = yield* Changes

    const create = Effect.fn("Persons.create")(function*(caller: Caller, input: CreatePerson) {
      const publicId = yield* ids.uuid
      const createdAt = yield* nowIso
      yield* Effect.gen(function*() {
        const id = yield* repo.insert({
          publicId,
          organizationId: caller.organizationId,
          firstName: input.firstName,
          lastName: input.lastName,
          email: input.email,
          company: blankToNull(input.company),
          position: blankToNull(input.position),
          birthday: blankToNull(input.birthday),
          address: blankToNull(input.address),
          apartment: blankToNull(input.apartment),
          city: blankToNull(input.city),
          state: blankToNull(input.state),
          country: blankToNull(input.country),
          postalCode: blankToNull(input.postalCode),
          contextNote: blankToNull(input.contextNote),
          profilePicture: blankToNull(input.profilePicture),
          createdAt
        })
        const phone = blankToNull(input.phone)
        if (phone !== null) yield* repo.setPreferredPhone(id, phone, createdAt)
        yield* changeFeed.record(caller.organizationId, [personChange("created", publicId)])
      }).pipe(sql.withTransaction, onUniqueViolation(() => emailTaken(input.email)))
      return { personId: publicId }
    })

    /**
     * Writes an update; the change is recorded here, or, for a bulk update (`recorded: false`),
     * once for all its items at its end.
     */
    const write = (caller: Caller, id: string, input: UpdatePerson, recorded: boolean) => Effect.gen(function*() {
      if (input.personId !== id) return yield* InvalidRequest.at("personId", "must equal the id in the path")
      const definitions = yield* customFields.definitions(caller.organizationId)
      const { changes, issues } = resolveChanges(definitions, input)
      if (issues.length > 0) {
        return yield* new InvalidRequest({ message: `${issues[0]!.path}: ${issues[0]!.message}`, issues })
      }
      const at = yield* nowIso
      yield* Effect.gen(function*() {
        const person = yield* find(caller, id)
        const columns: Record<string, string | null> = {}
        for (const [field, column] of Object.entries(profileColumns)) {
          const value = clearedOrSet(input[field as keyof typeof profileColumns])
          if (value !== undefined) columns[column] = value
        }
        if (input.firstName !== undefined || input.lastName !== undefined) {
          columns["name_key"] = nameKeyOf(input.firstName ?? person.first_name, input.lastName ?? person.last_name)
        }
        if (input.email !== undefined) {
          columns["email"] = input.email
          columns["email_key"] = emailKeyOf(input.email)
        }
        yield* repo.update(person.id, columns, at)
        const phone = clearedOrSet(input.phoneNumber)
        if (phone !== undefined && phone !== null) yield* repo.setPreferredPhone(person.id, phone, at)
        if (input.smsConsent !== undefined) {
          const number = phone ?? person.phone
          if (number === null) return yield* InvalidRequest.at("smsConsent", "needs a phone number")
          yield* repo.setConsent({ organizationId: caller.organizationId, number, consent: input.smsConsent, source: "api", at })
        }
        yield* customFields.apply(person.id, changes, at)
        if (recorded) yield* changeFeed.record(caller.organizationId, [personChange("updated", person.public_id)])
      }).pipe(sql.withTransaction, onUniqueViolation(() => emailTaken(input.email ?? "")))
      return { success: true } as const
    })

    const update = Effect.fn("Persons.update")((caller: Caller, id: string, input: UpdatePerson) => write(caller, id, input, true))

    /**
     * Items succeed or fail one by one (each in its own savepoint), but the batch commits as one
     * transaction: a crash in the middle leaves none of it, never a part. The updated persons are
     * recorded in the change feed in one statement at its end.
     */
    const bulkUpdate = Effect.fn("Persons.bulkUpdate")(function*(caller: Caller, items: ReadonlyArray<unknown>) {
      const results: Array<BulkResult> = []
      const updated: Array<string> = []
      yield* Effect.forEach(items, (item) => Effect.gen(function*() {
        const personId = typeof item === "object" && item !== null && "personId" in item && typeof item.personId === "string"
          ? item.personId
          : null
        const outcome = yield* decodeUpdate(item).pipe(
          Effect.mapError(fromParseError),
          Effect.flatMap((input) => Effect.as(write(caller, input.personId, input, false), input.personId)),
          Effect.either
        )
        if (outcome._tag === "Right" && !updated.includes(outcome.right)) updated.push(outcome.right)
        results.push(
          outcome._tag === "Right"
            ? { personId, success: true }
            : {
              personId,
              success: false,
              error: {
                message: outcome.left.message,
                code: outcome.left._tag === "NotFound" ? "not_found" : outcome.left._tag === "Conflict" ? "conflict" : "invalid_request"
              }
            }
        )
      }), { discard: true }).pipe(
        Effect.zipRight(Effect.suspend(() => changeFeed.record(caller.organizationId, updated.map((personId) => personChange("updated", personId))))),
        sql.withTransaction,
        Effect.orDie
      )
      return { results }
    })

    /** Archives an active person; archiving an archived one changes (and records) nothing. */
    const archive = Effect.fn("Persons.archive")(function*(caller: Caller, id: string) {
      const at = yield* nowIso
      yield* Effect.gen(function*() {
        const person = yield* find(caller, id)
        if (person.archived_at !== null) return
        yield* repo.setArchived(person.id, at, at)
        yield* changeFeed.record(caller.organizationId, [personChange("archived", person.public_id)])
      }).pipe(sql.withTransaction, orDieOnStorage)
      return { success: true } as const
    })

    /** Restores an archived person (409 when an active person has its email meanwhile). */
    const unarchive = Effect.fn("Persons.unarchive")(function*(caller: Caller, id: string) {
      const at = yield* nowIso
      let email = ""
      yield* Effect.gen(function*() {
        const person = yield* find(caller, id)
        if (person.archived_at === null) return
        email = person.email
        yield* repo.setArchived(person.id, null, at)
        yield* changeFeed.record(caller.organizationId, [personChange("unarchived", person.public_id)])
      }).pipe(sql.withTransaction, onUniqueViolation(() => emailTaken(email)))
      return { success: true } as const
    })


    return { create, update, bulkUpdate, archive, unarchive } as const
  }),
  dependencies: [PersonsRepo.Default, CustomFields.Default, PersonQueries.Default, Ids.Default, Changes.Default]
}) {}
