/**
 * What a feature's CSV import is to the dashboard's import flow (Flow.ts): its columns, how
 * the file's headers map to them, its dry run and real import, and what the preview shows. The
 * flow and its pages (UploadPage.tsx, PreviewPage.tsx) both read these.
 */
import type * as Effect from "effect/Effect"
import type { HeaderSpec, Slot } from "../../Csv/CsvImport.js"
import type { RowError } from "../../Csv/ImportReport.js"
import type { Conflict, InvalidRequest } from "../../Domain/Errors.js"
import type { Section } from "../Kit/Layout.js"

/** Rows the preview shows as they will be read. */
export const SAMPLE_ROWS = 10
/** The form field of the file. */
export const FILE_FIELD = "file"

/** What an import did (or, in a dry run, would do), as the preview and the flash message tell it. */
export interface ImportResult {
  /** Data rows read. */
  readonly rows: number
  /** The kind's own counts, in order: `new`, `updated`, `unchanged`... */
  readonly counts: ReadonlyArray<{ readonly label: string; readonly value: number }>
  readonly errors: ReadonlyArray<RowError>
  readonly errorsOmitted?: number | undefined
  readonly unknownColumns: ReadonlyArray<string>
}

/** An import's report as the preview and the flash message tell it: `counts`, the kind's own, in order. */
export const resultOf = (
  report: Pick<ImportResult, "rows" | "errors" | "errorsOmitted" | "unknownColumns">,
  counts: ImportResult["counts"]
): ImportResult => ({ rows: report.rows, counts, errors: report.errors, errorsOmitted: report.errorsOmitted, unknownColumns: report.unknownColumns })

/** A column the upload page lists: its header as an export writes it, what it holds. */
export interface ColumnHelp {
  readonly header: string
  readonly meaning: string
}

/** One kind of import (contacts, a guest list), as the flow runs it. */
export interface ImportKind<K extends string = string, X = unknown> {
  /** Stored with each draft: a draft of one kind is never used by another (`guests:<eventId>`). */
  readonly kind: string
  /** The upload page's path (`/app/contacts/import`); drafts live under it. */
  readonly path: string
  readonly section: Section
  /** `Import contacts` */
  readonly title: string
  readonly lead: string
  /** Where the flow's pages lead back to (a service path). */
  readonly back: { readonly href: string; readonly label: string }
  readonly noun: { readonly one: string; readonly many: string }
  readonly columns: ReadonlyArray<ColumnHelp>
  /** Notes on matching rules, shown under the columns. */
  readonly notes: ReadonlyArray<string>
  /** A file to start from (the kind's export), if any. */
  readonly template?: { readonly href: string; readonly label: string } | undefined
  /** How the kind reads a header row (the same spec its import reads with). */
  readonly spec: HeaderSpec<K, X>
  /** What a column of the file fills, in words (`First name`, `Custom field “Size”`). */
  readonly fills: (slot: Slot<K, X>) => string
  readonly dryRun: (csv: string) => Effect.Effect<ImportResult, InvalidRequest | Conflict>
  readonly run: (csv: string) => Effect.Effect<ImportResult, InvalidRequest | Conflict>
  /** The flash message after a real import, and where to go then. */
  readonly done: (result: ImportResult, filename: string) => { readonly message: string; readonly redirect: string }
}

/** How one column of the file is read. */
export interface ColumnMapping {
  readonly index: number
  /** The header as the file gives it ("" when blank). */
  readonly header: string
  readonly status: "read" | "skipped" | "unknown" | "blank"
  /** What a read column fills. */
  readonly fills?: string
}

/** A row of the file as it will be read: one cell per read column, trimmed, formula prefix taken off. */
export interface SampleRow {
  readonly row: number
  readonly cells: ReadonlyArray<string>
}

export interface Sample {
  readonly columns: ReadonlyArray<ColumnMapping>
  /** The read columns, in file order: what `rows` cells are. */
  readonly read: ReadonlyArray<ColumnMapping>
  readonly rows: ReadonlyArray<SampleRow>
}
