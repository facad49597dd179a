/** Field schemas shared by payloads: strings are trimmed (docs/integrators.md#requests-and-responses) and bounded. */
import * as Schema from "effect/Schema"
/**
 * An optional key of a JSON payload: absent, or present with a value (JSON has no undefined),
 * so a wrong value is reported once, at its own path.
 */
export const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** What a value over `max` characters is told, by the schemas below and by imports' row errors. */
export const atMostCharacters = (max: number) => `must be at most ${max} characters`

/** A trimmed string of at most `max` characters (may be empty). */
export const Text = (max = 500) => Schema.Trim.pipe(Schema.maxLength(max, { message: () => atMostCharacters(max) }))

/** A trimmed, non-empty string of at most `max` characters. */
export const RequiredText = (max = 500) =>
  Schema.Trim.pipe(
    Schema.minLength(1, { message: () => "must not be empty" }),
    Schema.maxLength(max, { message: () => atMostCharacters(max) })
  )

/** A string of at most `max` characters, kept as given (a custom value: not trimmed). */
export const BoundedString = (max: number) => Schema.String.pipe(Schema.maxLength(max, { message: () => atMostCharacters(max) }))

/** The longest email address (RFC 5321's 64 + 1 + 255, rounded as commonly) and password accepted anywhere. */
export const EMAIL_MAX_LENGTH = 320
export const PASSWORD_MAX_LENGTH = 1024

/** A contact's email address (a dotted domain); compared case-insensitively, stored as given. */
export const Email = Schema.Trim.pipe(
  Schema.maxLength(EMAIL_MAX_LENGTH, { message: () => atMostCharacters(EMAIL_MAX_LENGTH) }),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an email address" })
).annotations({ identifier: "Email", description: "An email address; compared case-insensitively, stored as given." })

/**
 * The key an email is compared and stored under (a person's `email_key`, a user's sign-in key):
 * trimmed and lower-cased.
 */
export const emailKeyOf = (email: string): string => email.trim().toLowerCase()

/**
 * A member's sign-in email. A self-hosted instance may use single-label hosts, as the first-start
 * `admin@localhost` does, so the domain needs no dot.
 */
export const UserEmail = Schema.Trim.pipe(
  Schema.maxLength(EMAIL_MAX_LENGTH, { message: () => atMostCharacters(EMAIL_MAX_LENGTH) }),
  Schema.pattern(/^[^\s@]+@[^\s@]+$/, { message: () => "must be an email address" })
).annotations({ identifier: "UserEmail", description: "A sign-in email address; compared case-insensitively." })

/** `YYYY-MM-DD` names a day of the calendar (no 30 February). */
export const isRealDate = (value: string) => {
  const [y, m, d] = value.split("-").map(Number) as [number, number, number]
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/** `YYYY-MM-DD`, a real calendar date. */
export const DateOnly = Schema.Trim.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, { message: () => "must be a date as YYYY-MM-DD" }),
  Schema.filter(isRealDate, { message: () => "must be a real calendar date" })
).annotations({ identifier: "DateOnly", description: "A calendar date, YYYY-MM-DD." })

/**
 * Every URL the API stores (images, featured image, location website, virtual locations, profile
 * pictures, webhooks): absolute `http` or `https` with a host, nothing else. Integrators render
 * these as links, so `javascript:`, `data:` and relative URLs are refused, not stored.
 */
export const isHttpUrl = (value: string): boolean => {
  // no whitespace or control characters anywhere: the URL parser would strip some of them silently
  if (!URL.canParse(value) || /[\u0000-\u0020\u007f]/.test(value)) return false
  const { hostname, protocol } = new URL(value)
  return (protocol === "http:" || protocol === "https:") && hostname !== ""
}

export const HttpUrl = Schema.Trim.pipe(
  Schema.maxLength(2048, { message: () => "must be at most 2048 characters" }),
  Schema.filter(isHttpUrl, { message: () => "must be an absolute http(s) URL" })
).annotations({ identifier: "HttpUrl", description: "An absolute http or https URL." })

/**
 * Whether a JSON number is sure to be the number its sender wrote. JSON numbers are parsed into
 * doubles, which hold 15 significant digits exactly: a value with more (or one written with an
 * exponent) may already have lost digits, and the API would answer something else than it was
 * given. Such values are refused; sent as a string, they are kept digit for digit.
 */
export const keepsDigits = (value: number): boolean => {
  if (!Number.isFinite(value)) return false
  const text = String(Math.abs(value))
  if (text.includes("e")) return false
  return text.replace(".", "").replace(/^0+/, "").length <= 15
}

/** A JSON number that round-trips exactly (see `keepsDigits`). */
export const ExactNumber = Schema.Number.pipe(
  Schema.filter(keepsDigits, {
    message: () => "has more digits than a JSON number keeps exactly: send it as a string to keep every digit"
  })
)

/** An optional string field that may also be sent as null (both leave or clear the value). */
export const OptionalText = (max = 500) => optional(Schema.NullOr(Text(max)))

/** An optional text as stored: absent, null and `""` all mean no value, stored as null. */
export const blankToNull = <A extends string>(value: A | null | undefined): A | null =>
  value === undefined || value === null || value === "" ? null : value

/** A free text as stored: trimmed, and null when nothing is left. */
export const trimToNull = (value: string | null | undefined): string | null => blankToNull(value?.trim())
