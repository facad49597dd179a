import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Substring search over names. SQLite keeps an FTS5 table `persons_search` with the trigram
 * tokenizer over `persons.name_key`, followed by three triggers. Its PostgreSQL counterpart is a
 * `pg_trgm` GIN index on the same column, `persons.name_key` (already lower-cased by the code):
 * it serves `name_key LIKE '%term%'` (and ILIKE) for a term of three characters or more without
 * scanning every person, and PostgreSQL maintains it in the transaction that changes a name, so it
 * needs no triggers. pg_trgm is a trusted extension (PostgreSQL 13+): a database owner may create it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`
  yield* sql`CREATE INDEX persons_search_trgm ON persons USING gin (name_key gin_trgm_ops)`
})
