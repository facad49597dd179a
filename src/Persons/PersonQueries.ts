/**
 * Reading persons (docs/integrators.md#persons): one, a page, the persons the change feed named,
 * a search by name or email, the dashboard's contact list, a phone number's SMS consent. Persons
 * come with their custom fields, loaded for a whole page at once.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Caller } from "../Domain/Caller.js"
import type { PersonRowId } from "../Domain/RowIds.js"
import { InvalidRequest, Issue, NotFound } from "../Domain/Errors.js"
import { CustomFields } from "./CustomFields.js"
import { render } from "./CustomFieldValues.js"
import { MAX_IDS, type PersonDetail } from "./Domain.js"
import { EventHistory } from "./EventHistory.js"
import { type Found, type PersonRow, PersonsRepo } from "./PersonsRepo.js"
import { toPerson } from "./PersonView.js"

export interface SearchParams {
  readonly query?: string | undefined
  readonly email?: string | undefined
  readonly includeArchived?: boolean | undefined
  readonly limit?: number | undefined
  readonly skip?: number | undefined
}

const notFound = (id: string) => new NotFound({ message: `Person ${id} not found` })

export class PersonQueries extends Effect.Service<PersonQueries>()("Convene/PersonQueries", {
  effect: Effect.gen(function*() {
    const repo = yield* PersonsRepo
    const customFields = yield* CustomFields
    const eventHistory = yield* EventHistory

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

    return { list, search, browse, smsConsentOf, get, find, page } as const
  }),
  dependencies: [PersonsRepo.Default, CustomFields.Default]
}) {}
