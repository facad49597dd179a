/**
 * A form that is an API body: the body made of the form's fields is decoded with the API's own
 * schema (`CreatePerson`, `UpdateEvent`...), so the form refuses what the API refuses, at the same
 * paths; the form's own findings (a date that is no date) come first and win at their fields.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { fromParseError, InvalidRequest, type Issue } from "../../Domain/Errors.js"

/**
 * Decodes `body` with the API's `schema`; a refusal holds one issue a field (`fieldOf` a path: the
 * path itself by default), the form's `early` ones first. A `NullOr` member that fails also reports
 * "Expected null", which says nothing to a person: only the first issue of a field is kept.
 */
export const decodeBody = <A, I>(
  schema: Schema.Schema<A, I>,
  body: Record<string, unknown>,
  early: ReadonlyArray<Issue>,
  fieldOf: (path: string) => string = (path) => path
) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })(body).pipe(
    Effect.mapError(fromParseError),
    Effect.either,
    Effect.flatMap((decoded) => {
      const issues: Array<Issue> = []
      for (const issue of [...early, ...(decoded._tag === "Left" ? decoded.left.issues ?? [] : [])]) {
        if (!issues.some((i) => fieldOf(i.path) === fieldOf(issue.path))) issues.push(issue)
      }
      return issues.length > 0 || decoded._tag === "Left"
        ? Effect.fail(new InvalidRequest({ message: "The form has errors", issues }))
        : Effect.succeed(decoded.right)
    })
  )

/** The API's words where a form can say it plainer. */
const PLAINER: Readonly<Record<string, string>> = {
  "must be an absolute http(s) URL": "must be a full web address, starting with https:// or http://",
  "must not be empty": "must be filled in"
}

export const plainer = (message: string) => PLAINER[message] ?? message
