/**
 * Forms (and queries) decoded with `Schema`, as the API decodes its bodies. A page declares what its
 * form posts as a `Schema.Struct` of the form's fields, and `decodeForm` reads the URL-encoded body
 * through it, by the encoded side of each field:
 * - a text field is one value, trimmed (`asTyped`: as typed, for passwords and free text);
 * - an array field is every value of a repeated key (a selection of checkboxes), `Selection`;
 * - a boolean field is whether the key was sent (a ticked checkbox);
 * - an optional field sent empty is left out, as a JSON body leaves out what it does not set.
 * A refusal is the form's issues, the first one of each field, in the struct's order: the page puts
 * each beside its field in its own words. The schema may be an API body's own (the form then refuses
 * what the API refuses, at the same fields) or the form's, with lenient fields (`orNone`, `Cut`,
 * `Skip`) for what a page reads without refusing: filters, searches, pages of a list.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { readBoundedText } from "../../Http/JsonBody.js"

/** The largest form the dashboard reads (uploads have their own limit). */
const MAX_FORM_BYTES = 1_048_576

/** A submitted form's fields (or a query's). */
export interface Form {
  /** The field trimmed (empty when absent). */
  readonly get: (name: string) => string
  /** The field exactly as sent: passwords, where spaces count. */
  readonly raw: (name: string) => string
  readonly getAll: (name: string) => ReadonlyArray<string>
  readonly has: (name: string) => boolean
}

/**
 * A form's fields. U+0000 is dropped from every value: no one types it, no page shows it, and
 * PostgreSQL's text cannot hold it (the API refuses it in bodies and queries instead).
 */
export const formOf = (text: string): Form => {
  const params = new URLSearchParams(text.includes("%00") ? text.replace(/%00/g, "") : text)
  return {
    get: (name) => (params.get(name) ?? "").trim(),
    raw: (name) => params.get(name) ?? "",
    getAll: (name) => params.getAll(name).map((v) => v.trim()),
    has: (name) => params.has(name)
  }
}

/** A query's (or a public form's) parameters, as sent: nothing trimmed or dropped. */
export const paramsOf = (params: URLSearchParams): Form => ({
  get: (name) => params.get(name) ?? "",
  raw: (name) => params.get(name) ?? "",
  getAll: (name) => params.getAll(name),
  has: (name) => params.has(name)
})

/** The request's URL-encoded form (an empty one when it is over the limit; a form that is too slow dies). */
export const readForm = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  readBoundedText(request, MAX_FORM_BYTES).pipe(
    Effect.map(formOf),
    Effect.catchTag("PayloadTooLarge", () => Effect.succeed(formOf(""))),
    // a form that did not arrive in time: answered 408 by the page's guard (Kit/Answers.ts)
    Effect.orDie
  ))

const AsTyped = Symbol.for("Convene/Web/Form/AsTyped")

/** A text field read as typed, not trimmed: a password, free text whose own lines count. */
export const asTyped = <S extends Schema.Schema.Any>(schema: S): S => schema.annotations({ [AsTyped]: true }) as S

/** Ticked checkboxes (or any repeated key): the values sent, each once, blanks dropped. */
export const Selection = Schema.transform(Schema.Array(Schema.String), Schema.Array(Schema.String), {
  strict: true,
  decode: (values) => [...new Set(values.filter((v) => v !== ""))],
  encode: (values) => values
})

/** A choice read without refusing: one of `schema`'s values, or undefined for anything else. */
export const orNone = <A extends string, I>(schema: Schema.Schema<A, I>) => {
  const is = Schema.is(schema)
  return Schema.transform(Schema.String, Schema.UndefinedOr(Schema.typeSchema(schema)), {
    strict: true,
    decode: (value) => (is(value) ? value : undefined),
    encode: (value) => value ?? ""
  })
}

/** A search: trimmed and cut to `max` characters. */
export const Cut = (max: number) =>
  Schema.transform(Schema.String, Schema.String, { strict: true, decode: (value) => value.trim().slice(0, max), encode: (value) => value })

/** Where a page of a list starts: digits, anything else the first page. */
export const Skip = Schema.transform(Schema.String, Schema.Number, {
  strict: true,
  decode: (value) => (/^\d{1,9}$/.test(value) ? Number(value) : 0),
  encode: String
})

/** Where a page of a list starts, as JavaScript reads a number: a whole number above 0, anything else the first page. */
export const Offset = Schema.transform(Schema.String, Schema.Number, {
  strict: true,
  decode: (value) => {
    const n = Number(value)
    return Number.isSafeInteger(n) && n > 0 ? n : 0
  },
  encode: String
})

/** The answer of a confirmation page (Kit/Confirm.tsx). */
export const confirmed = (form: Form) => form.get("confirm") === "yes"

type Kind = "one" | "typed" | "many" | "ticked"

const kindOf = (ast: AST.AST): Kind => {
  if (AST.isUnion(ast)) {
    const member = ast.types.find((t) => !AST.isUndefinedKeyword(t))
    return member === undefined ? "one" : kindOf(member)
  }
  if (AST.isTupleType(ast)) return "many"
  if (AST.isBooleanKeyword(ast)) return "ticked"
  return Option.isSome(AST.getAnnotation(ast, AsTyped)) ? "typed" : "one"
}

/** The form's fields of a struct, by their encoded names, in the struct's order. */
const fieldsOfStruct = (ast: AST.AST) => {
  const literal = AST.encodedAST(ast)
  if (!AST.isTypeLiteral(literal)) throw new Error("a form's schema is a struct")
  return literal.propertySignatures.map((p) => ({ name: String(p.name), optional: p.isOptional, kind: kindOf(p.type) }))
}

/** The input a form gives a struct, as a JSON body would give it. */
const inputOf = (ast: AST.AST, form: Form): Record<string, unknown> => {
  const input: Record<string, unknown> = {}
  for (const field of fieldsOfStruct(ast)) {
    const value = field.kind === "many"
      ? form.getAll(field.name)
      : field.kind === "ticked"
      ? form.has(field.name)
      : field.kind === "typed"
      ? form.raw(field.name)
      : form.get(field.name)
    if (field.optional && (value === "" || !form.has(field.name))) continue
    input[field.name] = value
  }
  return input
}

/** One issue of a refused form: the field (the path's first key), the path, the schema's message. */
export interface FormIssue {
  readonly field: string
  readonly path: string
  readonly message: string
}

/** The issues of a refusal, the first of each field, in the struct's order. */
const issuesOf = (ast: AST.AST, error: ParseResult.ParseError): ReadonlyArray<FormIssue> => {
  const order = fieldsOfStruct(ast).map((f) => f.name)
  const issues: Array<FormIssue> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const field = issue.path.length === 0 ? "" : String(issue.path[0])
    if (issues.some((i) => i.field === field)) continue
    issues.push({ field, path: issue.path.map(String).join("."), message: issue.message })
  }
  const rank = (issue: FormIssue) => (order.includes(issue.field) ? order.indexOf(issue.field) : order.length)
  return issues.sort((a, b) => rank(a) - rank(b))
}

/** Decodes a form through a struct: its values, or its issues. */
export const decodeForm = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
  return (form: Form): Either.Either<A, ReadonlyArray<FormIssue>> =>
    Either.mapLeft(decode(inputOf(schema.ast, form)), (error) => issuesOf(schema.ast, error))
}

/** A form through a struct that cannot refuse (lenient fields only): a refusal is a defect. */
export const fieldsOf = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownSync(schema, { onExcessProperty: "ignore" })
  return (form: Form): A => decode(inputOf(schema.ast, form))
}

/** The request's query through a struct that cannot refuse (lenient fields only). */
export const readQuery = <A, I>(schema: Schema.Schema<A, I>) => {
  const read = fieldsOf(schema)
  return Effect.map(HttpServerRequest.HttpServerRequest, (request) => read(paramsOf(new URL(request.url, "http://convene.invalid").searchParams)))
}

/** The route's path parameters of `names` ("" when absent). */
export const pathParams = <K extends string>(...names: ReadonlyArray<K>) =>
  Effect.map(HttpRouter.params, (params) => Object.fromEntries(names.map((name) => [name, params[name] ?? ""])) as Record<K, string>)

/** The text of a textarea: browsers send `\r\n` line breaks; they are kept as `\n`, the whole trimmed. */
export const Multiline = Schema.transform(Schema.String, Schema.String, {
  strict: true,
  decode: (value) => value.replace(/\r\n?/g, "\n").trim(),
  encode: (value) => value
})
