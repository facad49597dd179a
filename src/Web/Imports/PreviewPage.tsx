/**
 * The CSV import flow's preview of a kept file (Flow.ts): its column mapping, its first rows as they
 * will be read, the counts and every row error, with the button that imports it.
 */
import { Badge, Card, PageHeader } from "../Kit/Components.js"
import { count, plural } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import type { ImportKind, ImportResult, Sample } from "./ImportKind.js"
import { Steps, UploadForm } from "./UploadPage.js"

export type PreviewState =
  /** The file cannot be imported at all (no email column, unreadable, too many rows...). */
  | { readonly _tag: "Refused"; readonly message: string; readonly sample: Sample | undefined }
  /** A dry run (or a refused real import) of the file. */
  | { readonly _tag: "Checked"; readonly result: ImportResult; readonly sample: Sample }

type Kind = ImportKind<any, any>

const MappingTable = ({ sample }: { sample: Sample }) => (
  <div class="table-wrap">
    <table class="mapping-table">
      <caption class="visually-hidden">Each column of the file and what it fills</caption>
      <thead><tr><th scope="col">Column in your file</th><th scope="col">Imported as</th></tr></thead>
      <tbody>
        {sample.columns.map((column) => (
          <tr>
            <td>{column.header === "" ? <span class="muted">(column {column.index + 1}, no header)</span> : <span class="mono">{column.header}</span>}</td>
            <td>
              {column.status === "read"
                ? <>→ {column.fills}</>
                : column.status === "unknown"
                ? <Badge tone="warn">Ignored: unknown column</Badge>
                : column.status === "blank"
                ? <Badge tone="neutral">Ignored: no header</Badge>
                : <Badge tone="neutral">Skipped: set by Convene</Badge>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
)

const Empty = () => <span class="muted"><span aria-hidden="true">–</span><span class="visually-hidden">empty</span></span>

const SampleTable = ({ errorRows, sample }: { sample: Sample; errorRows: ReadonlySet<number> }) => (
  <div class="table-wrap sample-wrap" tabindex={0} role="region" aria-labelledby="sample-title">
    <table class="sample-table">
      <caption class="visually-hidden">The first {sample.rows.length} rows of the file, as they will be imported</caption>
      <thead>
        <tr>
          <th scope="col">Row</th>
          {sample.read.map((column) => <th scope="col">{column.fills}</th>)}
        </tr>
      </thead>
      <tbody>
        {sample.rows.map((row) => (
          <tr class={errorRows.has(row.row) ? "has-row-error" : undefined}>
            <th scope="row" class="num">
              {count(row.row)}
              {errorRows.has(row.row) ? <> <Badge tone="bad">Error</Badge></> : null}
            </th>
            {row.cells.map((cell) => <td>{cell === "" ? <Empty /> : cell}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
    {sample.rows.length === 0 ? <p class="muted pad">The file has no rows below its header.</p> : null}
  </div>
)

const ErrorsTable = ({ result }: { result: ImportResult }) => (
  <>
    <div class="table-wrap">
      <table class="stack">
        <caption class="visually-hidden">Every row error of the file</caption>
        <thead><tr><th scope="col">Row</th><th scope="col">Column</th><th scope="col">Problem</th></tr></thead>
        <tbody>
          {result.errors.map((error) => (
            <tr>
              <td class="primary">Row {count(error.row)}</td>
              <td data-label="Column">{error.column === null ? <span class="muted">the whole row</span> : <span class="mono">{error.column}</span>}</td>
              <td data-label="Problem">{error.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    {result.errorsOmitted !== undefined
      ? <p class="muted">…and {plural(result.errorsOmitted, "more error")} not listed: fix these first.</p>
      : null}
  </>
)

export const ImportPreviewPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  kind: Kind
  draft: { readonly id: string; readonly filename: string }
  state: PreviewState
  /** The draft's path (`/app/contacts/import/<id>`): POST imports it. */
  draftPath: string
}) => {
  const { draft, kind, site, state } = props
  const filename = draft.filename === "" ? "your file" : draft.filename
  const sample = state.sample
  const result = state._tag === "Checked" ? state.result : undefined
  const errorCount = result === undefined ? 0 : result.errors.length + (result.errorsOmitted ?? 0)
  const errorRows = new Set(result?.errors.map((e) => e.row) ?? [])
  const blocked = state._tag === "Refused"
    ? "This file cannot be imported as it is: see why above."
    : errorCount > 0
    ? `Fix ${errorCount === 1 ? "the error" : `the ${count(errorCount)} errors`} listed below in your file, then upload it again: nothing is imported while the file has errors.`
    : result!.rows === 0
    ? "The file has no rows below its header: there is nothing to import."
    : undefined
  const importLabel = `Import ${result === undefined ? "" : `${count(result.rows)} `}${result?.rows === 1 ? kind.noun.one : kind.noun.many}`
  return (
    <Layout site={site} member={props.member} title={`${kind.title}: check ${filename}`} section={kind.section} flash={props.flash}>
      <PageHeader
        title={kind.title}
        lead={<>Check <strong>{filename}</strong> before anything is written.</>}
        back={{ href: site.href(kind.back.href), label: kind.back.label }}
      />
      <Steps current={1} />

      {state._tag === "Refused"
        ? (
          <div class="flash error" role="alert">
            <p><strong>This file cannot be imported.</strong></p>
            <p>{state.message}</p>
          </div>
        )
        : (
          <section class="import-summary" aria-labelledby="summary-title">
            <h2 id="summary-title" class="visually-hidden">What the import will do</h2>
            <div class="stats">
              <div class="stat"><span class="value">{count(result!.rows)}</span> <span class="label">rows read</span></div>
              {result!.counts.map((c) => <div class="stat"><span class="value">{count(c.value)}</span> <span class="label">{c.label}</span></div>)}
              <div class={`stat${errorCount > 0 ? " bad" : " good"}`}>
                <span class="value">{count(errorCount)}</span> <span class="label">{errorCount === 1 ? "error" : "errors"}</span>
              </div>
            </div>
            {errorCount > 0
              ? <p class="import-status bad" role="alert"><strong>Nothing can be imported yet:</strong> {plural(errorRows.size, "row has", "rows have")} errors{result!.errorsOmitted !== undefined ? " (first ones listed)" : ""}.</p>
              : <p class="import-status good" role="status">No errors found. Nothing is written until you press “{importLabel}”.</p>}
          </section>
        )}

      <Card title="Import" id="confirm" class="import-confirm">
        <div class="form-actions">
          {blocked === undefined
            ? (
              <PostForm action={site.href(props.draftPath)} csrf={props.member.csrf} class="inline-form">
                <button type="submit" class="big">{importLabel}</button>
              </PostForm>
            )
            : <button type="button" class="big" disabled aria-describedby="import-blocked">{importLabel}</button>}
          <PostForm action={site.href(`${props.draftPath}/discard`)} csrf={props.member.csrf} class="inline-form">
            <button type="submit" class="secondary" aria-label={`Cancel: discard ${filename}`}>Cancel</button>
          </PostForm>
        </div>
        {blocked === undefined ? null : <p id="import-blocked" class="blocked-reason">{blocked}</p>}
        {blocked === undefined
          ? null
          : (
            <div class="reupload">
              <h3>Upload a corrected file</h3>
              <UploadForm site={site} member={props.member} kind={kind} again />
            </div>
          )}
      </Card>

      {result !== undefined && result.errors.length > 0
        ? <Card title={`Errors (${count(errorCount)})`} id="errors">
          <p class="hint">Row 1 is the first row below the header (line 2 in a spreadsheet).</p>
          <ErrorsTable result={result} />
        </Card>
        : null}

      {sample !== undefined && sample.columns.length > 0
        ? (
          <Card title="Columns" id="mapping">
            <p class="hint">Which field each column of {filename} fills.</p>
            <MappingTable sample={sample} />
          </Card>
        )
        : null}

      {sample !== undefined && sample.read.length > 0
        ? (
          <div class="card" id="sample">
            <h2 id="sample-title">First {sample.rows.length === 1 ? "row" : `${sample.rows.length} rows`}, as they will be imported</h2>
            <p class="hint">Spaces around values are trimmed; empty cells leave the field empty.</p>
            <SampleTable sample={sample} errorRows={errorRows} />
          </div>
        )
        : null}
    </Layout>
  )
}
