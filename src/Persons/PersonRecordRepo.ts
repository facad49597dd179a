/**
 * One person at a time (PersonsRepo.ts): a new person, changes to its fields, its archiving, its
 * phones and the SMS consent of a number.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import { emailKeyOf } from "../Domain/Fields.js"
import { type OrganizationRowId, type PersonRowId, rowIdColumn } from "../Domain/RowIds.js"
import { SmsConsentValue } from "./Domain.js"
import { nameKeyOf } from "./Keys.js"
import type { NewPersonRow } from "./PersonRows.js"

const Id = Schema.Struct({ id: rowIdColumn.person })
const Consent = Schema.Struct({ consent: SmsConsentValue, source: Schema.String })
const Exists = Schema.Struct({ found: Schema.Literal(1) })

export const personRecord = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => {
  const d = dialectOf(sql)

  /** The SMS consent recorded for a phone number of the organization, if any (`consent` has a CHECK of these values). */
  const consentOf = (organizationId: OrganizationRowId, number: string) =>
    Effect.map(
      direct.first(
        Consent,
        sql`SELECT consent, source FROM sms_consents WHERE organization_id = ${organizationId} AND number = ${number}`
      ),
      Option.fromNullable
    )

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
    Effect.map(direct.first(Exists, sql`SELECT 1 AS found FROM phones WHERE person_id = ${personId} LIMIT 1`), (row) => row !== undefined)

  const setConsent = (row: { organizationId: OrganizationRowId; number: string; consent: string; source: string; at: string }) =>
    sql`INSERT INTO sms_consents (organization_id, number, consent, source, updated_at)
        VALUES (${row.organizationId}, ${row.number}, ${row.consent}, ${row.source}, ${row.at})
        ON CONFLICT (organization_id, number) DO UPDATE
        SET consent = excluded.consent, source = excluded.source, updated_at = excluded.updated_at`

  return { consentOf, insert, fillCompanyAndPosition, update, setArchived, setPreferredPhone, hasPhone, setConsent } as const
}
