/**
 * Spreadsheet formula injection (docs/integrators.md#csv-export-and-import, OWASP "CSV Injection"): a spreadsheet opening an
 * exported file runs a cell that starts with `=`, `+`, `-` or `@` (and some read a leading tab or
 * carriage return the same way) as a formula, e.g. `=HYPERLINK("http://evil","x")`. Exports put a
 * `'` before such cells, which spreadsheets show as text. The full-width forms of the four signs
 * (U+FF1D, U+FF0B, U+FF0D, U+FF20) are included: Apple Numbers folds them into the ASCII ones.
 *
 * The prefix is made reversible, so that a file exported and imported again gives back exactly the
 * stored values: a cell made of one or more `'` followed by a trigger gets one more `'` on export,
 * and an import takes one `'` off such a cell. A cell starting with a trigger that an import
 * receives (a file typed by hand) is kept as it is: `=1+2` is stored as the text `=1+2`.
 */
const TRIGGER = /^'*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/

/** The cell as an export writes it. */
export const neutralize = (cell: string): string => (TRIGGER.test(cell) ? `'${cell}` : cell)

/** The value an import reads from a cell: `neutralize` undone. */
export const restore = (cell: string): string => (cell.startsWith("'") && TRIGGER.test(cell) ? cell.slice(1) : cell)
