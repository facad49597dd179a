/**
 * A guest list's CSV export and imports (GuestsRepo.ts): the export in keyset batches, and the
 * set-based statements of an import, each over a batch serialized ahead (LinkBatches.ts) and
 * checked against the state the import found.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { dialectOf } from "../Db/Dialect.js"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import { type EventRowId, type GuestRowId, type OrganizationRowId, type PersonRowId, rowIdColumn } from "../Domain/RowIds.js"
import { ExportGuestRow, HISTORY_ENTRIES, ImportLinkRow } from "./GuestRows.js"
import type { LinkBatch, LinkCheck, LinkUpdate, NewHistory, NewLink } from "./LinkBatches.js"

const Count = Schema.Struct({ n: Schema.Number })
const Touched = Schema.Struct({ touched: Schema.Literal(1) })
const EmailKeyGuest = Schema.Struct({ email_key: Schema.String, id: rowIdColumn.guest })

export const guestImportStatements = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => {
  const d = dialectOf(sql)
  // from a batch to the table it names, the batch as the outer loop where the engine lets us say so
  const crossJoin = d.drivingJoin
  const historyEntries = sql.literal(HISTORY_ENTRIES)

  const exportSelect = sql.literal(`SELECT g.id AS gid, g.person_id, p.public_id, p.first_name, p.last_name, p.email,
      (SELECT x.number FROM phones x WHERE x.person_id = g.person_id ORDER BY x.is_preferred DESC, x.id LIMIT 1) AS phone,
      p.company, p.position, g.rsvp_status, g.attendance_status, g.dietary_restrictions, g.rsvp_note,
      g.custom_columns, g.rsvp_question_responses
    FROM event_guests g JOIN persons p ON p.id = g.person_id`)

  /**
   * Every guest on the list as the CSV export reads them (no history, consent or invite), in
   * keyset batches of up to `size` in link order, like `ofEvent`; run it in `StreamSlots.snapshot`.
   */
  const exportOfEvent = (eventId: EventRowId, size: number): Stream.Stream<ReadonlyArray<ExportGuestRow>, SqlError> =>
    Stream.paginateEffect(0, (after: number) =>
      Effect.map(
        direct.rows(
          ExportGuestRow,
          sql`${exportSelect} WHERE g.event_id = ${eventId} AND g.removed_at IS NULL AND g.id > ${after} ORDER BY g.id LIMIT ${size}`
        ),
        (rows) => [rows, rows.length < size ? Option.none() : Option.some(rows[rows.length - 1]!.gid)] as const
      )
    ).pipe(Stream.filter((rows) => rows.length > 0))

  /** The links (active or removed) of these persons on an event. */
  const linksOfPersons = (eventId: EventRowId, personIds: ReadonlyArray<PersonRowId>) =>
    personIds.length === 0
      ? Effect.succeed<ReadonlyArray<ImportLinkRow>>([])
      : direct.rows(ImportLinkRow, sql`SELECT g.id, g.person_id, g.rsvp_status, g.attendance_status, g.dietary_restrictions,
            g.rsvp_note, g.custom_columns, g.removed_at, ${historyEntries}
          FROM ${d.values(JSON.stringify(personIds), "integer")}
          ${crossJoin} event_guests g ON g.event_id = ${eventId} AND g.person_id = j.value`)

  /** The guest ids of the active persons with these email keys on an event. */
  const guestIdsByEmailKeys = (eventId: EventRowId, organizationId: OrganizationRowId, emailKeys: ReadonlyArray<string>) =>
    emailKeys.length === 0
      ? Effect.succeed<ReadonlyArray<{ readonly email_key: string; readonly id: GuestRowId }>>([])
      : direct.rows(EmailKeyGuest, sql`SELECT p.email_key, g.id
          FROM ${d.values(JSON.stringify(emailKeys), "text")}
          ${crossJoin} persons p ON p.organization_id = ${organizationId} AND p.email_key = j.value AND p.archived_at IS NULL
          JOIN event_guests g ON g.event_id = ${eventId} AND g.person_id = p.id`)

  /** `column` equals field `index` of the row `j.value`, NULL equal to NULL. */
  const same = (column: string, index: number) => d.same(sql.literal(column), d.at(index))

  /** How many rows a statement with `RETURNING 1 AS touched` touched. */
  const touched = (statement: Statement.Statement<unknown>) => Effect.map(direct.rows(Touched, statement), (rows) => rows.length)

  /**
   * Puts the active persons of these email keys on the list, with their values, in one statement.
   * Answers how many it put there: fewer than given means a person was archived meanwhile. A
   * person put on the list meanwhile fails it with a unique-key violation.
   */
  const insertLinksMany = (eventId: EventRowId, organizationId: OrganizationRowId, links: LinkBatch<NewLink>, at: string) =>
    links.size === 0
      ? Effect.succeed(0)
      : touched(sql`INSERT INTO event_guests (event_id, person_id, rsvp_status, attendance_status, dietary_restrictions,
            rsvp_note, custom_columns, created_at, updated_at)
          SELECT ${eventId}, p.id, ${d.at(1)}, ${d.at(2)}, ${d.at(3)}, ${d.at(4)}, ${d.at(5)}, ${at}, ${at}
          FROM ${d.rows(links.json)}
          ${crossJoin} persons p ON p.organization_id = ${organizationId} AND p.email_key = ${d.at(0)} AND p.archived_at IS NULL
          ORDER BY j.key
          RETURNING 1 AS touched`)

  /**
   * Writes new values on existing links (a removed one comes back on the list), each only if it
   * is still as the import found it. Answers how many it wrote: fewer than given means another
   * write changed one of them meanwhile.
   */
  const updateLinksMany = (updates: LinkBatch<LinkUpdate>, at: string) =>
    updates.size === 0
      ? Effect.succeed(0)
      : touched(sql`UPDATE event_guests SET rsvp_status = ${d.at(7)}, attendance_status = ${d.at(8)},
            dietary_restrictions = ${d.at(9)}, rsvp_note = ${d.at(10)}, custom_columns = ${d.at(11)},
            removed_at = NULL, updated_at = ${at}
          FROM ${d.rows(updates.json)}
          WHERE event_guests.id = ${d.at(0, "integer")} AND event_guests.rsvp_status = ${d.at(1)}
            AND ${same("event_guests.attendance_status", 2)} AND ${same("event_guests.dietary_restrictions", 3)}
            AND ${same("event_guests.rsvp_note", 4)} AND ${same("event_guests.custom_columns", 5)}
            AND ${same("event_guests.removed_at", 6)}
          RETURNING 1 AS touched`)

  /** How many of these active links are still as the import found them. */
  const unchangedLinks = (checks: LinkBatch<LinkCheck>) =>
    checks.size === 0
      ? Effect.succeed(0)
      : Effect.map(
        direct.first(Count, sql`SELECT count(*) AS n FROM ${d.rows(checks.json)}
            ${crossJoin} event_guests g ON g.id = ${d.at(0, "integer")}
          WHERE g.removed_at IS NULL AND g.rsvp_status = ${d.at(1)} AND ${same("g.attendance_status", 2)}
            AND ${same("g.dietary_restrictions", 3)} AND ${same("g.rsvp_note", 4)} AND ${same("g.custom_columns", 5)}`),
        (row) => row?.n ?? 0
      )

  /**
   * RSVP history entries by one actor, in the given order, for the guests (on this event) of the
   * active persons with these email keys. Answers how many it wrote.
   */
  const addHistoryMany = (
    eventId: EventRowId,
    organizationId: OrganizationRowId,
    actor: { readonly type: string; readonly id: string },
    entries: LinkBatch<NewHistory>,
    at: string
  ) =>
    entries.size === 0
      ? Effect.succeed(0)
      : touched(sql`INSERT INTO rsvp_history (event_guest_id, status, actor_type, actor_id, action_type, created_at)
          SELECT g.id, ${d.at(1)}, ${actor.type}, ${actor.id}, ${d.at(2)}, ${at}
          FROM ${d.rows(entries.json)}
          ${crossJoin} persons p ON p.organization_id = ${organizationId} AND p.email_key = ${d.at(0)} AND p.archived_at IS NULL
          JOIN event_guests g ON g.event_id = ${eventId} AND g.person_id = p.id
          ORDER BY j.key
          RETURNING 1 AS touched`)

  return {
    exportOfEvent,
    linksOfPersons,
    guestIdsByEmailKeys,
    insertLinksMany,
    updateLinksMany,
    unchangedLinks,
    addHistoryMany
  } as const
}
