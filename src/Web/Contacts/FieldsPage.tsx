/**
 * Contacts › Custom fields: the organization's definitions (every role reads them, as
 * `GET /custom-field`), and the form that defines a new one (Admin and above, as `POST /custom-field`).
 * Option colours are drawn as SVG swatches (an attribute, not an inline style, which the page's
 * Content-Security-Policy forbids) beside the colour's text.
 */
import type { ComponentChildren } from "preact"
import type { CustomFieldDefinition, FieldOption } from "../../Persons/Domain.js"
import { count } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { Card, EmptyState, PageHeader } from "../Kit/Components.js"
import { ErrorSummary, Field, Select, TextArea } from "../Kit/Fields.js"

export type ContactsTab = "contacts" | "fields"

export const ContactsTabs = ({ current, site }: { site: Site; current: ContactsTab }) => (
  <nav class="tabs" aria-label="Contacts">
    <a href={site.href("/app/contacts")} aria-current={current === "contacts" ? "page" : undefined}>All contacts</a>
    <a href={site.href("/app/contacts/fields")} aria-current={current === "fields" ? "page" : undefined}>Custom fields</a>
  </nav>
)

/** A colour as a small square (decorative: the colour's text is written beside it). */
export const Swatch = ({ color }: { color: string }) => (
  <svg class="swatch" width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" focusable="false">
    <rect x="0.5" y="0.5" width="13" height="13" rx="3" fill={color} stroke="#5b6473" />
  </svg>
)

/** An option of a multiselect field: its swatch and value (and its colour's text when asked). */
export const OptionChip = ({ option, showColor }: { option: FieldOption; showColor?: boolean }) => (
  <span class="option-chip">
    <Swatch color={option.color} />
    <span>{option.value}</span>
    {showColor ? <span class="mono muted">{option.color}</span> : null}
  </span>
)

export const FIELD_TYPE_LABELS: Readonly<Record<CustomFieldDefinition["fieldType"], string>> = {
  text: "Text",
  number: "Number",
  multiselect: "Multiselect"
}

export interface NewFieldValues {
  readonly fieldName: string
  readonly fieldType: string
  readonly options: string
}

export const blankField: NewFieldValues = { fieldName: "", fieldType: "text", options: "" }

export const CustomFieldsPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  definitions: ReadonlyArray<CustomFieldDefinition>
  canDefine: boolean
  values: NewFieldValues
  errors: ReadonlyArray<{ readonly field: string; readonly message: string }>
}) => {
  const { site } = props
  const errorOf = (field: string) => {
    const found = props.errors.filter((e) => e.field === field).map((e) => e.message)
    return found.length === 0 ? undefined : found.join(" ")
  }
  return (
    <Layout site={site} member={props.member} title="Custom fields" section="contacts" flash={props.flash}>
      <PageHeader
        title="Custom fields"
        lead="Fields of your own that every contact can have, beside name, email and address: set them on a contact's Edit page, by import, or through the API."
      />
      <ContactsTabs site={site} current="fields" />
      <Card title="Fields" id="fields">
        {props.definitions.length === 0
          ? (
            <EmptyState title="No custom fields yet">
              {props.canDefine
                ? <p>Define one below, such as “T-shirt size” (multiselect) or “Member number” (number).</p>
                : <p>An Admin of your organization can define them.</p>}
            </EmptyState>
          )
          : (
            <div class="table-wrap">
              <table class="stack">
                <caption class="visually-hidden">Custom fields of {props.member.organization.name}</caption>
                <thead>
                  <tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Options</th></tr>
                </thead>
                <tbody>
                  {props.definitions.map((d) => (
                    <tr>
                      <td class="primary"><span class="field-name">{d.fieldName}</span></td>
                      <td data-label="Type">{FIELD_TYPE_LABELS[d.fieldType]}</td>
                      <td data-label="Options">
                        {d.options.length === 0
                          ? <span class="muted">–</span>
                          : <ul class="option-list">{d.options.map((o) => <li><OptionChip option={o} showColor /></li>)}</ul>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        <p class="hint fields-count">
          {count(props.definitions.length)} {props.definitions.length === 1 ? "field" : "fields"}. In CSV files a custom field's column is headed
          <span class="mono"> custom:&lt;name&gt;</span>.
        </p>
      </Card>
      {props.canDefine
        ? (
          <Card title="New custom field" id="new-field">
            <ErrorSummary errors={props.errors} />
            <PostForm action={site.href("/app/contacts/fields")} csrf={props.member.csrf} class="field-form" novalidate>
              <div class="grid-2">
                <Field name="fieldName" label="Name" required maxLength={100} value={props.values.fieldName} error={errorOf("fieldName")} hint="Unique in your organization." />
                <Select
                  name="fieldType"
                  label="Type"
                  hint="Cannot be changed later."
                  value={props.values.fieldType}
                  error={errorOf("fieldType")}
                  options={[
                    { value: "text", label: "Text" },
                    { value: "number", label: "Number (kept digit for digit)" },
                    { value: "multiselect", label: "Multiselect (choose among options)" }
                  ]}
                />
              </div>
              <TextArea
                name="options"
                label="Options (multiselect only)"
                hint="One per line: the option, then its colour as #rrggbb if you like (“VIP #d97706”). Without a colour, one is picked for you."
                rows={5}
                value={props.values.options}
                error={errorOf("options")}
              />
              <div class="form-actions">
                <button type="submit">Create field</button>
              </div>
            </PostForm>
          </Card>
        )
        : <p class="read-only-note">Only Admins can define custom fields.</p>}
    </Layout>
  )
}

/** Labelled group wrapper used by the contact form. */
export const Group = (props: { legend: string; hint?: string; id?: string; children: ComponentChildren }) => (
  <fieldset class="contact-fieldset" id={props.id}>
    <legend>{props.legend}</legend>
    {props.hint ? <p class="hint">{props.hint}</p> : null}
    {props.children}
  </fieldset>
)
