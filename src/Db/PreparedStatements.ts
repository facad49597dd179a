import type Pg from "pg"

/**
 * Named statements for the texts this process runs again and again. `@effect/sql-pg` sends each
 * statement unnamed, which PostgreSQL parses and plans anew every time: for the four statements
 * of a `GET /person/:id` that was most of the database's work (bench/RESULTS.md). Here a text with
 * parameters is given a name the second time this process runs it, and `pg` then parses it once
 * per connection (PostgreSQL plans it with the values given for its first five executions, and
 * after that with a generic plan only if that is no costlier: the planner's own choice).
 * - Only texts with parameters: those are single statements (a text of several, a migration's,
 *   goes by the simple protocol, which cannot prepare), and texts without any (`BEGIN`, `SELECT 1`)
 *   cost next to nothing to parse.
 * - Bounded: at most `PREPARED_MAX` names in the process, so at most that many statements held by
 *   each connection's session; texts seen once are remembered in a set of at most `PREPARED_SEEN_MAX`
 *   entries, emptied when full, so one-off texts (a bulk insert of an odd number of rows) never
 *   take a name.
 * - Not a text with `LIKE`: the plan of a name search depends on its pattern (a common term walks
 *   the persons in id order and stops at the page, a rare one takes the trigram index:
 *   Persons/Search.pg.ts), and a generic plan, made without the pattern, would be one of the two
 *   for every term.
 * - A name is the text's for the life of the process (`pg` refuses a name reused for another
 *   text), unless PostgreSQL refuses its plan after a change of the schema (`unname`).
 */
export const PREPARED_MAX = 500
const PREPARED_SEEN_MAX = 5_000

export class PreparedStatements {
  private readonly names = new Map<string, string>()
  private readonly seen = new Set<string>()
  private readonly refused = new Set<string>()
  private next = 0

  /** The name `text` runs under, if any (the second time it is asked for, while names are left). */
  nameOf(text: string): string | undefined {
    const name = this.names.get(text)
    if (name !== undefined || this.next >= PREPARED_MAX || text.includes(" LIKE ") || this.refused.has(text)) return name
    if (!this.seen.has(text)) {
      if (this.seen.size >= PREPARED_SEEN_MAX) this.seen.clear()
      this.seen.add(text)
      return undefined
    }
    this.seen.delete(text)
    const named = `convene_${this.next++}`
    this.names.set(text, named)
    return named
  }

  /**
   * `text` runs unnamed from now on: its prepared statement failed with "cached plan must not
   * change result type" (SQLSTATE 0A000), as a `SELECT *` does once another instance's migration
   * has added a column to its table. That one execution fails; the next ones are planned anew.
   */
  unname(text: string): void {
    if (this.names.delete(text)) this.refused.add(text)
  }

  get size(): number {
    return this.names.size
  }

  /** Makes `client` run the texts that have a name as prepared statements. */
  readonly install = (client: Pg.PoolClient): void => {
    const query = client.query as (...args: Array<unknown>) => unknown
    const nameOf = (text: string) => this.nameOf(text)
    const unname = (text: string) => this.unname(text)
    client.query = function(this: Pg.PoolClient, ...args: Array<unknown>) {
      const [text, values, callback] = args
      if (typeof text === "string" && Array.isArray(values) && values.length > 0 && typeof callback === "function") {
        const name = nameOf(text)
        if (name !== undefined) {
          return query.call(this, { name, text, values }, (error: { readonly code?: string } | null, result: unknown) => {
            if (error?.code === FEATURE_NOT_SUPPORTED) unname(text)
            return (callback as (error: unknown, result: unknown) => void)(error, result)
          })
        }
      }
      return query.apply(this, args)
    } as Pg.PoolClient["query"]
  }
}

/** SQLSTATE of "cached plan must not change result type", among others. */
const FEATURE_NOT_SUPPORTED = "0A000"
