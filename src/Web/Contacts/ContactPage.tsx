/** One contact's page: every field, its custom fields, the events it is on (ContactEvents.tsx), archiving. */
import type { CustomFieldDefinition, PersonDetail } from "../../Persons/Domain.js"
import { Badge, Card, PageHeader } from "../Kit/Components.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { contactPath, nameOf } from "./Contact.js"
import { ContactEvents, type ContactEventView } from "./ContactEvents.js"
import { FIELD_TYPE_LABELS, OptionChip } from "./FieldsPage.js"
import { SMS_CONSENT_LABELS } from "./FormValues.js"

const Detail = ({ label, value }: { label: string; value: string | null | undefined }) => (
  <>
    <dt>{label}</dt>
    <dd>{value === undefined || value === null || value === "" ? <span class="muted">Not set</span> : value}</dd>
  </>
)

export const ContactPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  person: PersonDetail
  smsConsent: { readonly consent: keyof typeof SMS_CONSENT_LABELS; readonly source: string } | null
  definitions: ReadonlyArray<CustomFieldDefinition>
  events: ReadonlyArray<ContactEventView>
  canWrite: boolean
  seesPayments: boolean
  canDefineFields: boolean
}) => {
  const { person, site } = props
  const name = nameOf(person)
  const path = contactPath(person.personId)
  const values = new Map(person.customFieldsDetailed.map((f) => [f.fieldId, f.value]))
  return (
    <Layout site={site} member={props.member} title={name} section="contacts" flash={props.flash}>
      <PageHeader
        back={{ href: site.href(person.archived ? "/app/contacts?archived=1" : "/app/contacts"), label: person.archived ? "Archived contacts" : "All contacts" }}
        title={name}
        lead={<>{person.email}{person.archived ? <> · <Badge tone="neutral">Archived</Badge></> : null}</>}
        actions={props.canWrite ? <a class="button" href={site.href(`${path}/edit`)} aria-label={`Edit ${name}`}>Edit</a> : null}
      />
      {person.archived
        ? (
          <div class="flash info archived-note">
            <p><strong>This contact is archived.</strong> It is left out of the contact list and searches, and stays on the guest lists it is on.</p>
            {props.canWrite
              ? (
                <PostForm action={site.href(`${path}/unarchive`)} csrf={props.member.csrf}>
                  <button type="submit" class="secondary">Unarchive {name}</button>
                </PostForm>
              )
              : null}
          </div>
        )
        : null}
      <div class="contact-columns">
        <Card title="Details" id="details">
          {person.profilePicture !== undefined
            ? <img class="avatar" src={person.profilePicture} alt={`Profile picture of ${name}`} width={72} height={72} referrerpolicy="no-referrer" />
            : null}
          <dl class="details">
            <Detail label="First name" value={person.firstName} />
            <Detail label="Last name" value={person.lastName} />
            <Detail label="Email" value={person.email} />
            <dt>Phone</dt>
            <dd>
              {person.phone === null ? <span class="muted">Not set</span> : person.phone}
              {person.phone !== null && props.smsConsent !== null
                ? <span class="sub">SMS: {SMS_CONSENT_LABELS[props.smsConsent.consent]}</span>
                : null}
            </dd>
            <Detail label="Company" value={person.company} />
            <Detail label="Position" value={person.position} />
            <Detail label="Birthday" value={person.birthday} />
            <Detail label="Address" value={person.address} />
            <Detail label="Apartment, suite or floor" value={person.apartment} />
            <Detail label="City" value={person.city} />
            <Detail label="State or province" value={person.state} />
            <Detail label="Postal code" value={person.postalCode} />
            <Detail label="Country" value={person.country} />
            <dt>Profile picture</dt>
            <dd>
              {person.profilePicture === undefined
                ? <span class="muted">Not set</span>
                : <a href={person.profilePicture} rel="noopener noreferrer nofollow" class="wrap-anywhere">{person.profilePicture}</a>}
            </dd>
            <dt>Note</dt>
            <dd class="prose">{person.contextNote === undefined ? <span class="muted">Not set</span> : person.contextNote}</dd>
            <dt>Contact ID</dt>
            <dd class="mono">{person.personId}</dd>
          </dl>
        </Card>
        <Card title="Custom fields" id="custom-fields">
          {props.definitions.length === 0
            ? (
              <p class="muted">
                Your organization has no custom fields yet.{" "}
                {props.canDefineFields ? <a href={site.href("/app/contacts/fields")}>Define one</a> : null}
              </p>
            )
            : (
              <dl class="details">
                {props.definitions.map((d) => {
                  const value = values.get(d.fieldId)
                  return (
                    <>
                      <dt>{d.fieldName} <span class="visually-hidden">({FIELD_TYPE_LABELS[d.fieldType]})</span></dt>
                      <dd>
                        {value === undefined || (Array.isArray(value) && value.length === 0)
                          ? <span class="muted">Not set</span>
                          : d.fieldType === "multiselect"
                          ? (
                            <ul class="option-list">
                              {d.options.filter((o) => (value as ReadonlyArray<string>).includes(o.value)).map((o) => <li><OptionChip option={o} /></li>)}
                            </ul>
                          )
                          : <span class={d.fieldType === "number" ? "mono" : "prose"}>{value as string}</span>}
                      </dd>
                    </>
                  )
                })}
              </dl>
            )}
          {props.canWrite && props.definitions.length > 0 ? <p><a href={site.href(`${path}/edit#custom`)}>Edit custom fields</a></p> : null}
        </Card>
      </div>

      <ContactEvents site={site} personId={person.personId} name={name} events={props.events} seesPayments={props.seesPayments} />

      {props.canWrite && !person.archived
        ? (
          <Card title="Archive" id="archive">
            <p>Archiving takes {name} out of the contact list and searches; they stay on the guest lists they are on, and you can unarchive them later.</p>
            <PostForm action={site.href(`${path}/archive`)} csrf={props.member.csrf} confirm={`Archive ${name}? They leave the contact list; their guest lists keep them.`}>
              <button type="submit" class="danger">Archive {name}</button>
            </PostForm>
          </Card>
        )
        : null}
    </Layout>
  )
}
