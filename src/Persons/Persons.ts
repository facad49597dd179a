/** Persons (docs/integrators.md#persons): create, read, list, search, update, bulk update, archive. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Changes } from "../Changes/Changes.js"
import { personChange } from "../Changes/Domain.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import type { PersonRowId } from "../Domain/RowIds.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, fromParseError, InvalidRequest, Issue, NotFound } from "../Domain/Errors.js"
import { onUniqueViolation, orDieOnStorage } from "../Db/SqlErrors.js"
import { ContactsCsv } from "./ContactsCsv.js"
import { CustomFields, render, resolveChanges } from "./CustomFields.js"
import { type CreatePerson, MAX_IDS, type PersonDetail, UpdatePerson } from "./Domain.js"
import { EventHistory } from "./EventHistory.js"
import { nameKeyOf } from "./Keys.js"
import { type Found, type PersonRow, PersonsRepo, profileColumns } from "./PersonsRepo.js"
import { toPerson } from "./PersonView.js"
import { blankToNull, emailKeyOf } from "../Domain/Fields.js"

export interface SearchParams {
  readonly query?: string | undefined
  readonly email?: string | undefined
  readonly includeArchived?: boolean | undefined
  readonly limit?: number | undefined
  readonly skip?: number | undefined
}

export type BulkResult =
  | { readonly personId: string | null; readonly success: true }
  | {
    readonly personId: string | null
    readonly success: false
    readonly error: { readonly message: string; readonly code: "not_found" | "conflict" | "invalid_request" }
  }

const emailTaken = (email: string) => new Conflict({ message: `An active person with email ${email} exists` })
const notFound = (id: string) => new NotFound({ message: `Person ${id} not found` })
const decodeUpdate = Schema.decodeUnknown(UpdatePerson, { errors: "all", onExcessProperty: "ignore" })

/** A change to an optional profile field: absent leaves it, `""` and null both clear it. */
const clearedOrSet = (value: string | null | undefined) => (value === undefined ? undefined : blankToNull(value))

export class Persons extends Effect.Service<Persons>()("Convene/Persons", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* PersonsRepo
    const customFields = yield* CustomFields
    const eventHistory = yield* EventHistory
    const ids = yield* Ids
    const contactsCsv = yield* ContactsCsv
    const changeFeed = yield* Changes

    /** Persons with their flat custom fields, loaded in one query for the whole page. */
    const page = (rows: ReadonlyArray<PersonRow>) =>
      Effect.map(customFields.valuesOf(rows.map((r) => r.id)), (values) => {
        const byPerson = new Map<PersonRowId, Array<(typeof values)[number]>>()
        for (const value of values) {
          const list = byPerson.get(value.person_id)
          if (list === undefined) byPerson.set(value.person_id, [value])
          else list.push(value)
        }
        return rows.map((row) => toPerson(row, render(byPerson.get(row.id) ?? []).flat))
      })

    const find = (caller: Caller, id: string) =>
      repo.byPublicId({ organizationId: caller.organizationId, publicId: id }).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
      )

    /**
     * Active persons page by page; or, with `ids` (for a client resyncing what the change feed
     * named), the persons with those ids, archived ones included, unknown ids ignored.
     */
    const list = Effect.fn("Persons.list")(function*(caller: Caller, params: {
      ids?: string | undefined
      limit?: number | undefined
      skip?: number | undefined
    }) {
      if (params.ids !== undefined) {
        if (params.limit !== undefined || params.skip !== undefined) {
          return yield* InvalidRequest.at(params.limit !== undefined ? "limit" : "skip", "cannot be combined with ids")
        }
        const wanted = [...new Set(params.ids.split(",").map((id) => id.trim()).filter((id) => id !== ""))]
        if (wanted.length === 0) return yield* InvalidRequest.at("ids", "must name at least one person")
        if (wanted.length > MAX_IDS) return yield* InvalidRequest.at("ids", `must name at most ${MAX_IDS} persons`)
        const rows = yield* repo.byPublicIds(caller.organizationId, wanted).pipe(Effect.orDie)
        return { persons: yield* page(rows) }
      }
      const rows = yield* repo.list({
        organizationId: caller.organizationId,
        limit: params.limit ?? 50,
        skip: params.skip ?? 0
      }).pipe(Effect.orDie)
      return { persons: yield* page(rows) }
    })

    /**
     * A page of what a query finds, and its total. A short page that is not past the end already
     * tells the total (`skip` plus its rows), so the count, which may read every match, runs only
     * when the page is full or empty past the end (a rare name: one scan instead of two). A total
     * kept as persons are written (`totalKept`) is asked first instead, and a page past it is not read.
     */
    const pageAndTotal = (found: Found, request: { readonly limit: number; readonly skip: number }) =>
      (found.totalKept
        ? Effect.flatMap(found.count, ({ total }) =>
          total <= request.skip
            ? Effect.succeed({ rows: [] as ReadonlyArray<PersonRow>, total })
            : Effect.map(found.page, (rows) => ({ rows, total })))
        : Effect.flatMap(found.page, (rows) =>
          rows.length < request.limit && (rows.length > 0 || request.skip === 0)
            ? Effect.succeed({ rows, total: request.skip + rows.length })
            : Effect.map(found.count, ({ total }) => ({ rows, total })))).pipe(Effect.orDie)

    const search = Effect.fn("Persons.search")(function*(caller: Caller, params: SearchParams) {
      if ((params.query === undefined) === (params.email === undefined)) {
        return yield* new InvalidRequest({
          message: "Give exactly one of query or email",
          issues: [new Issue({ path: params.query === undefined ? "query" : "email", message: "give exactly one of query or email" })]
        })
      }
      const byName = params.query !== undefined
      const term = (params.query ?? params.email ?? "").trim()
      if (term === "") return yield* InvalidRequest.at(byName ? "query" : "email", "must not be empty")
      const request = {
        organizationId: caller.organizationId,
        includeArchived: params.includeArchived ?? false,
        limit: params.limit ?? 50,
        skip: params.skip ?? 0,
        term
      }
      const { rows, total } = yield* pageAndTotal(byName ? repo.searchByName(request) : repo.searchByEmail(request), request)
      return { persons: yield* page(rows), total, limit: request.limit, skip: request.skip }
    })

    /**
     * The dashboard's contact list: active or archived persons (`archived`), all of them or those
     * `term` finds as the API's search does: an exact email when it holds an `@`, else a substring
     * of the name. With the total, for pages.
     */
    const browse = Effect.fn("Persons.browse")(function*(
      caller: Caller,
      params: { readonly term: string; readonly archived: boolean; readonly limit: number; readonly skip: number }
    ) {
      const text = params.term.trim()
      const request = {
        organizationId: caller.organizationId,
        archived: params.archived,
        term: text === "" ? undefined : { by: text.includes("@") ? "email" as const : "name" as const, text },
        limit: params.limit,
        skip: params.skip
      }
      const { rows, total } = yield* pageAndTotal(repo.browse(request), request)
      return { persons: yield* page(rows), total, limit: params.limit, skip: params.skip, by: request.term?.by }
    })

    /** The SMS consent of one of the organization's phone numbers, as guests show it (none by default). */
    const smsConsentOf = (caller: Caller, number: string) =>
      Effect.map(
        repo.consentOf(caller.organizationId, number).pipe(Effect.orDie),
        Option.match({
          onNone: () => ({ consent: "none" as const, source: "default" }),
          onSome: (row) => ({ consent: row.consent, source: row.source })
        })
      )

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

    // untraced: the hottest read pays no span or stack capture (bench/RESULTS.md, issue 18)
    const get = Effect.fnUntraced(function*(caller: Caller, id: string) {
      const row = yield* find(caller, id)
      const fields = render(yield* customFields.valuesOf([row.id], true))
      const person: PersonDetail = {
        ...toPerson(row, fields.flat),
        ...(row.context_note === null ? {} : { contextNote: row.context_note }),
        customFieldsDetailed: fields.detailed,
        // the guest lists are a higher feature's (Guests/Ports.ts answers)
        eventHistory: yield* eventHistory.ofPerson(row.id, caller.organizationId).pipe(Effect.orDie)
      }
      return person
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

    return {
      list,
      search,
      browse,
      smsConsentOf,
      create,
      get,
      update,
      bulkUpdate,
      archive,
      unarchive,
      find,
      page,
      exportCsv: contactsCsv.exportCsv,
      importCsv: contactsCsv.importCsv
    } as const
  }),
  dependencies: [PersonsRepo.Default, CustomFields.Default, ContactsCsv.Default, Ids.Default, Changes.Default]
}) {}
