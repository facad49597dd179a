/**
 * The patterns and index keys a text search matches with, on either engine (Dialect.ts writes the
 * statements): a LIKE pattern for a substring, and the n-grams of a key.
 *
 * A name search finds the rows whose key (a person's `name_key`, Persons/Keys.ts) contains the
 * lower-cased term: a substring of characters (code points), nothing folded beyond `toLowerCase`.
 * The indexes hold a key's n-grams (its substrings of one, two and three characters) under the
 * row's scope, its organization and whether it is archived: a term of up to three characters is
 * one n-gram, a longer one the phrase of its trigrams at consecutive places (Dialect.ts).
 */

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
export const likeContains = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** A term of up to this many characters is one n-gram of the indexes; a longer one, a phrase of trigrams. */
export const NGRAM = 3

/**
 * The distinct substrings of one to `longest` characters of a `name_key`: the n-grams whose counts
 * the name search keeps (in SQL: `persons_search_grams` of migrations/pg/0018; migrations/0018
 * counts single characters).
 */
export const nameGrams = (nameKey: string, longest = NGRAM): ReadonlySet<string> => {
  // where each character starts (a character beyond U+FFFF takes two UTF-16 units), and the end
  const starts: Array<number> = []
  for (let i = 0; i < nameKey.length; i += nameKey.codePointAt(i)! > 0xffff ? 2 : 1) starts.push(i)
  starts.push(nameKey.length)
  const grams = new Set<string>()
  for (let n = 1; n <= longest; n++) {
    for (let i = 0; i + n < starts.length; i++) grams.add(nameKey.slice(starts[i], starts[i + n]))
  }
  return grams
}

/** The characters (code points) of a search term, lower-cased as `name_key` is. */
export const termCharacters = (term: string): ReadonlyArray<string> => [...term.toLowerCase()]

/**
 * The scope of a person in the search indexes: its organization's id, then `a` (active) or `x`
 * (archived). The same text in SQL: `organization_id || iif(archived_at IS NULL, 'a', 'x')`.
 */
export const searchScope = (organizationId: number, archived: boolean) => `${organizationId}${archived ? "x" : "a"}`

/**
 * SQLite's token of an n-gram in a scope: the scope, then the n-gram's UTF-8 bytes in hex, as
 * SQLite's `hex()` writes them (its FTS5 `ascii` tokenizer lower-cases both). Only letters and
 * digits, so the tokenizer keeps it whole; the scope's letter ends the organization's digits.
 */
export const gramToken = (scope: string, gram: string) => `${scope}${Buffer.from(gram, "utf8").toString("hex")}`
