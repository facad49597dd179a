/**
 * Query-string parameters (docs/integrators.md#pagination): `limit` 1 to 100, `skip` 0 or more,
 * booleans as true/1/false/0, anything else a 400.
 */
import * as Schema from "effect/Schema"
const integer = (message: string) =>
  Schema.String.pipe(
    Schema.pattern(/^\d+$/, { message: () => message }),
    Schema.compose(Schema.NumberFromString),
    Schema.filter(Number.isSafeInteger, { message: () => message })
  )

/** A page size: an integer from 1 to 100. */
export const Limit = integer("must be an integer from 1 to 100").pipe(
  Schema.between(1, 100, { message: () => "must be an integer from 1 to 100" })
).annotations({ description: "Page size, 1 to 100." })

/** A page size from 1 to `max` (the change feed's pages go up to 1000). */
export const pageSizeUpTo = (max: number) =>
  integer(`must be an integer from 1 to ${max}`).pipe(
    Schema.between(1, max, { message: () => `must be an integer from 1 to ${max}` })
  ).annotations({ description: `Page size, 1 to ${max}.` })

/** Items to skip: an integer of 0 or more. */
export const Skip = integer("must be an integer of 0 or more").annotations({ description: "Items to skip, 0 or more." })

/** `true`/`1` and `false`/`0`; anything else is a 400. */
export const BooleanParam = Schema.transform(
  Schema.Literal("true", "1", "false", "0").annotations({ message: () => "must be true, false, 1 or 0" }),
  Schema.Boolean,
  { strict: true, decode: (s) => s === "true" || s === "1", encode: (b) => (b ? "true" : "false") }
)

/**
 * Free text in a query (a search term, an email): any string without U+0000, which SQLite's
 * LIKE and full-text search would read as the end of the text.
 */
export const QueryText = Schema.String.pipe(
  Schema.filter((s) => !s.includes("\u0000"), { message: () => "must not contain the NUL character (U+0000)" })
)
