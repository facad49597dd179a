/**
 * CSV exports (docs/integrators.md#csv-export-and-import): a list of columns and a stream of row batches become an RFC 4180
 * document (header row, CRLF line ends, fields quoted when they hold a quote, a comma, CR or LF),
 * UTF-8 without BOM, every cell neutralized against formula injection (Formula.ts), written to
 * the client batch by batch as the rows are read (`streamed`, Http/JsonStream.ts): memory holds
 * one batch whatever the number of rows.
 *
 * A feature supplies its columns (a header and how to get the cell from a row) and its batches,
 * read in one snapshot (`StreamSlots.snapshot`, which also takes the answer's share of the
 * streamed answers) for a consistent file; nothing here knows persons or guests.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { stringify } from "csv-stringify/sync"
import type * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { streamed } from "../Http/JsonStream.js"
import { neutralize } from "./Formula.js"

export const CSV_CONTENT_TYPE = "text/csv; charset=utf-8"

/** One column of an export: its header, and its cell for a row (null and undefined: empty). */
export interface ExportColumn<Row> {
  readonly header: string
  readonly cell: (row: Row) => string | null | undefined
}

const options = {
  delimiter: ",",
  quote: "\"",
  escape: "\"",
  record_delimiter: "\r\n",
  // csv-stringify quotes a bare CR or LF only when asked, once a record delimiter is given
  quote_record_delimiter: true,
  eof: true
} as const

/** Records (arrays of cells, not yet neutralized) as RFC 4180 lines, each ending in CRLF. */
export const renderRecords = (records: ReadonlyArray<ReadonlyArray<string>>): string =>
  records.length === 0 ? "" : stringify(records.map((record) => record.map(neutralize)), options)

/** The header line of `columns`. */
export const headerLine = <Row>(columns: ReadonlyArray<ExportColumn<Row>>): string =>
  renderRecords([columns.map((column) => column.header)])

/** The lines of a batch of rows. */
export const renderRows = <Row>(columns: ReadonlyArray<ExportColumn<Row>>, rows: ReadonlyArray<Row>): string =>
  renderRecords(rows.map((row) => columns.map((column) => column.cell(row) ?? "")))

/** The whole document as pieces of text: the header line, then one piece per batch. */
export const csvDocument = <Row, E, R>(
  columns: ReadonlyArray<ExportColumn<Row>>,
  batches: Stream.Stream<ReadonlyArray<Row>, E, R>
): Stream.Stream<string, E, R> =>
  Stream.make(headerLine(columns)).pipe(
    Stream.concat(batches.pipe(
      Stream.filter((batch) => batch.length > 0),
      Stream.map((batch) => renderRows(columns, batch))
    ))
  )

/**
 * `<prefix>-<parts...>-<YYYY-MM-DD>.csv` with only `[A-Za-z0-9._-]` (anything else becomes `-`),
 * safe inside the quoted `filename` of `Content-Disposition`.
 */
export const attachmentName = (parts: ReadonlyArray<string>, date: string): string =>
  `${[...parts, date].map((part) => part.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "")).join("-")}.csv`

/**
 * The streamed answer: `text/csv; charset=utf-8`, an attachment named `filename`, not cached.
 * Whatever can fail before the first byte (the caller's rights, an unknown id) must have failed
 * before this is called: once the header line is sent, a failure aborts the connection.
 */
export const csvResponse = <E, R>(
  filename: string,
  document: Stream.Stream<string, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  streamed(document, {
    contentType: CSV_CONTENT_TYPE,
    headers: {
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store"
    }
  })
