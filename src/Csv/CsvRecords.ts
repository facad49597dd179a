/**
 * The records of a CSV text, as spreadsheets write them: the separator found from the header row
 * (comma, semicolon or tab: the one of the three that occurs most often outside quotes there;
 * ties: comma; a first line `sep=;`, Excel's hint, names it itself and is not part of the table),
 * CRLF, LF or CR line ends, quoted fields with the separator, quotes (`""`) or line breaks in them,
 * stray quotes inside unquoted fields, spaces after a separator, rows of any length. The text is
 * parsed in slices of `SLICE_CHARS`, each followed by a turn of the event loop.
 */
import { CsvError, Parser } from "csv-parse"
import * as Effect from "effect/Effect"
import type { InvalidRequest } from "../Domain/Errors.js"
import { refuse } from "./CsvHeader.js"

/**
 * Text parsed (and its rows handed to the sink) between two turns of the event loop: about a
 * thousand rows, 10-20 ms on a slow core with a feature's validation.
 */
const SLICE_CHARS = 64 * 1024

/**
 * How a CSV import's records are parsed (with the file's delimiter): `""` inside quotes, spaces
 * after a separator dropped, stray quotes and rows of any length taken, blank lines kept (they are
 * numbered rows). For any reader of an import's text, so that all read a file alike.
 */
export const PARSE_OPTIONS = {
  quote: "\"",
  escape: "\"",
  ltrim: true,
  relax_quotes: true,
  relax_column_count: true,
  skip_empty_lines: false
} as const

const CANDIDATES = [",", ";", "\t"] as const

/**
 * The separator of a CSV text (see above) and where its table starts (after a `sep=` line).
 */
export const detectDelimiter = (text: string): { readonly delimiter: string; readonly start: number } => {
  const hint = /^sep=(.)[ \t]*(\r\n|\n|\r|$)/i.exec(text)
  if (hint !== null) return { delimiter: hint[1]!, start: hint[0].length }
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]))
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "\"") quoted = !quoted
    else if (!quoted && (c === "\n" || c === "\r")) break
    else if (!quoted && counts.has(c)) counts.set(c, counts.get(c)! + 1)
  }
  let delimiter: string = ","
  for (const c of CANDIDATES) if (counts.get(c)! > counts.get(delimiter)!) delimiter = c
  return { delimiter, start: 0 }
}

/**
 * Parses `text` (from `start`, with `delimiter`) record by record; `onRecord` stops the parse by
 * returning the reason to refuse the file. A turn of the event loop after each slice of text.
 */
export const parseRecords = (
  text: string,
  start: number,
  delimiter: string,
  onRecord: (record: Array<string>) => InvalidRequest | undefined
): Effect.Effect<void, InvalidRequest> =>
  Effect.async<void, InvalidRequest>((resume) => {
    const parser = new Parser({ ...PARSE_OPTIONS, delimiter })
    let offset = start
    let done = false
    let timer: NodeJS.Immediate | undefined
    const finish = (result: Effect.Effect<void, InvalidRequest>) => {
      if (done) return
      done = true
      if (timer !== undefined) clearImmediate(timer)
      resume(result)
    }
    parser.on("data", (record: Array<string>) => {
      if (done) return
      let refused: InvalidRequest | undefined
      try {
        refused = onRecord(record)
      } catch (defect) {
        // a bug of the sink, not a property of the file: a 500, not "could not be read"
        finish(Effect.die(defect))
        parser.destroy()
        return
      }
      if (refused !== undefined) {
        finish(Effect.fail(refused))
        parser.destroy()
      }
    })
    parser.on("error", (error: unknown) => {
      const reason = error instanceof CsvError || error instanceof Error ? error.message : String(error)
      finish(Effect.fail(refuse(`The CSV could not be read: ${reason}`)))
    })
    parser.on("end", () => finish(Effect.void))
    const step = () => {
      timer = undefined
      if (done) return
      if (offset >= text.length) {
        parser.end()
        return
      }
      let end = Math.min(text.length, offset + SLICE_CHARS)
      // never between the two halves of a surrogate pair
      if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1]!)) end--
      const slice = text.slice(offset, end)
      offset = end
      parser.write(slice, (error) => {
        if (error === null || error === undefined) timer = setImmediate(step)
      })
    }
    step()
    return Effect.sync(() => {
      done = true
      if (timer !== undefined) clearImmediate(timer)
      parser.destroy()
    })
  })
