/**
 * The name search on SQLite (Search.ts). migrations/0018_person_search_ngrams.ts: one token per
 * n-gram and scope (Db/SearchKeys.ts `gramToken`); a term of up to three characters is one token,
 * a longer one the phrase of its trigrams; `a OR b` lists both scopes' persons merged in rowid
 * (creation) order. The total of one character is kept in `persons_search_counts`, of two or
 * three the vocabulary tables count from the index.
 */
import { gramToken, NGRAM, searchScope, termCharacters } from "../Db/SearchKeys.js"
import * as Effect from "effect/Effect"
import { countedGrams, type SearchEngineOf, statesOf } from "./Search.js"

export const sqliteSearch: SearchEngineOf = (sql, direct) => ({
  nameSearch: (organizationId, states, term) => {
    const characters = termCharacters(term)
    const short = characters.length < NGRAM
    const table = sql.literal(short ? "persons_search_short" : "persons_search")
    const scopes = statesOf(states).map((archived) => searchScope(organizationId, archived))
    const grams = characters.length <= NGRAM
      ? [characters.join("")]
      : characters.slice(NGRAM - 1).map((_, i) => characters.slice(i, i + NGRAM).join(""))
    const match = scopes.map((scope) => `"${grams.map((gram) => gramToken(scope, gram)).join(" ")}"`).join(" OR ")
    return {
      pageIds: (limit, skip) => sql`SELECT rowid FROM ${table} WHERE ${table} MATCH ${match} ORDER BY rowid LIMIT ${limit} OFFSET ${skip}`,
      count: characters.length === 1
        ? countedGrams(sql, organizationId, states, characters[0]!)
        : characters.length <= NGRAM
        ? sql`SELECT coalesce(sum(doc), 0) AS total FROM ${sql.literal(short ? "persons_search_short_terms" : "persons_search_terms")}
              WHERE term IN ${sql.in(scopes.map((scope) => gramToken(scope, grams[0]!)))}`
        : sql`SELECT count(*) AS total FROM ${table} WHERE ${table} MATCH ${match}`,
      totalKept: characters.length <= NGRAM
    }
  },
  // A row of `persons_search_counting` tells the triggers, only in a write transaction (so a row
  // left by a crash is rolled back with it); outside one, the triggers count. The caller counts
  // single characters only: the index counts the others.
  insertCounted: (insert, count) =>
    direct.writing()
      ? direct.run(sql`INSERT INTO persons_search_counting (by_caller) VALUES (1)`).pipe(
        Effect.zipRight(insert(sql``)),
        Effect.ensuring(Effect.ignore(direct.run(sql`DELETE FROM persons_search_counting`))),
        Effect.zipRight(count(1))
      )
      : insert(sql``)
})
