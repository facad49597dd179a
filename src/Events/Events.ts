/** Events (docs/integrators.md#events): create, read, list, partial update, hosts. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Changes } from "../Changes/Changes.js"
import { eventChange } from "../Changes/Domain.js"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest, NotFound } from "../Domain/Errors.js"
import { onUniqueViolation } from "../Db/SqlErrors.js"
import { CALENDAR_FIELDS } from "./CalendarFields.js"
import { Outbox } from "../Webhooks/Outbox.js"
import type { CreateEvent, UpdateEvent } from "./Domain.js"
import { eventUpdatedBody } from "./EventPayload.js"
import { columnsOf, defaults, type EventInput, slugify, toEvent } from "./EventMapping.js"
import type { EventColumns, EventRow } from "./EventRow.js"
import { EventsRepo } from "./EventsRepo.js"

const duplicateTitle = (titles: ReadonlyArray<string> | undefined, path: string) => {
  const seen = new Set<string>()
  for (const [i, title] of (titles ?? []).entries()) {
    if (seen.has(title.toLowerCase())) return Option.some(InvalidRequest.at(`${path}.${i}`, "is a duplicate"))
    seen.add(title.toLowerCase())
  }
  return Option.none()
}

/**
 * An end (`endDate`) is strictly after the start: a 400 at the field the input set, the end when it
 * sets both or only the end, the start when a new start passes the stored end.
 */
const endAfterStart = (primaryDate: string, endDate: string | null, at: "endDate" | "primaryDate") =>
  endDate === null || Date.parse(endDate) > Date.parse(primaryDate)
    ? Effect.void
    : Effect.fail(InvalidRequest.at(at, at === "endDate" ? "must be after primaryDate" : `must be before the event's endDate (${endDate})`))

export class Events extends Effect.Service<Events>()("Convene/Events", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* EventsRepo
    const outbox = yield* Outbox
    const ids = yield* Ids
    const changeFeed = yield* Changes

    const find = (caller: Caller, id: string) =>
      repo.byPublicId({ organizationId: caller.organizationId, publicId: id }).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ message: `Event ${id} not found` })),
          onSome: Effect.succeed
        }))
      )

    const render = (caller: Caller, rows: ReadonlyArray<EventRow>) =>
      Effect.map(repo.hosts(rows.map((r) => r.id)).pipe(Effect.orDie), (hosts) =>
        rows.map((row) => toEvent(row, caller.role, hosts.filter((h) => h.event_id === row.id).map((h) => h.public_id))))

    const renderOne = (caller: Caller, row: EventRow) => Effect.map(render(caller, [row]), (events) => events[0]!)

    /** Organization members by public user id; an unknown id is a 400 at `hostUserIds.<i>`. */
    const resolveHosts = (caller: Caller, hostUserIds: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const members = yield* repo.memberIds(caller.organizationId, hostUserIds).pipe(Effect.orDie)
        const unknown = hostUserIds.findIndex((id) => !members.has(id))
        if (unknown !== -1) return yield* InvalidRequest.at(`hostUserIds.${unknown}`, "is not a member of the organization")
        return [...new Set(hostUserIds.map((id) => members.get(id)!))]
      })

    const validate = (input: EventInput) =>
      Option.match(
        Option.orElse(duplicateTitle(input.customColumns, "customColumns"), () => duplicateTitle(input.rsvpQuestions?.map((q) => q.title), "rsvpQuestions")),
        { onNone: () => Effect.void, onSome: Effect.fail }
      )

    /** A slug made from `name` that no event has yet (the dashboard's edit form asks for one too). */
    const freeSlug = (name: string) =>
      Effect.gen(function*() {
        const base = slugify(name)
        if (!(yield* repo.slugTaken(base))) return base
        for (;;) {
          const candidate = `${base}-${(yield* ids.uuid).slice(0, 8)}`
          if (!(yield* repo.slugTaken(candidate))) return candidate
        }
      }).pipe(Effect.orDie)

    const create = Effect.fn("Events.create")(function*(caller: Caller, input: CreateEvent) {
      yield* validate(input)
      yield* endAfterStart(input.primaryDate, input.endDate ?? null, "endDate")
      const hostIds = yield* resolveHosts(caller, input.hostUserIds ?? [])
      const creator = Option.getOrNull(caller.userId)
      const hosts = creator === null || hostIds.includes(creator) ? hostIds : [creator, ...hostIds]
      const slug = input.primarySlug === undefined ? yield* freeSlug(input.name) : input.primarySlug
      const columns = Object.assign({}, defaults, ...Object.values(columnsOf(input))) as EventColumns
      const publicId = yield* ids.uuid
      const at = yield* nowIso
      yield* Effect.gen(function*() {
        const id = yield* repo.insert({ ...columns, slug, publicId, organizationId: caller.organizationId, createdBy: creator, at })
        yield* repo.setHosts(id, hosts)
        yield* changeFeed.record(caller.organizationId, [eventChange("created", publicId)])
      }).pipe(
        sql.withTransaction,
        onUniqueViolation(() => new Conflict({ message: `The slug ${slug} is taken` }))
      )
      return yield* renderOne(caller, yield* find(caller, publicId))
    })

    const get = Effect.fn("Events.get")(function*(caller: Caller, id: string) {
      return yield* renderOne(caller, yield* find(caller, id))
    })

    const list = Effect.fn("Events.list")(function*(caller: Caller, params: {
      readonly limit?: number | undefined
      readonly skip?: number | undefined
      readonly includePastEvents?: boolean | undefined
      readonly showOrganizationEvents?: boolean | undefined
    }) {
      const now = yield* nowIso
      const rows = yield* repo.list({
        organizationId: caller.organizationId,
        hostUserId: params.showOrganizationEvents === true ? null : Option.getOrNull(caller.userId),
        from: params.includePastEvents === true ? null : now,
        limit: params.limit ?? 50,
        skip: params.skip ?? 0
      }).pipe(Effect.orDie)
      return { events: yield* render(caller, rows) }
    })

    /**
     * The dashboard's list: all events of the organization, upcoming (soonest first) or past (most
     * recent first), whose name contains `name` (case-insensitive), one page and the total.
     */
    const browse = Effect.fn("Events.browse")(function*(caller: Caller, params: {
      readonly when: "upcoming" | "past"
      readonly name: string
      readonly limit: number
      readonly skip: number
    }) {
      const filter = {
        organizationId: caller.organizationId,
        now: yield* nowIso,
        past: params.when === "past",
        name: params.name.trim()
      }
      const [rows, total] = yield* Effect.all([
        repo.browse({ ...filter, limit: params.limit, skip: params.skip }),
        repo.countBrowse(filter)
      ]).pipe(Effect.orDie)
      return { events: yield* render(caller, rows), total }
    })

    /** The time zone most of the organization's events use (a new event's default), if any. */
    const usualTimezone = (caller: Caller) => repo.usualTimezone(caller.organizationId).pipe(Effect.orDie)

    /**
     * Applies a partial update and reports the API fields whose value really changed (for the
     * `Event` notification's `updatedFields`).
     */
    const update = Effect.fn("Events.update")(function*(caller: Caller, id: string, input: UpdateEvent) {
      yield* validate(input)
      const hostIds = input.hostUserIds === undefined ? undefined : yield* resolveHosts(caller, input.hostUserIds)
      const at = yield* nowIso
      return yield* Effect.gen(function*() {
        const row = yield* find(caller, id)
        yield* endAfterStart(
          input.primaryDate ?? row.primary_date,
          input.endDate === undefined ? row.end_date : input.endDate,
          input.endDate === undefined ? "primaryDate" : "endDate"
        )
        const changed: Array<string> = []
        const changes: Partial<EventColumns> = {}
        for (const [field, columns] of Object.entries(columnsOf(input))) {
          const differs = Object.entries(columns).some(([column, value]) => row[column as keyof EventRow] !== value)
          if (differs) {
            changed.push(field)
            Object.assign(changes, columns)
          }
        }
        if (Object.keys(changes).length > 0) yield* repo.update(row.id, changes, at)
        // calendars replace an entry only by a higher SEQUENCE: any change to what the file shows counts
        if (changed.some((field) => CALENDAR_FIELDS.has(field))) yield* repo.reviseCalendar(row.id)
        if (hostIds !== undefined) {
          const current = (yield* repo.hosts([row.id])).map((h) => h.public_id).sort()
          const wanted = [...new Set(input.hostUserIds!)].sort()
          if (JSON.stringify(current) !== JSON.stringify(wanted)) {
            changed.push("hostUserIds")
            yield* repo.setHosts(row.id, hostIds)
          }
        }
        const after = yield* find(caller, id)
        const event = yield* renderOne(caller, after)
        if (changed.length > 0) {
          yield* outbox.enqueue(caller.organizationId, "Event", [eventUpdatedBody(event, changed, at)])
          yield* changeFeed.record(caller.organizationId, [eventChange("updated", row.public_id)])
        }
        return { event, row: after, updatedFields: changed, at }
      }).pipe(
        sql.withTransaction,
        onUniqueViolation(() => new Conflict({ message: `The slug ${input.primarySlug} is taken` }))
      )
    })

    /** An event by its row id, as its row holds it: for the features that hold a reference to it (the RSVP page). */
    const byRowId = repo.byId

    /** The event whose public page is `/e/<slug>` (CONTRACT §16): a public one with that slug, else none. */
    const publicBySlug = (slug: string) =>
      Effect.map(repo.bySlug(slug).pipe(Effect.orDie), Option.filter((row) => row.is_public === 1))

    return { find, create, get, list, browse, usualTimezone, freeSlug, update, render, byRowId, publicBySlug } as const
  }),
  dependencies: [EventsRepo.Default, Outbox.Default, Ids.Default, Changes.Default]
}) {}
