/** Text helpers of the logical schema: expressions normalized, SQLite's CREATE statements scanned, results sorted. */
import type { EngineObject, TypeClass } from "./Schema.js"

// ---------------------------------------------------------------------------------------------
// Normalizing expressions

/**
 * An SQL expression as a comparable string: PostgreSQL's `= ANY (ARRAY[...])` becomes `IN (...)`,
 * casts (`::text`) and a numeric literal's quotes (`'-1'::integer`) go, then tokens are joined by
 * single spaces: words lower-cased, identifiers unquoted, parentheses dropped (PostgreSQL adds its
 * own around every operand), `==` as `=`, `!=` as `<>`, string literals kept as written.
 */
export const normalizeExpression = (text: string): string => {
  const rewritten = text
    .replace(/=\s*ANY\s*\(\s*ARRAY\s*\[([^\]]*)\]\s*\)/gi, "IN ($1)")
    .replace(/'(-?\d+(?:\.\d+)?)'::(?:smallint|integer|bigint|numeric|real|double precision)\b/gi, "$1")
    .replace(/::(?:double precision|character varying|timestamp with(?:out)? time zone|[a-z_][a-z0-9_]*)(?:\[\])?/gi, "")
  const tokens: Array<string> = []
  let i = 0
  while (i < rewritten.length) {
    const char = rewritten[i]!
    if (/\s|[()]/.test(char)) {
      i++
    } else if (char === "'") {
      let j = i + 1
      while (j < rewritten.length) {
        if (rewritten[j] === "'" && rewritten[j + 1] === "'") j += 2
        else if (rewritten[j] === "'") break
        else j++
      }
      tokens.push(rewritten.slice(i, j + 1))
      i = j + 1
    } else if (char === "\"" || char === "`" || char === "[") {
      const close = char === "[" ? "]" : char
      const j = rewritten.indexOf(close, i + 1)
      const end = j === -1 ? rewritten.length : j
      tokens.push(rewritten.slice(i + 1, end).toLowerCase())
      i = end + 1
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(rewritten.slice(i))![0]
      tokens.push(word.toLowerCase())
      i += word.length
    } else if (/\d/.test(char)) {
      const number = /^\d+(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(rewritten.slice(i))![0]
      const previous = tokens[tokens.length - 1]
      // a unary minus belongs to its number: `-1` whether written `- 1` or `'-1'::integer`
      if (previous === "-" && (tokens.length === 1 || /^(?:[=<>!,+*/-]|<>|<=|>=|in|and|or|not|is|between|like|case|then|else|when)$/.test(tokens[tokens.length - 2]!))) {
        tokens[tokens.length - 1] = `-${number}`
      } else {
        tokens.push(number)
      }
      i += number.length
    } else {
      const operator = /^(?:<>|<=|>=|==|!=|\|\||[=<>+\-*/%,.!])/.exec(rewritten.slice(i))?.[0] ?? char
      tokens.push(operator === "==" ? "=" : operator === "!=" ? "<>" : operator)
      i += operator.length
    }
  }
  return tokens.join(" ").replace(/ , /g, ", ")
}

/** The identifiers of an expression that are among `columns`, sorted. */
export const columnsNamed = (expression: string, columns: ReadonlyArray<string>) => {
  const words = new Set(normalizeExpression(expression).split(" "))
  return columns.filter((column) => words.has(column.toLowerCase())).sort()
}

// ---------------------------------------------------------------------------------------------
// Scanning SQLite's CREATE statements (for what its PRAGMAs do not tell: checks, predicates,
// expression keys)

/** Index just past the quoted string, identifier or literal that starts at `i` (or `i + 1`). */
export const skipQuoted = (text: string, i: number) => {
  const open = text[i]!
  const close = open === "[" ? "]" : open
  let j = i + 1
  while (j < text.length) {
    if (text[j] === close && text[j + 1] === close && close !== "]") j += 2
    else if (text[j] === close) return j + 1
    else j++
  }
  return j
}

/** The index of the parenthesis closing the one at `open`. */
export const closingParen = (text: string, open: number) => {
  let depth = 0
  let i = open
  while (i < text.length) {
    const char = text[i]!
    if (char === "'" || char === "\"" || char === "`" || char === "[") {
      i = skipQuoted(text, i)
      continue
    }
    if (char === "(") depth++
    if (char === ")" && --depth === 0) return i
    i++
  }
  return text.length
}

/** Positions of `keyword` (a whole word, any case) outside quotes and at parenthesis depth `depth` or any. */
export const keywordPositions = (text: string, keyword: string, depth?: number) => {
  const positions: Array<number> = []
  let level = 0
  let i = 0
  while (i < text.length) {
    const char = text[i]!
    if (char === "'" || char === "\"" || char === "`" || char === "[") {
      i = skipQuoted(text, i)
      continue
    }
    if (char === "(") level++
    if (char === ")") level--
    if (
      (depth === undefined || level === depth) &&
      text.slice(i, i + keyword.length).toUpperCase() === keyword &&
      !/[A-Za-z0-9_$]/.test(text[i - 1] ?? " ") &&
      !/[A-Za-z0-9_$]/.test(text[i + keyword.length] ?? " ")
    ) {
      positions.push(i)
      i += keyword.length
      continue
    }
    i++
  }
  return positions
}

/** Splits on commas at parenthesis depth 0, outside quotes. */
export const splitTopLevel = (text: string) => {
  const parts: Array<string> = []
  let depth = 0
  let start = 0
  let i = 0
  while (i < text.length) {
    const char = text[i]!
    if (char === "'" || char === "\"" || char === "`" || char === "[") {
      i = skipQuoted(text, i)
      continue
    }
    if (char === "(") depth++
    else if (char === ")") depth--
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
    i++
  }
  parts.push(text.slice(start))
  return parts.map((part) => part.trim())
}

/** The CHECK expressions of a CREATE TABLE statement (column and table constraints alike). */
export const sqliteChecks = (createTable: string) =>
  keywordPositions(createTable, "CHECK").flatMap((position) => {
    const open = createTable.indexOf("(", position)
    return open === -1 ? [] : [createTable.slice(open + 1, closingParen(createTable, open))]
  })

/** The predicate of a partial CREATE INDEX, or null. */
export const sqlitePredicate = (createIndex: string) => {
  const where = keywordPositions(createIndex, "WHERE", 0)[0]
  return where === undefined ? null : normalizeExpression(createIndex.slice(where + "WHERE".length))
}

/** The key terms of a CREATE INDEX (`ON t (a, lower(b))` → `a`, `lower(b)`). */
export const sqliteIndexTerms = (createIndex: string) => {
  const on = keywordPositions(createIndex, "ON", 0)[0] ?? 0
  const open = createIndex.indexOf("(", on)
  return open === -1 ? [] : splitTopLevel(createIndex.slice(open + 1, closingParen(createIndex, open)))
}

/** SQLite's column affinity rules (https://sqlite.org/datatype3.html#determination_of_column_affinity). */
export const sqliteTypeClass = (declared: string): TypeClass => {
  const type = declared.toUpperCase()
  if (type.includes("INT")) return "integer"
  if (type.includes("CHAR") || type.includes("CLOB") || type.includes("TEXT")) return "text"
  if (type === "" || type.includes("BLOB")) return "blob"
  if (type.includes("REAL") || type.includes("FLOA") || type.includes("DOUB")) return "real"
  return `other:${declared.toLowerCase()}`
}

export const pgTypeClass = (formatted: string): TypeClass => {
  const type = formatted.toLowerCase()
  if (type === "bigint" || type === "integer" || type === "smallint") return "integer"
  if (type === "text" || type.startsWith("character")) return "text"
  if (type === "double precision" || type === "real") return "real"
  if (type === "bytea") return "blob"
  return `other:${type}`
}

// ---------------------------------------------------------------------------------------------
// Assembling

export const byName = <A extends { readonly name: string }>(items: ReadonlyArray<A>) =>
  [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))

export const sortedByJson = <A>(items: ReadonlyArray<A>) =>
  [...items].sort((a, b) => {
    const x = JSON.stringify(a)
    const y = JSON.stringify(b)
    return x < y ? -1 : x > y ? 1 : 0
  })

export const record = <A extends { readonly name: string }>(items: ReadonlyArray<A>): Record<string, A> =>
  Object.fromEntries(byName(items).map((item) => [item.name, item]))

export const sortObjects = (objects: ReadonlyArray<EngineObject>) =>
  [...objects].sort((a, b) => {
    const x = `${a.kind}\u0000${a.table ?? ""}\u0000${a.name}`
    const y = `${b.kind}\u0000${b.table ?? ""}\u0000${b.name}`
    return x < y ? -1 : x > y ? 1 : 0
  })
