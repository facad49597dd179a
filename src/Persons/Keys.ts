/**
 * How persons are found: the key their name is stored under (`name_key`; the email's, `email_key`,
 * unique among an organization's active persons, is `emailKeyOf` of Domain/Fields.ts), and the
 * patterns a search matches them with.
 */

export const nameKeyOf = (firstName: string, lastName: string) => `${firstName} ${lastName}`.toLowerCase()

/** `%`, `_` and `\` match themselves in a LIKE pattern. */
export const likeContains = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The trigram index answers substrings of three characters or more; shorter ones scan. */
export const TRIGRAM = 3

/** An FTS5 query for the phrase `text`: with the trigram tokenizer, a case-insensitive substring. */
export const ftsPhrase = (text: string) => `"${text.toLowerCase().replaceAll("\"", "\"\"")}"`
