/**
 * Mirrors one organization's persons and guests into a local JSON file through the change feed
 * (docs/integrators.md#syncing-with-the-change-feed), with the promise client of `src/Client`
 * (`convene/client` outside this repository).
 *
 *     CONVENE_URL=http://localhost:3000 CONVENE_TOKEN=cvn_... npm run example:mirror -- [--once] [--interval 5] [mirror.json]
 *
 * The file holds `{ cursor, persons, guests }`: every person of the organization (archived ones
 * with `archived: true`) as `GET /person?ids=` answers them, by personId, and every guest as
 * `GET /event/{id}/guestlist` answers them, by eventId then personId (an event without guests has
 * an empty entry). `cursor` is the feed position the data is up to date with; it is written with
 * the data, in one file replaced by a rename, so after a crash the mirror continues from a cursor
 * that matches its data.
 *
 * How it stays exact:
 * - **Start** (no file, or no cursor): read the feed to its end first, keeping only its last
 *   cursor, then load everything (persons from the two contacts exports, which are snapshots, then
 *   `GET /person?ids=`; every event's guest list). Anything written meanwhile is after that cursor
 *   and comes through the feed.
 * - **Pages**: a change names what changed; the mirror fetches the current state of the ids a page
 *   names, 100 per request (`GET /person?ids=`, `GET /event/{id}/guestlist?personIds=`). An id
 *   left out of the answer is gone (a deleted person, a removed guest) and is deleted from the
 *   file. A guest shows its person's name, email and phone, so a person's change also refreshes
 *   that person's guests. An event change lists the events again and loads the lists of new ones.
 * - **410 `cursor_expired`**: changes were lost; start again, the load replacing the whole file.
 * - **429**: wait `Retry-After` seconds and ask again. In follow mode a network or server error is
 *   logged and retried at the next poll; other errors (401, 403, ...) stop it.
 *
 * With `--once` it stops when the feed says nothing more is waiting (`hasMore: false`); otherwise it
 * polls every `--interval` seconds (default 5) until SIGINT or SIGTERM.
 */
import { open, readFile, rename } from "node:fs/promises"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { type Change, ConveneError, createConveneClient, type Guest, type Person } from "../src/Client/index.js"

/** The mirror file's content. */
export interface Mirror {
  /** The feed position the data reflects; `null` before the first load. */
  readonly cursor: string | null
  readonly persons: Record<string, Person>
  /** Guests by eventId, then personId. */
  readonly guests: Record<string, Record<string, Guest>>
}

export interface MirrorOptions {
  readonly baseUrl: string
  readonly token: string
  /** The JSON file to keep the mirror in. */
  readonly file: string
  /** Stop when caught up (`hasMore: false`) instead of polling. */
  readonly once?: boolean
  /** Milliseconds between polls when caught up, in follow mode. Default 5000. */
  readonly pollInterval?: number
  /** Changes per feed page, 1 to 1000. Default 500. */
  readonly pageSize?: number
  /** Ends follow mode: the mirror finishes the page in hand, saves and returns. */
  readonly signal?: AbortSignal
  /** Called whenever the feed answers `hasMore: false` and the page is saved; `requestedAt` is when that page was asked for. */
  readonly onCaughtUp?: (info: { readonly cursor: string; readonly requestedAt: number }) => void
  readonly log?: (line: string) => void
}

/** Ids per `?ids=` / `?personIds=` request (the API takes 1 to 100). */
const BATCH = 100

const empty = (): Mirror => ({ cursor: null, persons: {}, guests: {} })

const chunks = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> => {
  const out: Array<Array<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    if (signal?.aborted) return done()
    const timer = setTimeout(finish, ms)
    function finish() {
      clearTimeout(timer)
      signal?.removeEventListener("abort", finish)
      done()
    }
    signal?.addEventListener("abort", finish, { once: true })
  })

/** The first field of every record of a CSV document (RFC 4180, as the exports write it: quoted fields may hold commas and line breaks), header row dropped. */
export const firstColumn = (csv: string): Array<string> => {
  const values: Array<string> = []
  let field = ""
  let atStart = true // in the first field of a record
  let quoted = false
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i]!
    if (quoted) {
      if (c === "\"") {
        if (csv[i + 1] === "\"") {
          if (atStart) field += "\""
          i++
        } else quoted = false
      } else if (atStart) field += c
    } else if (c === "\"") quoted = true
    else if (c === ",") {
      if (atStart) values.push(field)
      atStart = false
    } else if (c === "\n" || c === "\r") {
      if (atStart && field !== "") values.push(field)
      if (c === "\r" && csv[i + 1] === "\n") i++
      field = ""
      atStart = true
    } else if (atStart) field += c
  }
  if (atStart && field !== "") values.push(field)
  return values.slice(1)
}

/** Reads the mirror file; a missing file is an empty mirror. */
export const readMirror = async (file: string): Promise<Mirror> => {
  try {
    return JSON.parse(await readFile(file, "utf8")) as Mirror
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return empty()
    throw error
  }
}

/** Replaces the file with `mirror` at once: a temporary file, flushed to disk, renamed over it. */
const writeMirror = async (file: string, mirror: Mirror) => {
  const temporary = `${file}.${process.pid}.tmp`
  const handle = await open(temporary, "w")
  try {
    await handle.writeFile(JSON.stringify(mirror))
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(temporary, file)
}

/** Runs the mirror until caught up (`once`) or until `signal` aborts; answers the mirror as last saved. */
export const runMirror = async (options: MirrorOptions): Promise<Mirror> => {
  const log = options.log ?? ((line: string) => console.error(`mirror: ${line}`))
  const client = createConveneClient({ baseUrl: options.baseUrl, token: options.token })
  const pageSize = options.pageSize ?? 500
  const pollInterval = options.pollInterval ?? 5_000
  const stopped = () => options.signal?.aborted === true

  /** A call, repeated after `Retry-After` while the answer is 429. */
  const patiently = async <A>(call: () => Promise<A>): Promise<A> => {
    for (;;) {
      try {
        return await call()
      } catch (error) {
        if (!(error instanceof ConveneError) || error.status !== 429) throw error
        log(`rate limited, waiting ${error.retryAfter ?? 1}s`)
        await sleep((error.retryAfter ?? 1) * 1000)
      }
    }
  }

  const personsById = async (ids: ReadonlyArray<string>) => {
    const found = new Map<string, Person>()
    for (const batch of chunks(ids, BATCH)) {
      for (const person of (await patiently(() => client.persons.byIds(batch))).persons) found.set(person.personId, person)
    }
    return found
  }

  /** The event's guests with these personIds; `undefined` when the event is gone (404). */
  const guestsById = async (eventId: string, personIds: ReadonlyArray<string>) => {
    const found = new Map<string, Guest>()
    try {
      for (const batch of chunks(personIds, BATCH)) {
        for (const guest of (await patiently(() => client.guests.byPersonIds(eventId, batch))).guests) found.set(guest.personId, guest)
      }
    } catch (error) {
      if (error instanceof ConveneError && error.status === 404) return undefined
      throw error
    }
    return found
  }

  const wholeList = async (eventId: string) => {
    try {
      const { guests } = await patiently(() => client.guests.list(eventId))
      return Object.fromEntries(guests.map((guest) => [guest.personId, guest]))
    } catch (error) {
      if (error instanceof ConveneError && error.status === 404) return undefined
      throw error
    }
  }

  /** Every event id, past and future, paging by date (see `apply` for an event moved while paging). */
  const allEventIds = async () => {
    const ids = new Set<string>()
    for (let skip = 0; ; skip += 100) {
      const { events } = await patiently(() =>
        client.events.list({ includePastEvents: true, showOrganizationEvents: true, limit: 100, skip })
      )
      for (const event of events) ids.add(event.eventId)
      if (events.length < 100) return ids
    }
  }

  /** The cursor at the feed's end, read before a full load. */
  const tailCursor = async () => {
    let after: string | undefined
    for (;;) {
      const page = await patiently(() => client.changes.list({ limit: 1000, ...(after === undefined ? {} : { after }) }))
      after = page.nextCursor
      if (!page.hasMore) return after
    }
  }

  /** Everything, from scratch, up to date with the cursor it answers. */
  const fullLoad = async (): Promise<Mirror> => {
    const cursor = await tailCursor()
    const active = firstColumn(await patiently(() => client.persons.exportCsv({})))
    const archived = firstColumn(await patiently(() => client.persons.exportCsv({ archived: true })))
    const persons = Object.fromEntries(await personsById([...new Set([...active, ...archived])]))
    const guests: Record<string, Record<string, Guest>> = {}
    for (const eventId of await allEventIds()) {
      const list = await wholeList(eventId)
      if (list !== undefined) guests[eventId] = list
    }
    log(`loaded ${Object.keys(persons).length} persons and ${Object.keys(guests).length} events' guests`)
    return { cursor, persons, guests }
  }

  /** The mirror with the current state of everything the changes name. */
  const apply = async (mirror: Mirror, changes: ReadonlyArray<Change>): Promise<Mirror> => {
    const persons = { ...mirror.persons }
    const guests: Record<string, Record<string, Guest>> = { ...mirror.guests }
    const personIds = new Set<string>()
    const guestIds = new Map<string, Set<string>>()
    const guestOf = (eventId: string, personId: string) => {
      const set = guestIds.get(eventId) ?? new Set<string>()
      set.add(personId)
      guestIds.set(eventId, set)
    }
    const eventsChanged = new Set<string>()
    for (const change of changes) {
      if (change.type === "person") personIds.add(change.id)
      else if (change.type === "guest" && change.eventId !== undefined) guestOf(change.eventId, change.id)
      else if (change.type === "event") eventsChanged.add(change.id)
    }
    // a guest shows its person's fields: refresh the guests of every changed person
    for (const personId of personIds) {
      for (const [eventId, list] of Object.entries(guests)) if (personId in list) guestOf(eventId, personId)
    }
    const fresh = await personsById([...personIds])
    for (const id of personIds) {
      const person = fresh.get(id)
      if (person === undefined) delete persons[id]
      else persons[id] = person
    }
    // Events: a changed event's list is loaded whole (a 404 drops it), and so is any event the
    // mirror does not know yet. After an event change the events are listed again, since a date
    // that moved while the full load paged the events may have hidden an event from that load.
    const reload = new Set([...eventsChanged, ...[...guestIds.keys()].filter((eventId) => !(eventId in guests))])
    if (eventsChanged.size > 0) for (const eventId of await allEventIds()) if (!(eventId in guests)) reload.add(eventId)
    for (const eventId of reload) {
      const list = await wholeList(eventId)
      if (list === undefined) delete guests[eventId]
      else guests[eventId] = list
      guestIds.delete(eventId)
    }
    for (const [eventId, ids] of guestIds) {
      if (!(eventId in guests)) continue
      const found = await guestsById(eventId, [...ids])
      if (found === undefined) {
        delete guests[eventId]
        continue
      }
      const list = { ...guests[eventId] }
      for (const id of ids) {
        const guest = found.get(id)
        if (guest === undefined) delete list[id]
        else list[id] = guest
      }
      guests[eventId] = list
    }
    return { cursor: mirror.cursor, persons, guests }
  }

  let mirror = await readMirror(options.file)
  while (!stopped()) {
    try {
      if (mirror.cursor === null) {
        mirror = await fullLoad()
        await writeMirror(options.file, mirror)
      }
      const requestedAt = Date.now()
      const page = await patiently(() => client.changes.list({ after: mirror.cursor!, limit: pageSize }))
      const applied = await apply(mirror, page.changes)
      mirror = { ...applied, cursor: page.nextCursor }
      await writeMirror(options.file, mirror)
      if (page.changes.length > 0) log(`applied ${page.changes.length} changes`)
      if (!page.hasMore) {
        options.onCaughtUp?.({ cursor: page.nextCursor, requestedAt })
        if (options.once === true) break
        await sleep(pollInterval, options.signal)
      }
    } catch (error) {
      if (error instanceof ConveneError && error.code === "cursor_expired") {
        log("the cursor expired: loading everything again")
        mirror = { ...mirror, cursor: null }
        continue
      }
      const transient = error instanceof ConveneError && (error.status === 0 || error.status >= 500) &&
        error.code !== "invalid_request"
      if (options.once === true || !transient) throw error
      log(`${(error as Error).message}; retrying at the next poll`)
      await sleep(pollInterval, options.signal)
    }
  }
  return mirror
}

/** The command line: `[--once] [--interval <seconds>] [--url <url>] [--token <token>] [file]`. */
const main = async (argv: ReadonlyArray<string>) => {
  let once = false
  let interval = 5
  let url = process.env["CONVENE_URL"]
  let token = process.env["CONVENE_TOKEN"]
  let file = process.env["CONVENE_MIRROR"] ?? "convene-mirror.json"
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--once") once = true
    else if (arg === "--interval") interval = Number(argv[++i])
    else if (arg === "--url") url = argv[++i]
    else if (arg === "--token") token = argv[++i]
    else if (arg.startsWith("--")) throw new Error(`unknown option ${arg}`)
    else file = arg
  }
  if (url === undefined || url === "" || token === undefined || token === "") {
    throw new Error("set CONVENE_URL and CONVENE_TOKEN (or --url and --token)")
  }
  if (!(interval > 0)) throw new Error("--interval takes a number of seconds above 0")
  const controller = new AbortController()
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => controller.abort())
  // `npm run` starts scripts in the package's folder: a relative path means the caller's folder
  const path = resolve(process.env["INIT_CWD"] ?? process.cwd(), file)
  const mirror = await runMirror({
    baseUrl: url,
    token,
    file: path,
    once,
    pollInterval: interval * 1000,
    signal: controller.signal
  })
  const guests = Object.values(mirror.guests).reduce((n, list) => n + Object.keys(list).length, 0)
  console.error(`mirror: ${Object.keys(mirror.persons).length} persons and ${guests} guests in ${path}`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(`mirror: ${error instanceof ConveneError ? `${error.status} ${error.code}: ${error.message}` : String(error)}`)
    process.exit(1)
  })
}
