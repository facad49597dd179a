/**
 * Objects keyed by names that users choose: custom field names (flat `customFields`) and custom
 * column titles (a guest's `customColumns`). Any non-empty text is a valid name, `__proto__` and
 * `constructor` included, and its value must round-trip. A plain `{}` cannot hold `__proto__`:
 * assigning it replaces the object's prototype and the value is lost, and `Schema.Record` builds
 * its output by assignment into `{}`. So these objects have no prototype, and payloads and
 * responses go through `KeyedRecord` instead of `Schema.Record`.
 */
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type Guard, parseChecked } from "./JsonGuard.js"

export type Keyed<V> = { readonly [name: string]: V }

/** An empty object without a prototype: every key, `__proto__` included, is an ordinary property. */
export const emptyKeyed = <V>(): Record<string, V> => Object.create(null) as Record<string, V>

export const keyedFromEntries = <V>(entries: Iterable<readonly [string, V]>): Record<string, V> => {
  const keyed = emptyKeyed<V>()
  for (const [name, value] of entries) keyed[name] = value
  return keyed
}

/** A JSON object text (as stored in the database), checked by `isKeyed`, as a prototype-free object. */
export const parseKeyed = <V>(text: string, isKeyed: Guard<Keyed<V>>, what: string): Record<string, V> =>
  keyedFromEntries(Object.entries(parseChecked(isKeyed, text, what)))

const isObject = (input: unknown): input is Record<string, unknown> =>
  typeof input === "object" && input !== null && !Array.isArray(input)

const each = (parse: (schema: Schema.Schema<any, any>) => (u: unknown, options?: any) => any) =>
(value: Schema.Schema<any, any>) =>
(input: unknown, options: any, ast: any) => {
  if (!isObject(input)) return ParseResult.fail(new ParseResult.Type(ast, input))
  const run = parse(value)
  const out = emptyKeyed<unknown>()
  const issues: Array<ParseResult.ParseIssue> = []
  for (const name of Object.keys(input)) {
    const result = run(input[name], options)
    if (result._tag === "Left") {
      issues.push(new ParseResult.Pointer(name, input, result.left))
      if (options?.errors !== "all") break
    } else {
      out[name] = result.right
    }
  }
  const [first, ...rest] = issues
  return first === undefined ? ParseResult.succeed(out) : ParseResult.fail(new ParseResult.Composite(ast, input, [first, ...rest]))
}

/** The JSON Schema of the values, for the OpenAPI document (no `$schema` header inside a property). */
const valueJsonSchema = (value: Schema.Schema<any, any>) => {
  const { $schema: _, ...schema } = JSONSchema.make(value) as unknown as Record<string, unknown>
  return schema
}

/**
 * `Schema.Record({ key: Schema.String, value })` for names users choose: decodes and encodes into
 * prototype-free objects, so every name keeps its value.
 */
export const KeyedRecord = <V extends Schema.Schema<any, any>>(value: V) =>
  Schema.declare(
    [value],
    {
      decode: each((s) => ParseResult.decodeUnknownEither(s)),
      encode: each((s) => ParseResult.encodeUnknownEither(s))
    },
    { jsonSchema: { type: "object", additionalProperties: valueJsonSchema(Schema.encodedSchema(value)) } }
  ) as unknown as Schema.Schema<Keyed<Schema.Schema.Type<V>>, Keyed<Schema.Schema.Encoded<V>>>
