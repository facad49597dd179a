/** Events (reference "Event", CONTRACT §6): create, read, list, partial update, hosts. */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Caller } from "../Domain/Caller.js"
import { Ids } from "../Domain/Ids.js"
import { nowIso } from "../Domain/Time.js"
import { Conflict, InvalidRequest, NotFound } from "../Http/Errors.js"
import { onUniqueViolation } from "../SqlErrors.js"
import { Outbox } from "../Webhooks/Outbox.js"
import { parseJson } from "../Domain/Json.js"
import type { CreateEvent, Event, RsvpQuestion, UpdateEvent, VirtualLocation } from "./Domain.js"
import { type EventColumns, type EventRow, EventsRepo } from "./EventsRepo.js"

/** The reference's `description`: the link preview's, else the RSVP description on one line, else null. */
export const describeEvent = (linkPreview: string | null, rsvpDescription: string | null): string | null =>
  linkPreview !== null ? linkPreview : rsvpDescription !== null ? rsvpDescription.replace(/\r\n|\n|\r/g, " ") : null



export const toEvent = (row: EventRow, userRole: Event["userRole"], hostUserIds: ReadonlyArray<string>): Event => ({
  eventId: row.public_id,
  name: row.name,
  primarySlug: row.slug,
  primaryDate: row.primary_date,
  timezone: row.timezone,
  userRole,
  isPublic: row.is_public === 1,
  locationName: row.location_name,
  locationAddress: row.location_address,
  locationPhoneNumber: row.location_phone_number,
  locationWebsite: row.location_website,
  virtualLocations: parseJson(row.virtual_locations),
  eventTags: parseJson(row.event_tags),
  images: parseJson(row.images),
  rsvpDescription: row.rsvp_description,
  description: describeEvent(row.link_preview_description, row.rsvp_description),
  capacity: row.capacity_enabled === 1 ? row.capacity : null,
  featuredImage: row.featured_image,
  locationApartment: row.location_apartment,
  locationCity: row.location_city,
  locationState: row.location_state,
  locationPostalCode: row.location_postal_code,
  locationCountry: row.location_country,
  linkPreviewDescription: row.link_preview_description,
  capacityEnabled: row.capacity_enabled === 1,
  ticketingEnabled: row.ticketing_enabled === 1,
  rsvpQuestions: parseJson(row.rsvp_questions),
  customColumns: parseJson(row.custom_columns),
  hostUserIds
})

const slugify = (name: string) =>
  name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 60).replace(/-+$/, "") || "event"

type Input = { readonly [K in keyof Omit<CreateEvent, "hostUserIds">]?: CreateEvent[K] | undefined }

const orNull = <A>(value: A | null | undefined): A | null => (value === undefined ? null : value)
const emptyToNull = (value: string | null | undefined) => (value === undefined || value === null || value === "" ? null : value)

/** The columns an input sets, by API field; fields absent from the input are left out. */
const columnsOf = (input: Input): Record<string, Partial<EventColumns>> => {
  const fields: Record<string, Partial<EventColumns>> = {}
  const set = <K extends keyof Input>(key: K, columns: (value: NonNullable<Input[K]> | null) => Partial<EventColumns>) => {
    if (input[key] !== undefined) fields[key] = columns(input[key] as NonNullable<Input[K]> | null)
  }
  set("name", (v) => ({ name: v! }))
  set("primaryDate", (v) => ({ primary_date: v!, primary_date_utc: new Date(v!).toISOString() }))
  set("timezone", (v) => ({ timezone: v! }))
  set("primarySlug", (v) => ({ slug: v }))
  set("isPublic", (v) => ({ is_public: v ? 1 : 0 }))
  set("locationName", (v) => ({ location_name: emptyToNull(v) }))
  set("locationAddress", (v) => ({ location_address: emptyToNull(v) }))
  set("locationApartment", (v) => ({ location_apartment: emptyToNull(v) }))
  set("locationCity", (v) => ({ location_city: emptyToNull(v) }))
  set("locationState", (v) => ({ location_state: emptyToNull(v) }))
  set("locationPostalCode", (v) => ({ location_postal_code: emptyToNull(v) }))
  set("locationCountry", (v) => ({ location_country: emptyToNull(v) }))
  set("locationPhoneNumber", (v) => ({ location_phone_number: emptyToNull(v) }))
  set("locationWebsite", (v) => ({ location_website: emptyToNull(v) }))
  set("virtualLocations", (v) => ({
    virtual_locations: JSON.stringify((v ?? []).map((l): VirtualLocation => ({
      url: emptyToNull(l.url),
      password: emptyToNull(l.password),
      phoneNumber: emptyToNull(l.phoneNumber),
      sourceType: emptyToNull(l.sourceType)
    })))
  }))
  set("eventTags", (v) => ({ event_tags: JSON.stringify(v ?? []) }))
  set("images", (v) => ({ images: JSON.stringify((v ?? []).map((i) => ({ type: i.type, url: i.url }))) }))
  set("rsvpDescription", (v) => ({ rsvp_description: orNull(v) }))
  set("linkPreviewDescription", (v) => ({ link_preview_description: orNull(v) }))
  set("featuredImage", (v) => ({ featured_image: emptyToNull(v) }))
  set("capacityEnabled", (v) => ({ capacity_enabled: v ? 1 : 0 }))
  set("capacity", (v) => ({ capacity: orNull(v) }))
  set("ticketingEnabled", (v) => ({ ticketing_enabled: v ? 1 : 0 }))
  set("rsvpQuestions", (v) => ({
    rsvp_questions: JSON.stringify((v ?? []).map((q): RsvpQuestion => ({ title: q.title, description: emptyToNull(q.description) })))
  }))
  set("customColumns", (v) => ({ custom_columns: JSON.stringify(v ?? []) }))
  return fields
}

const defaults: Omit<EventColumns, "name" | "primary_date" | "primary_date_utc" | "slug"> = {
  timezone: "UTC",
  is_public: 0,
  location_name: null,
  location_address: null,
  location_apartment: null,
  location_city: null,
  location_state: null,
  location_postal_code: null,
  location_country: null,
  location_phone_number: null,
  location_website: null,
  virtual_locations: "[]",
  event_tags: "[]",
  images: "[]",
  rsvp_description: null,
  link_preview_description: null,
  featured_image: null,
  capacity_enabled: 0,
  capacity: null,
  ticketing_enabled: 0,
  rsvp_questions: "[]",
  custom_columns: "[]"
}

const duplicateTitle = (titles: ReadonlyArray<string> | undefined, path: string) => {
  const seen = new Set<string>()
  for (const [i, title] of (titles ?? []).entries()) {
    if (seen.has(title.toLowerCase())) return Option.some(InvalidRequest.at(`${path}.${i}`, "is a duplicate"))
    seen.add(title.toLowerCase())
  }
  return Option.none()
}

export class Events extends Effect.Service<Events>()("Convene/Events", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* EventsRepo
    const outbox = yield* Outbox
    const ids = yield* Ids

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

    const validate = (input: Input) =>
      Option.match(
        Option.orElse(duplicateTitle(input.customColumns, "customColumns"), () => duplicateTitle(input.rsvpQuestions?.map((q) => q.title), "rsvpQuestions")),
        { onNone: () => Effect.void, onSome: Effect.fail }
      )

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
      const now = new Date(yield* Clock.currentTimeMillis).toISOString()
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
     * Applies a partial update and reports the API fields whose value really changed (for the
     * `Event` notification's `updatedFields`).
     */
    const update = Effect.fn("Events.update")(function*(caller: Caller, id: string, input: UpdateEvent) {
      yield* validate(input)
      const hostIds = input.hostUserIds === undefined ? undefined : yield* resolveHosts(caller, input.hostUserIds)
      const at = yield* nowIso
      return yield* Effect.gen(function*() {
        const row = yield* find(caller, id)
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
        if (hostIds !== undefined) {
          const current = (yield* repo.hosts([row.id])).map((h) => h.public_id).sort()
          const wanted = [...new Set(input.hostUserIds!)].sort()
          if (JSON.stringify(current) !== JSON.stringify(wanted)) {
            changed.push("hostUserIds")
            yield* repo.setHosts(row.id, hostIds)
          }
        }
        const after = yield* find(caller, id)
        yield* outbox.eventUpdated(caller.organizationId, after, changed, at)
        return { event: yield* renderOne(caller, after), row: after, updatedFields: changed, at }
      }).pipe(
        sql.withTransaction,
        onUniqueViolation(() => new Conflict({ message: `The slug ${input.primarySlug} is taken` }))
      )
    })

    return { find, create, get, list, update, render } as const
  }),
  dependencies: [EventsRepo.Default, Outbox.Default, Ids.Default]
}) {}
