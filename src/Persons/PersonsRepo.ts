/** Persons, their phones and SMS consent in SQLite; every query is scoped to one organization. */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DirectSql } from "../Db/Sqlite.js"

export const PersonRow = Schema.Struct({
  id: Schema.Number,
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

export interface NewPersonRow {
  readonly publicId: string
  readonly organizationId: number
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

export const emailKeyOf = (email: string) => email.trim().toLowerCase()
export const nameKeyOf = (firstName: string, lastName: string) => `${firstName} ${lastName}`.toLowerCase()

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
export const likeContains = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The trigram index answers substrings of three characters or more; shorter ones scan. */
export const TRIGRAM = 3

/** An FTS5 query for the phrase `text`: with the trigram tokenizer, a case-insensitive substring. */
export const ftsPhrase = (text: string) => `"${text.toLowerCase().replaceAll("\"", "\"\"")}"`

export class PersonsRepo extends Effect.Service<PersonsRepo>()("Convene/PersonsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const direct = yield* DirectSql
    const one = (statement: Statement.Statement<unknown>) => Effect.map(direct.first<PersonRow>(statement), Option.fromNullable)
    const many = (statement: Statement.Statement<unknown>) => direct.rows<PersonRow>(statement)

    const select = sql.literal(`SELECT p.id, p.public_id, p.first_name, p.last_name, p.email, p.profile_picture,
      p.company, p.position, p.birthday, p.address, p.apartment, p.city, p.state, p.country, p.postal_code,
      p.context_note, p.archived_at,
      (SELECT number FROM phones f WHERE f.person_id = p.id ORDER BY f.is_preferred DESC, f.id LIMIT 1) AS phone
      FROM persons p`)

    const list = ({ limit, organizationId, skip }: { organizationId: number; limit: number; skip: number }) =>
      many(sql`${select} WHERE p.organization_id = ${organizationId} AND p.archived_at IS NULL
               ORDER BY p.id LIMIT ${limit} OFFSET ${skip}`)

    const byPublicId = ({ organizationId, publicId }: { organizationId: number; publicId: string }) =>
      one(sql`${select} WHERE p.public_id = ${publicId} AND p.organization_id = ${organizationId}`)

    interface SearchRequest {
      readonly organizationId: number
      readonly includeArchived: boolean
      readonly limit: number
      readonly skip: number
      readonly term: string
    }
    const count = (statement: Statement.Statement<unknown>) =>
      Effect.map(direct.first<{ total: number }>(statement), (row) => ({ total: row?.total ?? 0 }))

    const archivedFilter = (includeArchived: boolean) =>
      includeArchived ? sql.literal("") : sql.literal("AND p.archived_at IS NULL")

    const byNameClause = ({ includeArchived, organizationId, term }: SearchRequest) =>
      [...term].length >= TRIGRAM
        ? sql`WHERE p.id IN (SELECT rowid FROM persons_search WHERE persons_search MATCH ${ftsPhrase(term)})
              AND p.organization_id = ${organizationId} ${archivedFilter(includeArchived)}`
        : sql`WHERE p.organization_id = ${organizationId} ${archivedFilter(includeArchived)}
              AND p.name_key LIKE ${likeContains(term)} ESCAPE '\\'`
    const byEmailClause = ({ includeArchived, organizationId, term }: SearchRequest) =>
      sql`WHERE p.organization_id = ${organizationId} ${archivedFilter(includeArchived)}
          AND p.email_key = ${emailKeyOf(term)}`

    const searchByName = (r: SearchRequest) =>
      many(sql`${select} ${byNameClause(r)} ORDER BY p.id LIMIT ${r.limit} OFFSET ${r.skip}`)
    const countByName = (r: SearchRequest) => count(sql`SELECT count(*) AS total FROM persons p ${byNameClause(r)}`)
    const searchByEmail = (r: SearchRequest) =>
      many(sql`${select} ${byEmailClause(r)} ORDER BY p.id LIMIT ${r.limit} OFFSET ${r.skip}`)
    const countByEmail = (r: SearchRequest) => count(sql`SELECT count(*) AS total FROM persons p ${byEmailClause(r)}`)

    /** The active person with this email, if any. */
    const activeByEmail = ({ email, organizationId }: { organizationId: number; email: string }) =>
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
      }`.pipe(direct.run)

    /** Sets the given columns (the caller keeps `email_key` and `name_key` in step). */
    const update = (id: number, changes: Record<string, string | null>, updatedAt: string) =>
      direct.run(sql`UPDATE persons SET ${sql.update({ ...changes, updated_at: updatedAt })} WHERE id = ${id}`)

    const setArchived = (id: number, archivedAt: string | null, updatedAt: string) =>
      direct.run(sql`UPDATE persons SET archived_at = ${archivedAt}, updated_at = ${updatedAt} WHERE id = ${id}`)

    /** Makes `number` the person's preferred phone, adding it when new. */
    const setPreferredPhone = (personId: number, number: string, createdAt: string) =>
      Effect.zipRight(
        direct.run(sql`UPDATE phones SET is_preferred = 0 WHERE person_id = ${personId} AND is_preferred = 1`),
        direct.run(sql`INSERT INTO phones (person_id, number, is_preferred, created_at) VALUES (${personId}, ${number}, 1, ${createdAt})
            ON CONFLICT (person_id, number) DO UPDATE SET is_preferred = 1`)
      )

    const hasPhone = (personId: number) =>
      Effect.map(direct.first(sql`SELECT 1 AS found FROM phones WHERE person_id = ${personId} LIMIT 1`), (row) => row !== undefined)

    const setConsent = (row: { organizationId: number; number: string; consent: string; source: string; at: string }) =>
      sql`INSERT INTO sms_consents (organization_id, number, consent, source, updated_at)
          VALUES (${row.organizationId}, ${row.number}, ${row.consent}, ${row.source}, ${row.at})
          ON CONFLICT (organization_id, number) DO UPDATE
          SET consent = excluded.consent, source = excluded.source, updated_at = excluded.updated_at`

    return {
      list,
      byPublicId,
      searchByName,
      countByName,
      searchByEmail,
      countByEmail,
      activeByEmail,
      insert,
      update,
      setArchived,
      setPreferredPhone,
      hasPhone,
      setConsent
    } as const
  })
}) {}
