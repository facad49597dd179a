/**
 * The name search on PostgreSQL (Search.ts). The page: the trigram index serves LIKE when the term
 * holds a trigram (`hasTrigram`). Otherwise the index would hand every row over to be rechecked,
 * slower than a scan, and the planner cannot tell: the term's LIKE is then under another collation
 * than the index's, which keeps the index out. LIKE matches the same under any deterministic
 * collation, and the planner still estimates it from name_key's statistics: a common term walks
 * the persons in id order and stops at the page, a rare one scans them once (which is why a
 * statement with ` LIKE ` is never prepared: Db/PreparedStatements.ts). The total of a term of up
 * to three characters is the count `persons_search_counts` keeps of that n-gram (migrations/pg/0018).
 */
import * as Effect from "effect/Effect"
import { likeContains, NGRAM, termCharacters } from "../Db/SearchKeys.js"
import { countedGrams, type SearchEngineOf } from "./Search.js"

/**
 * Whether pg_trgm takes a trigram from the pattern `%term%`: it splits the term into words
 * (letters and digits) and pads each with two spaces before and one after, except where the
 * pattern's `%` touches it. (A term of one or two characters never has one.)
 */
const hasTrigram = (term: string) =>
  Array.from(term.matchAll(/[\p{L}\p{N}]+/gu)).some((word) =>
    [...word[0]].length + (word.index === 0 ? 0 : 2) + (word.index + word[0].length === term.length ? 0 : 1) >= 3
  )

export const pgSearch: SearchEngineOf = (sql, direct) => ({
  nameSearch: (organizationId, states, term) => {
    const characters = termCharacters(term)
    const filter = sql.literal(states === "active" ? "AND p.archived_at IS NULL" : states === "archived" ? "AND p.archived_at IS NOT NULL" : "")
    const where = sql`WHERE p.organization_id = ${organizationId} ${filter} AND ${
      hasTrigram(term.toLowerCase())
        ? sql`p.name_key LIKE ${likeContains(term)} ESCAPE '\\'`
        : sql`p.name_key COLLATE "C" LIKE ${likeContains(term)} ESCAPE '\\'`
    }`
    return {
      pageIds: (limit, skip) => sql`SELECT p.id FROM persons p ${where} ORDER BY p.id LIMIT ${limit} OFFSET ${skip}`,
      count: characters.length <= NGRAM
        ? countedGrams(sql, organizationId, states, characters.join(""))
        : sql`SELECT count(*) AS total FROM persons p ${where}`,
      totalKept: characters.length <= NGRAM
    }
  },
  // A setting of the transaction tells the triggers, set by the statement itself (so it holds for
  // the statement's triggers even outside a transaction) and unset after it.
  insertCounted: (insert, count) =>
    insert(sql`, (SELECT set_config('convene.search_counts', 'caller', true)) AS counted_by_caller`).pipe(
      Effect.ensuring(Effect.ignore(direct.run(sql`SELECT set_config('convene.search_counts', '', true)`))),
      Effect.zipRight(count(NGRAM))
    )
})
