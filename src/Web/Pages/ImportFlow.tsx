/**
 * The CSV import flow's pages (ImportFlow.ts), for any kind of import: the upload form with the
 * columns a file may have, and the preview of a kept file (its column mapping, its first rows as
 * they will be read, the counts and every row error) with the button that imports it.
 */
import { FILE_FIELD, type ImportKind, type ImportResult, type Sample } from "../ImportKind.js"
import { count, plural } from "../Kit/Format.js"
import { Badge, Card, type FlashView, Layout, type Member, PageHeader, PostForm, type Site } from "../Html.js"

export type PreviewState =
  /** The file cannot be imported at all (no email column, unreadable, too many rows...). */
  | { readonly _tag: "Refused"; readonly message: string; readonly sample: Sample | undefined }
  /** A dry run (or a refused real import) of the file. */
  | { readonly _tag: "Checked"; readonly result: ImportResult; readonly sample: Sample }

type Kind = ImportKind<any, any>

const STEPS = ["Upload a file", "Check it", "Import"] as const

const Steps = ({ current }: { current: 0 | 1 | 2 }) => (
  <ol class="import-steps" aria-label="Steps">
    {STEPS.map((step, i) => (
      <li aria-current={i === current ? "step" : undefined} class={i < current ? "done" : undefined}>
        <span class="import-step-number" aria-hidden="true">{i + 1}</span> {step}
        {i < current ? <span class="visually-hidden"> (done)</span> : null}
      </li>
    ))}
  </ol>
)

/** The file field and its button: the upload page's form, and the preview's "upload a corrected file". */
const UploadForm = (props: { site: Site; member: Member; kind: Kind; error?: string | undefined; again?: boolean }) => (
  <PostForm action={props.site.href(props.kind.path)} csrf={props.member.csrf} enctype="multipart/form-data" class="upload-form">
    <div class={`field${props.error ? " has-error" : ""}`}>
      <label for="f-file">{props.again ? "Corrected CSV file" : "CSV file"}</label>
      <p class="hint" id="f-file-hint">
        A .csv file of at most 10 MiB and 50,000 rows, saved as UTF-8 (“CSV UTF-8” in spreadsheets). Comma, semicolon or tab separated.
      </p>
      <input
        type="file"
        id="f-file"
        name={FILE_FIELD}
        accept=".csv,text/csv"
        required
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={props.error ? "f-file-hint f-file-error" : "f-file-hint"}
      />
      {props.error ? <p class="error-text" id="f-file-error" role="alert">{props.error}</p> : null}
    </div>
    <div class="form-actions">
      <button type="submit" class={props.again ? "secondary" : undefined}>{props.again ? "Upload and check again" : "Upload and check"}</button>
      {props.again ? null : <span class="muted">Nothing is imported until you confirm on the next page.</span>}
    </div>
  </PostForm>
)

export const ImportUploadPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  kind: Kind
  error?: string | undefined
  /** The upload asked for is not kept (any more). */
  gone?: boolean
}) => {
  const { kind, site } = props
  return (
    <Layout site={site} member={props.member} title={kind.title} section={kind.section} flash={props.flash}>
      <PageHeader title={kind.title} lead={kind.lead} back={{ href: site.href(kind.back.href), label: kind.back.label }} />
      <Steps current={0} />
      <div class="import-layout">
        <Card title="Upload a CSV file" id="upload">
          {props.gone && props.error ? <div class="flash error" role="alert">{props.error}</div> : null}
          <UploadForm site={site} member={props.member} kind={kind} error={props.gone ? undefined : props.error} />
        </Card>
        <Card title="Columns the file may have" id="columns">
          <p class="hint">The header row names the columns, in any order. Case, spaces and punctuation do not matter (“First name”, “first_name” and “firstName” are one column).</p>
          <div class="table-wrap">
            <table class="stack">
              <caption class="visually-hidden">Columns of an import file</caption>
              <thead><tr><th scope="col">Column</th><th scope="col">What it holds</th></tr></thead>
              <tbody>
                {kind.columns.map((column) => (
                  <tr>
                    <td class="primary mono">{column.header}</td>
                    <td data-label="Holds">{column.meaning}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {kind.notes.length > 0 ? <ul class="import-notes">{kind.notes.map((note) => <li>{note}</li>)}</ul> : null}
          {kind.template ? <p><a href={site.href(kind.template.href)}>{kind.template.label}</a></p> : null}
        </Card>
      </div>
    </Layout>
  )
}

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
