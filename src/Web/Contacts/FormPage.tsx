/**
 * The contact form: a new contact (every field of `POST /person`) and editing one (every field of
 * `PUT /person/:id`, SMS consent and every custom field included).
 */
import type { CustomFieldDefinition } from "../../Persons/Domain.js"
import { type ContactFormValues, customName, FIELD_LABELS, type FieldError, type ProfileField, SMS_CONSENT_LABELS } from "./FormValues.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { PageHeader } from "../Kit/Components.js"
import { ErrorSummary, Field, type FieldProps, Select, TextArea } from "../Kit/Fields.js"
import { Group, Swatch } from "./FieldsPage.js"

export type ContactFormMode =
  | { readonly kind: "create" }
  | {
    readonly kind: "edit"
    readonly personId: string
    readonly name: string
    readonly archived: boolean
    /** The hidden copy of the values the form started from. */
    readonly original: string
  }

export const ContactFormPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  mode: ContactFormMode
  values: ContactFormValues
  errors: ReadonlyArray<FieldError>
  definitions: ReadonlyArray<CustomFieldDefinition>
  /** The active contact holding the email typed, when that refused the form. */
  emailTakenBy?: { readonly personId: string; readonly name: string } | undefined
}) => {
  const { errors, mode, site, values } = props
  const errorOf = (field: string) => {
    const found = errors.filter((e) => e.field === field).map((e) => e.message)
    return found.length === 0 ? undefined : found.join(" ")
  }
  const editing = mode.kind === "edit"
  const contactPath = mode.kind === "edit" ? `/app/contacts/${encodeURIComponent(mode.personId)}` : "/app/contacts"
  const title = mode.kind === "edit" ? `Edit ${mode.name}` : "New contact"
  const text = (name: ProfileField, extra: Partial<FieldProps> = {}) => (
    <Field name={name} label={FIELD_LABELS[name]} value={values[name]} error={errorOf(name)} {...extra} />
  )
  return (
    <Layout site={site} member={props.member} title={title} section="contacts" flash={props.flash}>
      <PageHeader
        back={editing ? { href: site.href(contactPath), label: "Back to the contact" } : { href: site.href("/app/contacts"), label: "All contacts" }}
        title={title}
        lead={editing
          ? "Only the fields you change are saved."
          : "First name, last name and email are needed; the rest can wait. Each active contact has an email of their own."}
      />
      <div class="contact-form-wrap">
        <ErrorSummary errors={errors} />
        {props.emailTakenBy
          ? (
            <p class="flash info">
              The email belongs to <a href={site.href(`/app/contacts/${encodeURIComponent(props.emailTakenBy.personId)}`)}>{props.emailTakenBy.name}</a>.
            </p>
          )
          : null}
        <PostForm action={site.href(editing ? `${contactPath}/edit` : "/app/contacts/new")} csrf={props.member.csrf} class="contact-form" novalidate>
          {mode.kind === "edit" ? <input type="hidden" name="_original" value={mode.original} /> : null}

          <Group legend="Name and email">
            <div class="grid-2">
              {text("firstName", { required: true, maxLength: 200, autocomplete: "off" })}
              {text("lastName", { required: true, maxLength: 200, autocomplete: "off" })}
            </div>
            {text("email", { type: "email", required: true, maxLength: 320, autocomplete: "off", inputMode: "email" })}
          </Group>

          <Group legend="Phone">
            <div class="grid-2">
              {text("phone", {
                type: "tel",
                maxLength: 50,
                autocomplete: "off",
                hint: editing ? "The preferred number. It can be replaced, not removed." : "The preferred number, as you would dial it."
              })}
              {editing
                ? (
                  <Select
                    name="smsConsent"
                    label={FIELD_LABELS.smsConsent}
                    hint="Whether this number may get text messages."
                    value={values.smsConsent}
                    error={errorOf("smsConsent")}
                    options={(["none", "optedIn", "optedOut"] as const).map((value) => ({ value, label: SMS_CONSENT_LABELS[value] }))}
                  />
                )
                : null}
            </div>
          </Group>

          <Group legend="Work">
            <div class="grid-2">
              {text("company", { maxLength: 500 })}
              {text("position", { maxLength: 500 })}
            </div>
          </Group>

          <Group legend="Address">
            {text("address", { maxLength: 500, autocomplete: "off" })}
            <div class="grid-2">
              {text("apartment", { maxLength: 500 })}
              {text("city", { maxLength: 500 })}
              {text("state", { maxLength: 500 })}
              {text("postalCode", { maxLength: 50 })}
              {text("country", { maxLength: 500 })}
            </div>
          </Group>

          <Group legend="More">
            <div class="grid-2">
              {text("birthday", { type: "date", hint: editing ? "It can be changed, not removed." : "Year, month and day." })}
              {text("profilePicture", { type: "url", placeholder: "https://", maxLength: 2048, hint: "The address of a picture on the web." })}
            </div>
            <TextArea
              name="contextNote"
              label={FIELD_LABELS.contextNote}
              hint="For your team: how you know them, what they care about."
              rows={4}
              maxLength={5000}
              value={values.contextNote}
              error={errorOf("contextNote")}
            />
          </Group>

          {editing && props.definitions.length > 0
            ? (
              <Group legend="Custom fields" hint="Empty a field to clear it." id="custom">
                {props.definitions.map((d) => {
                  const name = customName(d.fieldId)
                  const value = values.custom[d.fieldId]
                  if (d.fieldType === "multiselect") {
                    const ticked = Array.isArray(value) ? value as ReadonlyArray<string> : []
                    const error = errorOf(name)
                    return (
                      <fieldset class={`row-group checks-group${error ? " has-error" : ""}`} id={`f-${name}`} aria-describedby={error ? `f-${name}-error` : undefined}>
                        <legend>{d.fieldName}</legend>
                        <div class="checks">
                          {d.options.map((o) => (
                            <label for={`f-${name}-${o.id}`}>
                              <input type="checkbox" id={`f-${name}-${o.id}`} name={name} value={o.id} checked={ticked.includes(o.id)} />
                              <Swatch color={o.color} />
                              <span>{o.value}</span>
                            </label>
                          ))}
                        </div>
                        {error ? <p class="error-text" id={`f-${name}-error`}>{error}</p> : null}
                      </fieldset>
                    )
                  }
                  return (
                    <Field
                      name={name}
                      label={d.fieldName}
                      value={typeof value === "string" ? value : ""}
                      error={errorOf(name)}
                      {...(d.fieldType === "number"
                        ? { inputMode: "decimal" as const, hint: "A number, such as 42 or -3.5: every digit is kept as typed." }
                        : {})}
                    />
                  )
                })}
              </Group>
            )
            : null}

          <div class="form-actions">
            <button type="submit">{editing ? "Save changes" : "Create contact"}</button>
            <a class="button secondary" href={site.href(contactPath)}>Cancel</a>
          </div>
          {!editing && props.definitions.length > 0
            ? <p class="hint">Custom fields can be set on the contact's Edit page once it exists.</p>
            : null}
        </PostForm>
      </div>
    </Layout>
  )
}
