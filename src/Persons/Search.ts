/**
 * The name search (CONTRACT: a substring of a person's name, case-insensitive), written for each
 * engine: `Search.sqlite.ts` (FTS5 tables of the names' n-grams) and `Search.pg.ts` (`LIKE` on
 * `name_key` with the `pg_trgm` index). PersonsRepo takes its engine's with `Dialect.pick`. Both
 * keep, in `persons_search_counts`, how many persons hold each short n-gram, so that the total of
 * a short term costs a lookup; an import adds its persons' counts in one statement
 * (`insertCounted`). What both share is here.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import type * as Effect from "effect/Effect"
import type { DirectSqlShape } from "../Db/DirectSql.js"
import type { OrganizationRowId } from "../Domain/RowIds.js"

/** Which of an organization's persons a name search looks at. */
export type NameStates = "active" | "archived" | "any"

export interface NameSearch {
  /** A SELECT of the `id`s of the matching persons from the `skip`th, at most `limit`, in creation order. */
  readonly pageIds: (limit: number, skip: number) => Statement.Fragment
  /** A statement answering the number of matching persons as `total`. */
  readonly count: Statement.Statement<unknown>
  /**
   * Whether `count` reads a number kept as persons are written (a count table's, an index's own),
   * not every match: then it costs about the same for any term, and a search asks it first (a page
   * past the total is not read).
   */
  readonly totalKept: boolean
}

export interface SearchEngine {
  /**
   * The persons of an organization whose name contains `term` (case-insensitive: `name_key`
   * contains the lower-cased term), active ones, archived ones or both (`states`).
   */
  readonly nameSearch: (organizationId: OrganizationRowId, states: NameStates, term: string) => NameSearch
  /**
   * Runs an import's statement that creates persons (`insert`, given what to append to its
   * SELECT) so that the triggers that count each person written leave its rows alone, then adds
   * the batch's n-grams of up to as many characters as this engine keeps counted by the caller
   * (`count`) in one upsert: counting them in SQL took PostgreSQL some 100 µs per person and
   * doubled a 50,000-row import there (SQLite: 6 µs of the 19 µs its triggers add).
   */
  readonly insertCounted: (
    insert: (also: Statement.Fragment) => Effect.Effect<void, SqlError>,
    count: (longest: number) => Effect.Effect<void, SqlError>
  ) => Effect.Effect<void, SqlError>
}

/** A search engine's parts, made once per repository. */
export type SearchEngineOf = (sql: SqlClient.SqlClient, direct: DirectSqlShape) => SearchEngine

/** Whether each of the persons' states a search looks at is archived. */
export const statesOf = (states: NameStates): ReadonlyArray<boolean> =>
  states === "active" ? [false] : states === "archived" ? [true] : [false, true]

/** The persons an n-gram's count in `persons_search_counts` (both engines, engine-own) gives. */
export const countedGrams = (sql: SqlClient.SqlClient, organizationId: OrganizationRowId, states: NameStates, gram: string) =>
  sql`SELECT coalesce(sum(persons), 0) AS total FROM persons_search_counts
      WHERE organization_id = ${organizationId} AND archived IN ${sql.in(statesOf(states).map((archived) => archived ? 1 : 0))}
        AND gram = ${gram}`

