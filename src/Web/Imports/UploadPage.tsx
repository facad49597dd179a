/**
 * The CSV import flow's upload page (Flow.ts), for any kind of import: the file field and the
 * columns a file may have; and the steps and the file's form, which the preview shows too.
 */
import { Card, PageHeader } from "../Kit/Components.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { FILE_FIELD, type ImportKind } from "./ImportKind.js"

type Kind = ImportKind<any, any>

const STEPS = ["Upload a file", "Check it", "Import"] as const

export const Steps = ({ current }: { current: 0 | 1 | 2 }) => (
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
export const UploadForm = (props: { site: Site; member: Member; kind: Kind; error?: string | undefined; again?: boolean }) => (
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
