/** Persons, their phones and SMS consent; every query is scoped to one organization. */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { dialectOf } from "../Db/Dialect.js"
import { DirectSql } from "../Db/DirectSql.js"
import { activePersonByEmail } from "./BatchJoins.js"
import { nameKeyOf } from "./Keys.js"
import { type FilledPerson, type FirstPhone, importedColumns, MatchRow, type NewPersonsBatch, type RowBatch } from "./PersonBatches.js"
import { emailKeyOf } from "../Domain/Fields.js"
import { type OrganizationRowId, type PersonRowId, rowIdColumn } from "../Domain/RowIds.js"
import { SmsConsentValue } from "./Domain.js"
import type { NameStates } from "./Search.js"
import { pgSearch } from "./Search.pg.js"
import { sqliteSearch } from "./Search.sqlite.js"

export const PersonRow = Schema.Struct({
  id: rowIdColumn.person,
  public_id: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  profile_picture: Schema.NullOr(Schema.String),
  company: Schema.NullOr(Schema.String),
  position: Schema.NullOr(Schema.String),
  birthday: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  apartment: Schema.NullOr(Schema.String),
  city: Schema.NullOr(Schema.String),
  state: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  postal_code: Schema.NullOr(Schema.String),
  context_note: Schema.NullOr(Schema.String),
  archived_at: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String)
})
export type PersonRow = typeof PersonRow.Type

/** Ids per row of `persons_blocks` (migrations/0019: `id / 1024`). */
const BLOCK_SIZE = 1024
/**
 * From this `skip` on, a page of the directory starts from `persons_blocks`; a shorter walk of the
 * index costs less than summing an organization's blocks (about 0.1 ms per 1,000 blocks).
 */
const BLOCK_WALK = 10_000

/** A person as an export writes it: the row with its creation time. */
export const ExportRow = Schema.Struct({ ...PersonRow.fields, created_at: Schema.String })
export type ExportRow = typeof ExportRow.Type

const Total = Schema.Struct({ total: Schema.Number })
const Id = Schema.Struct({ id: rowIdColumn.person })
const Consent = Schema.Struct({ consent: SmsConsentValue, source: Schema.String })
const Found = Schema.Struct({ found: Schema.Literal(1) })

/** The person columns that an update may set, by API field name. */
export const profileColumns = {
  firstName: "first_name",
  lastName: "last_name",
  company: "company",
  position: "position",
  birthday: "birthday",
  address: "address",
  apartment: "apartment",
  city: "city",
  state: "state",
  country: "country",
  postalCode: "postal_code",
  contextNote: "context_note",
  profilePicture: "profile_picture"
} as const

/**
 * What a search or list finds: its page, and its total, which a caller reads only when the page
 * does not tell it. `totalKept`: the total is a number kept as persons are written, as cheap as
 * a lookup whatever the term, so it may be asked first (Db/Dialect.ts `NameSearch`).
 */
export interface Found {
  readonly page: Effect.Effect<ReadonlyArray<PersonRow>, SqlError>
  readonly count: Effect.Effect<{ readonly total: number }, SqlError>
  readonly totalKept: boolean
}

export interface NewPersonRow {
  readonly publicId: string
  readonly organizationId: OrganizationRowId
  readonly firstName: string
  readonly lastName: string
  readonly email: string
  readonly company: string | null
  readonly position: string | null
  readonly birthday: string | null
  readonly address: string | null
  readonly apartment: string | null
  readonly city: string | null
  readonly state: string | null
  readonly country: string | null
  readonly postalCode: string | null
  readonly contextNote: string | null
  readonly profilePicture: string | null
  readonly createdAt: string
}

export class PersonsRepo extends Effect.Service<PersonsRepo>()("Convene/PersonsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const d = dialectOf(sql)
    const search = d.pick({ sqlite: sqliteSearch, pg: pgSearch })(sql, direct)
    const one = (statement: Statement.Statement<unknown>) => Effect.map(direct.first(PersonRow, statement), Option.fromNullable)
    const many = (statement: Statement.Statement<unknown>) => direct.rows(PersonRow, statement)

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

    /** The SMS consent recorded for a phone number of the organization, if any (`consent` has a CHECK of these values). */
    const consentOf = (organizationId: OrganizationRowId, number: string) =>
      Effect.map(
        direct.first(
          Consent,
          sql`SELECT consent, source FROM sms_consents WHERE organization_id = ${organizationId} AND number = ${number}`
        ),
        Option.fromNullable
      )

    /** The active person with this email, if any. */
    const activeByEmail = ({ email, organizationId }: { organizationId: OrganizationRowId; email: string }) =>
      one(sql`${select} WHERE p.organization_id = ${organizationId} AND p.email_key = ${emailKeyOf(email)}
              AND p.archived_at IS NULL`)

    const insert = (row: NewPersonRow) =>
      sql`INSERT INTO persons ${
        sql.insert({
          public_id: row.publicId,
          organization_id: row.organizationId,
          first_name: row.firstName,
          last_name: row.lastName,
          email: row.email,
          email_key: emailKeyOf(row.email),
          name_key: nameKeyOf(row.firstName, row.lastName),
          company: row.company,
          position: row.position,
          birthday: row.birthday,
          address: row.address,
          apartment: row.apartment,
          city: row.city,
          state: row.state,
          country: row.country,
          postal_code: row.postalCode,
          context_note: row.contextNote,
          profile_picture: row.profilePicture,
          created_at: row.createdAt,
          updated_at: row.createdAt
        })
      } RETURNING id`.pipe(direct.insert<PersonRowId>)

    /** The row id of the organization's person with this public id (archived ones included), if any. */
    const idByPublicId = (organizationId: OrganizationRowId, publicId: string) =>
      Effect.map(
        direct.first(Id, sql`SELECT id FROM persons WHERE public_id = ${publicId} AND organization_id = ${organizationId}`),
        (row) => row?.id
      )

    /** company and position only where the person has none yet; answers whether it filled anything. */
    const fillCompanyAndPosition = (personId: PersonRowId, company: string | null, position: string | null, at: string) =>
      Effect.map(
        direct.rows(Id, sql`UPDATE persons SET company = coalesce(company, ${company}), position = coalesce(position, ${position}),
              updated_at = ${at}
            WHERE id = ${personId}
              AND ((company IS NULL AND ${d.param(company, "text")} IS NOT NULL) OR (position IS NULL AND ${d.param(position, "text")} IS NOT NULL))
            RETURNING id`),
        (rows) => rows.length > 0
      )

    /** Sets the given columns (the caller keeps `email_key` and `name_key` in step). */
    const update = (id: PersonRowId, changes: Record<string, string | null>, updatedAt: string) =>
      direct.run(sql`UPDATE persons SET ${sql.update({ ...changes, updated_at: updatedAt })} WHERE id = ${id}`)

    const setArchived = (id: PersonRowId, archivedAt: string | null, updatedAt: string) =>
      direct.run(sql`UPDATE persons SET archived_at = ${archivedAt}, updated_at = ${updatedAt} WHERE id = ${id}`)

    /** Makes `number` the person's preferred phone, adding it when new. */
    const setPreferredPhone = (personId: PersonRowId, number: string, createdAt: string) =>
      Effect.zipRight(
        direct.run(sql`UPDATE phones SET is_preferred = 0 WHERE person_id = ${personId} AND is_preferred = 1`),
        direct.run(sql`INSERT INTO phones (person_id, number, is_preferred, created_at) VALUES (${personId}, ${number}, 1, ${createdAt})
            ON CONFLICT (person_id, number) DO UPDATE SET is_preferred = 1`)
      )

    const hasPhone = (personId: PersonRowId) =>
      Effect.map(direct.first(Found, sql`SELECT 1 AS found FROM phones WHERE person_id = ${personId} LIMIT 1`), (row) => row !== undefined)

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

    /**
     * The active persons holding these emails (given as `emailKeyOf` keys). On PostgreSQL the keys
     * drive, each finding its person by the index (BatchJoins.ts).
     */
    const activeByEmailKeys = (organizationId: OrganizationRowId, emailKeys: ReadonlyArray<string>) =>
      emailKeys.length === 0
        ? Effect.succeed<ReadonlyArray<MatchRow>>([])
        : direct.rows(
          MatchRow,
          sql`SELECT p.id, p.public_id, p.email_key,
              ${sql.literal(importedColumns.map((column, i) => `(${d.bit(`p.${column} IS NULL`)} << ${i})`).join(" | "))} AS blanks,
              ${sql.literal(d.bit("EXISTS (SELECT 1 FROM phones f WHERE f.person_id = p.id)"))} AS has_phone
            ${
            d.lookup(
              "persons",
              "p",
              "email_key",
              { json: JSON.stringify(emailKeys), type: "text" },
              sql`p.organization_id = ${organizationId} AND p.archived_at IS NULL`,
              { columns: "p.*", atMostOne: true }
            )
          }`
        )

    /**
     * Creates persons in one statement. Their n-grams are added to the name search's counts by
     * this transaction in one upsert of the batch's counts, made ahead in JavaScript, and the
     * statement tells the triggers that count each person written (migrations/0018 and
     * migrations/pg/0018) to leave its rows alone (Search.ts `insertCounted`).
     */
    const insertMany = (organizationId: OrganizationRowId, persons: NewPersonsBatch, at: string) => {
      if (persons.size === 0) return Effect.void
      const insert = (also: Statement.Fragment) =>
        direct.run(sql`INSERT INTO persons (public_id, organization_id,
              email, email_key, name_key, ${sql.literal(importedColumns.join(", "))}, created_at, updated_at)
            SELECT ${d.at(0)}, ${organizationId}, ${d.at(1)}, ${d.at(2)}, ${d.at(3)},
              ${sql.csv(importedColumns.map((_, i) => d.at(i + 4)))}, ${at}, ${at}
            FROM ${d.rows(persons.json)}${also}`)
      const count = (longest: number) =>
        direct.run(sql`INSERT INTO persons_search_counts AS c (organization_id, archived, gram, persons)
            SELECT ${organizationId}, 0, ${d.at(0)}, ${d.at(1, "integer")} FROM ${d.rows(persons.grams(longest))} WHERE true
            ON CONFLICT (organization_id, archived, gram) DO UPDATE SET persons = c.persons + excluded.persons`)
      return search.insertCounted(insert, count)
    }

    /**
     * Fills blank fields of existing active persons in one statement (a value the person has is
     * kept, even one set since the import read it) and marks them updated. Answers how many of
     * them it found active with their email: fewer than given means one was archived, or its email
     * changed, meanwhile.
     */
    const fillBlanksMany = (persons: RowBatch<FilledPerson>, at: string) =>
      persons.size === 0
        ? Effect.succeed(0)
        : Effect.map(
          direct.rows(Id, sql`UPDATE persons SET
              ${sql.csv(importedColumns.map((column, i) => sql`${sql.literal(`${column} = coalesce(persons.${column}, `)}${d.at(i + 2)})`))},
              updated_at = ${at}
            FROM ${d.rows(persons.json)}
            WHERE persons.id = ${d.at(0, "integer")} AND persons.email_key = ${d.at(1)} AND persons.archived_at IS NULL
            RETURNING persons.id`),
          (rows) => rows.length
        )

    /**
     * Gives each active person (by email key) the phone number as its preferred one, unless it has
     * a phone already. (The batch is the outer loop, each person found by its email's index,
     * BatchJoins.ts; SQLite would otherwise scan the organization's persons.)
     */
    const addFirstPhones = (organizationId: OrganizationRowId, phones: RowBatch<FirstPhone>, at: string) =>
      phones.size === 0
        ? Effect.void
        : Effect.asVoid(direct.run(sql`INSERT INTO phones (person_id, number, is_preferred, created_at)
            SELECT p.id, ${d.at(1)}, 1, ${at} FROM ${d.rows(phones.json)}
            ${activePersonByEmail(sql, d, organizationId, d.at(0))}
            WHERE NOT EXISTS (SELECT 1 FROM phones f WHERE f.person_id = p.id)`))

    const setConsent = (row: { organizationId: OrganizationRowId; number: string; consent: string; source: string; at: string }) =>
      sql`INSERT INTO sms_consents (organization_id, number, consent, source, updated_at)
          VALUES (${row.organizationId}, ${row.number}, ${row.consent}, ${row.source}, ${row.at})
          ON CONFLICT (organization_id, number) DO UPDATE
          SET consent = excluded.consent, source = excluded.source, updated_at = excluded.updated_at`

    return {
      list,
      ofOrganization,
      activeByEmailKeys,
      insertMany,
      fillBlanksMany,
      addFirstPhones,
      byPublicId,
      byPublicIds,
      idByPublicId,
      searchByName,
      searchByEmail,
      browse,
      consentOf,
      activeByEmail,
      insert,
      update,
      fillCompanyAndPosition,
      setArchived,
      setPreferredPhone,
      hasPhone,
      setConsent
    } as const
  })
}) {}
