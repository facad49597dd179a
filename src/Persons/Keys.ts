/**
 * How persons are found: the key their name is stored under (`name_key`; the email's, `email_key`,
 * unique among an organization's active persons, is `emailKeyOf` of Domain/Fields.ts). The
 * patterns and index keys a search matches it with are the database's (Db/SearchKeys.ts).
 */

export const nameKeyOf = (firstName: string, lastName: string) => `${firstName} ${lastName}`.toLowerCase()
