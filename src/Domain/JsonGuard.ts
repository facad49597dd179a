/**
 * JSON columns read back without casts, on the paths that read thousands of them per answer (a
 * guest list's histories, diets, answers and custom columns; a CSV export's cells). The database
 * holds what the code wrote, so a value of another shape is a defect, never a user's mistake:
 * `parseChecked` throws, and the request fails with a logged 500 instead of answering something
 * its types do not promise.
 *
 * Elsewhere (a value read once per request or delivery) stored JSON is decoded with
 * `Schema.parseJson` decoders built once per module. Here that costs too much: over the four JSON
 * columns of 5,000 guests, `JSON.parse` alone took about 5.5 ms of CPU, with these guards about
 * 6 ms, with `Schema.is` after it 22 ms, and with `Schema.parseJson` decoders over 40 ms (and the
 * render of those 5,000 guests, 15 to 19 ms, was the same with the guards as with casts). A guard
 * is a few `typeof` checks per value, written once here and composed; the types the guards give
 * are checked against the API's schemas where the values are used.
 */

/** A check that `value` is an `A`. */
export type Guard<A> = (value: unknown) => value is A

export type Guarded<G> = G extends Guard<infer A> ? A : never

export const isString: Guard<string> = (value): value is string => typeof value === "string"

/** A JSON scalar as custom values and columns hold it: text, a number or a boolean. */
export const isScalar: Guard<string | number | boolean> = (value): value is string | number | boolean =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean"

export const nullOr = <A>(guard: Guard<A>): Guard<A | null> => (value): value is A | null => value === null || guard(value)

export const arrayOf = <A>(guard: Guard<A>): Guard<ReadonlyArray<A>> => (value): value is ReadonlyArray<A> => {
  if (!Array.isArray(value)) return false
  for (let i = 0; i < value.length; i++) if (!guard(value[i])) return false
  return true
}

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An object with at least these fields, each passing its guard (other fields are let through). */
export const struct = <F extends { readonly [key: string]: Guard<unknown> }>(
  fields: F
): Guard<{ readonly [K in keyof F]: Guarded<F[K]> }> => {
  const keys = Object.keys(fields)
  const guards = Object.values(fields)
  return (value): value is { readonly [K in keyof F]: Guarded<F[K]> } => {
    if (!isRecord(value)) return false
    for (let i = 0; i < keys.length; i++) if (!guards[i]!(value[keys[i]!])) return false
    return true
  }
}

/** `struct` of text fields only, checked without a guard call per field (a guest's history entries). */
export const textFields = <const K extends string>(...keys: ReadonlyArray<K>): Guard<{ readonly [P in K]: string }> =>
(value): value is { readonly [P in K]: string } => {
  if (!isRecord(value)) return false
  for (let i = 0; i < keys.length; i++) if (typeof value[keys[i]!] !== "string") return false
  return true
}

/** An object of names users chose (Domain/Keyed.ts) to values passing `guard`. */
export const keyedOf = <A>(guard: Guard<A>): Guard<{ readonly [name: string]: A }> =>
(value): value is { readonly [name: string]: A } => {
  if (!isRecord(value)) return false
  for (const name in value) if (Object.hasOwn(value, name) && !guard(value[name])) return false
  return true
}

/** The JSON text of a column (`what`, for the message), checked by `guard`; throws when it does not pass. */
export const parseChecked = <A>(guard: Guard<A>, text: string, what: string): A => {
  const value: unknown = JSON.parse(text)
  if (guard(value)) return value
  throw new Error(`Stored ${what} is not of the shape the service writes`)
}
