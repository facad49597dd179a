/**
 * The set-based statements of contact and guest-list imports (PersonsRepo.ts), each over a batch
 * serialized ahead (PersonBatches.ts): the persons an import matches by email, new persons with
 * their name search's counts (Search.ts `insertCounted`), blanks filled, first phones.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { dialectOf } from "../Db/Dialect.js"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import { type OrganizationRowId, rowIdColumn } from "../Domain/RowIds.js"
import { activePersonByEmail } from "./BatchJoins.js"
import { type FilledPerson, type FirstPhone, importedColumns, MatchRow, type NewPersonsBatch, type RowBatch } from "./PersonBatches.js"
import { pgSearch } from "./Search.pg.js"
import { sqliteSearch } from "./Search.sqlite.js"

const Id = Schema.Struct({ id: rowIdColumn.person })

export const personImports = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => {
  const d = dialectOf(sql)
  const search = d.pick({ sqlite: sqliteSearch, pg: pgSearch })(sql, direct)

  /**
   * The active persons holding these emails (given as `emailKeyOf` keys). On PostgreSQL the keys
   * drive, each finding its person by the index (Db/Dialect.ts `lookup`).
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

  return { activeByEmailKeys, insertMany, fillBlanksMany, addFirstPhones } as const
}
