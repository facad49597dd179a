/**
 * Persons read by the page (PersonsRepo.ts): the directory, lookups by id and email, the searches
 * (by name: Search.ts, per engine), the dashboard's browse, and an organization's persons in
 * keyset batches for an export. Every query is scoped to one organization.
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
import { emailKeyOf } from "../Domain/Fields.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"
import { ExportRow, type Found, PersonRow } from "./PersonRows.js"
import type { NameStates } from "./Search.js"
import { pgSearch } from "./Search.pg.js"
import { sqliteSearch } from "./Search.sqlite.js"

/** Ids per row of `persons_blocks` (migrations/0019: `id / 1024`). */
const BLOCK_SIZE = 1024
/**
 * From this `skip` on, a page of the directory starts from `persons_blocks`; a shorter walk of the
 * index costs less than summing an organization's blocks (about 0.1 ms per 1,000 blocks).
 */
const BLOCK_WALK = 10_000

const Total = Schema.Struct({ total: Schema.Number })
const Id = Schema.Struct({ id: rowIdColumn.person })

export const personPages = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => {
  const d = dialectOf(sql)
  const search = d.pick({ sqlite: sqliteSearch, pg: pgSearch })(sql, direct)
  const one = (statement: Statement.Statement<unknown>) => Effect.map(direct.first(PersonRow, statement), Option.fromNullable)
  // pages of persons (the directory, the searches): read unchecked (DirectSql `unchecked`), as a page
  // of up to a hundred rows of a dozen columns decoded by PersonRow cost a search about a fifth
  // of its CPU (bench:quick, GET /person/search: 0.78 -> 0.99 ms); single persons stay decoded.
  // PersonRow's columns are the ones test/repo/persons.test.ts reads back on both engines.
  const many = (statement: Statement.Statement<unknown>) => direct.unchecked.rows<PersonRow>(statement)

  /** The columns of `PersonRow`, and `more` of them. */
  const selectWith = (more: string) =>
    sql.literal(`SELECT p.id, p.public_id, p.first_name, p.last_name, p.email, p.profile_picture,
    p.company, p.position, p.birthday, p.address, p.apartment, p.city, p.state, p.country, p.postal_code,
    p.context_note, p.archived_at,${more}
    (SELECT number FROM phones f WHERE f.person_id = p.id ORDER BY f.is_preferred DESC, f.id LIMIT 1) AS phone
    FROM persons p`)
  const select = selectWith("")
  const selectForExport = selectWith(" p.created_at,")

  /** Whether the person `alias` is archived (`archived`) or active. */
  const stateOf = (alias: string, archived: boolean) =>
    sql.literal(`${alias}.archived_at IS ${archived ? "NOT NULL" : "NULL"}`)

  /**
   * The ids of a page of the organization's active or archived persons, in creation order. A
   * page near the start skips over the small entries of the `(organization_id, archived_at, id)`
   * index; one past `BLOCK_WALK` first sums `persons_blocks` (migrations/0019) in order to find
   * the block of 1,024 ids that holds its first person and how many come before that block, then
   * skips fewer than 1,024 entries from the block's first id: `skip=900000` of 1,000,000 persons
   * sums some 1,000 small rows instead of walking 900,000 entries (bench/RESULTS.md, issue 18).
   * A page past the end finds no block, so no id.
   */
  const directoryPageIds = (organizationId: OrganizationRowId, archived: boolean, limit: number, skip: number) => {
    const state = stateOf("x", archived)
    if (skip < BLOCK_WALK) {
      return sql`SELECT x.id FROM persons x WHERE x.organization_id = ${organizationId} AND ${state}
                 ORDER BY x.id LIMIT ${limit} OFFSET ${skip}`
    }
    return sql`WITH start AS (
        SELECT block * ${BLOCK_SIZE} AS first_id, ${skip} - (upto - persons) AS within
        FROM (SELECT block, persons, sum(persons) OVER (ORDER BY block) AS upto FROM persons_blocks
              WHERE organization_id = ${organizationId} AND archived = ${archived ? 1 : 0}) AS b
        WHERE upto > ${skip} ORDER BY block LIMIT 1)
      SELECT x.id FROM persons x WHERE x.organization_id = ${organizationId} AND ${state}
        AND x.id >= (SELECT first_id FROM start)
      ORDER BY x.id LIMIT ${limit} OFFSET CAST(coalesce((SELECT within FROM start), 0) AS bigint)`
  }

  /** How many active or archived persons the organization has, from `persons_blocks` (not a count of rows). */
  const directoryTotal = (organizationId: OrganizationRowId, archived: boolean) =>
    sql`SELECT coalesce(sum(persons), 0) AS total FROM persons_blocks
        WHERE organization_id = ${organizationId} AND archived = ${archived ? 1 : 0}`

  /** A page of the directory: its ids first (`directoryPageIds`), then only that page's rows. */
  const list = ({ limit, organizationId, skip }: { organizationId: OrganizationRowId; limit: number; skip: number }) =>
    many(sql`${select} WHERE p.id IN (${directoryPageIds(organizationId, false, limit, skip)}) ORDER BY p.id`)

  const byPublicId = ({ organizationId, publicId }: { organizationId: OrganizationRowId; publicId: string }) =>
    one(sql`${select} WHERE p.public_id = ${publicId} AND p.organization_id = ${organizationId}`)

  /** The organization's persons with these public ids (archived ones included), in creation order. */
  const byPublicIds = (organizationId: OrganizationRowId, publicIds: ReadonlyArray<string>) =>
    many(sql`${select} WHERE p.public_id IN ${d.inValues(JSON.stringify(publicIds), "text")}
             AND p.organization_id = ${organizationId} ORDER BY p.id`)

  interface SearchRequest {
    readonly organizationId: OrganizationRowId
    readonly includeArchived: boolean
    readonly limit: number
    readonly skip: number
    readonly term: string
  }
  const count = (statement: Statement.Statement<unknown>) =>
    Effect.map(direct.first(Total, statement), (row) => ({ total: row?.total ?? 0 }))

  /** A page of persons a query finds, and how many it finds (read only when asked). */
  const found = (page: Statement.Statement<unknown>, total: Statement.Statement<unknown>, totalKept = false): Found => ({
    page: many(page),
    count: count(total),
    totalKept
  })

  /**
   * The persons whose name contains `term` (Search.ts `nameSearch`), a page of them read by
   * id. The organization is checked again on the rows read, but as `+p.organization_id`, which
   * no index serves: SQLite cannot tell that the page's ids are few, and would otherwise walk the
   * organization's persons and look each one up among them.
   */
  const nameFound = (organizationId: OrganizationRowId, states: NameStates, term: string, limit: number, skip: number) => {
    const names = search.nameSearch(organizationId, states, term)
    return found(
      sql`${select} WHERE p.id IN (${names.pageIds(limit, skip)}) AND +p.organization_id = ${organizationId} ORDER BY p.id`,
      names.count,
      names.totalKept
    )
  }

  const archivedFilter = (includeArchived: boolean) =>
    includeArchived ? sql.literal("") : sql.literal("AND p.archived_at IS NULL")
  const byEmailClause = ({ includeArchived, organizationId, term }: SearchRequest) =>
    sql`WHERE p.organization_id = ${organizationId} ${archivedFilter(includeArchived)}
        AND p.email_key = ${emailKeyOf(term)}`

  const searchByName = (r: SearchRequest) => nameFound(r.organizationId, r.includeArchived ? "any" : "active", r.term, r.limit, r.skip)
  const searchByEmail = (r: SearchRequest) =>
    found(
      sql`${select} ${byEmailClause(r)} ORDER BY p.id LIMIT ${r.limit} OFFSET ${r.skip}`,
      sql`SELECT count(*) AS total FROM persons p ${byEmailClause(r)}`
    )

  /**
   * The dashboard's list: active or archived persons only (never both), all of them or those a
   * name substring or an exact email finds, with the same matching as the API's search.
   */
  interface BrowseRequest {
    readonly organizationId: OrganizationRowId
    readonly archived: boolean
    readonly term: { readonly by: "name" | "email"; readonly text: string } | undefined
    readonly limit: number
    readonly skip: number
  }
  const stateFilter = (archived: boolean) => sql`AND ${stateOf("p", archived)}`
  const browse = (r: BrowseRequest): Found => {
    if (r.term?.by === "name") return nameFound(r.organizationId, r.archived ? "archived" : "active", r.term.text, r.limit, r.skip)
    if (r.term === undefined) {
      return found(
        sql`${select} WHERE p.id IN (${directoryPageIds(r.organizationId, r.archived, r.limit, r.skip)}) ORDER BY p.id`,
        directoryTotal(r.organizationId, r.archived),
        true
      )
    }
    const clause = sql`WHERE p.organization_id = ${r.organizationId} ${stateFilter(r.archived)} AND p.email_key = ${emailKeyOf(r.term.text)}`
    return found(
      sql`${select} ${clause} ORDER BY p.id LIMIT ${r.limit} OFFSET ${r.skip}`,
      sql`SELECT count(*) AS total FROM persons p ${clause}`
    )
  }

  /** The active person with this email, if any. */
  const activeByEmail = ({ email, organizationId }: { organizationId: OrganizationRowId; email: string }) =>
    one(sql`${select} WHERE p.organization_id = ${organizationId} AND p.email_key = ${emailKeyOf(email)}
            AND p.archived_at IS NULL`)

  /** The row id of the organization's person with this public id (archived ones included), if any. */
  const idByPublicId = (organizationId: OrganizationRowId, publicId: string) =>
    Effect.map(
      direct.first(Id, sql`SELECT id FROM persons WHERE public_id = ${publicId} AND organization_id = ${organizationId}`),
      (row) => row?.id
    )

  /** Up to `size` persons after `after`, active or archived ones, in creation order. */
  const exportPage = (organizationId: OrganizationRowId, archived: boolean, after: number, size: number) =>
    direct.rows(ExportRow, sql`${selectForExport}
        WHERE p.organization_id = ${organizationId} AND ${archived ? sql.literal("p.archived_at IS NOT NULL") : sql.literal("p.archived_at IS NULL")}
          AND p.id > ${after}
        ORDER BY p.id LIMIT ${size}`)

  /**
   * Every active (or archived) person of an organization in creation order, as batches of up to
   * `size`: keyset pages, each read when the previous one has been consumed. Run it in
   * `StreamSlots.snapshot` for one consistent list.
   */
  const ofOrganization = (organizationId: OrganizationRowId, archived: boolean, size: number): Stream.Stream<ReadonlyArray<ExportRow>, SqlError> =>
    Stream.paginateEffect(0, (after: number) =>
      Effect.map(exportPage(organizationId, archived, after, size), (rows) =>
        [rows, rows.length < size ? Option.none() : Option.some(rows[rows.length - 1]!.id)] as const)
    ).pipe(Stream.filter((rows) => rows.length > 0))

  return { list, byPublicId, byPublicIds, searchByName, searchByEmail, browse, activeByEmail, idByPublicId, ofOrganization } as const
}
