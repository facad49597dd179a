/**
 * JSON text of a value of type `A`, made without building the value: a renderer writes it from
 * rows, splicing in JSON the database already holds (a guest's history, its stored arrays). The
 * type says what the text decodes to, so an answer made of such pieces is still checked against
 * its endpoint's schema at compile time (`jsonArrayAs`); each renderer has a test that its text
 * parses to what the value-building renderer gives for the same rows.
 */
declare const JsonTextOf: unique symbol

export type JsonText<A> = string & { readonly [JsonTextOf]: A }

/** The JSON text of a value that was built. */
export const jsonText = <A>(value: A): JsonText<A> => JSON.stringify(value) as JsonText<A>

/** Marks text written to decode to an `A` (for renderers only). */
export const asJsonText = <A>(text: string): JsonText<A> => text as JsonText<A>

/** A string as a JSON string literal. */
export const jsonString = (value: string): string => JSON.stringify(value)

/** A string or null as JSON. */
export const jsonStringOrNull = (value: string | null): string => (value === null ? "null" : JSON.stringify(value))
