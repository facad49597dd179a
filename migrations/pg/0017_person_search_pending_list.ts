import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The name search's trigram index (0006) with a short pending list. A GIN index takes new entries
 * into a pending list, unsorted, which every search of the index reads through whole until it is
 * merged into the index (when it outgrows `gin_pending_list_limit`, 4 MB by default, or at a
 * vacuum). After an import of 100,000 persons a search read some 400 pages of it, 4-6 ms on each
 * of its two statements (bench/RESULTS.md, issue 17). At 128 kB it reads at most 16, and writes
 * still merge their entries in batches: measured on a table of name keys, 100,000 rows in one
 * INSERT took as long as with 4 MB (0.43 s; 3.4 s without a pending list), 2,000 single-row
 * INSERTs 24 ms (10 ms with 4 MB, 89 ms without). What the list holds now is merged at once.
 * PostgreSQL only: SQLite's FTS5 table has no such list (the schema comparison of
 * test/support/LogicalSchema/ leaves trigram indexes out; it lists them as PostgreSQL's own).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER INDEX persons_search_trgm SET (gin_pending_list_limit = 128)`
  yield* sql`SELECT gin_clean_pending_list('persons_search_trgm')`
})
