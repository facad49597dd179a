/**
 * What a row's schema decoding found wrong, field by field, as an import reports it: the first
 * issue of each field (a nullable field's schema also says "Expected null" for its other branch),
 * its message without the value (a file's cells are not repeated back).
 */
import * as ParseResult from "effect/ParseResult"

/** One field's issue: the field, the index of the list item it names (if any), and what it says. */
export interface FieldIssue {
  readonly field: string
  readonly item: number | undefined
  readonly message: string
}

/** What a schema issue says, without the value. */
const withoutValue = (message: string) => message.replace(/,\s*actual[\s\S]*$/, "").trim()

/** The first issue of each field of a row's decoding error, in the order the schema found them. */
export const fieldIssues = (error: ParseResult.ParseError): Array<FieldIssue> => {
  const seen = new Set<string>()
  const issues: Array<FieldIssue> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const field = String(issue.path[0] ?? "")
    if (seen.has(field)) continue
    seen.add(field)
    const item = issue.path[1]
    issues.push({ field, item: typeof item === "number" ? item : undefined, message: withoutValue(issue.message) })
  }
  return issues
}
