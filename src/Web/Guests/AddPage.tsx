/** Adding guests to an event: contacts found by name or email, ticked and added; or a new contact. */
import { type EventSummary, eventPath } from "../Events/Summary.js"
import { Badge, Card, EmptyState, PageHeader } from "../Kit/Components.js"
import { ErrorSummary, Field } from "../Kit/Fields.js"
import { count } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"

/** A contact found on the add page, and whether they are on the list already. */
export interface ContactChoice {
  readonly personId: string
  readonly name: string
  readonly email: string
  readonly onList: boolean
}

export interface NewGuestForm {
  readonly email: string
  readonly firstName: string
  readonly lastName: string
}

export type NewGuestErrors = Partial<Record<keyof NewGuestForm, string>>

export const AddGuestsPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  event: EventSummary
  contact: string
  /** Contacts matching `contact`; undefined before a search. */
  contacts: { readonly found: ReadonlyArray<ContactChoice>; readonly total: number } | undefined
  newGuest?: NewGuestForm
  errors?: NewGuestErrors
}) => {
  const { event, site } = props
  const addPath = eventPath(event, "/guests/add")
  const errors = props.errors ?? {}
  const errorList = (Object.entries(errors) as Array<[keyof NewGuestForm, string]>).map(([field, message]) => ({ field, message }))
  return (
    <Layout site={site} member={props.member} title={`Add guests · ${event.name}`} section="events" flash={props.flash}>
      <PageHeader
        title="Add guests"
        lead={<>{event.name} · {event.when}</>}
        back={{ href: site.href(eventPath(event, "/guests")), label: "Guest list" }}
      />
      <div class="grid add-guests">
        <Card title="From your contacts" id="from-contacts">
          <form method="get" action={site.href(addPath)} role="search" data-live="#contact-results" class="filters">
            <Field
              name="contact"
              type="search"
              label="Search contacts"
              hint="A name, or a whole email address."
              value={props.contact}
              maxLength={200}
              id="contact-q"
            />
            <button type="submit" class="secondary">Search</button>
          </form>
          <div id="contact-results">
            {props.contacts === undefined
              ? <p class="muted">Search by name or email, tick the contacts to invite, then add them.</p>
              : props.contacts.found.length === 0
              ? (
                <EmptyState title="No contacts match">
                  <p>Nobody in your contacts matches “{props.contact}”. Add them as a new contact instead.</p>
                </EmptyState>
              )
              : (
                <PostForm action={site.href(addPath)} csrf={props.member.csrf}>
                  <input type="hidden" name="kind" value="contacts" />
                  <input type="hidden" name="contact" value={props.contact} />
                  <fieldset class="contact-choices">
                    <legend>Contacts matching “{props.contact}”</legend>
                    <ul class="list">
                      {props.contacts.found.map((c, i) => (
                        <li>
                          <span class="contact-choice">
                            <input type="checkbox" name="personId" value={c.personId} id={`contact-${i}`} disabled={c.onList} />
                            <label for={`contact-${i}`}>
                              <span class="title">{c.name}</span>
                              <span class="sub muted">{c.email}</span>
                            </label>
                          </span>
                          {c.onList ? <Badge tone="neutral">Already on the list</Badge> : null}
                        </li>
                      ))}
                    </ul>
                  </fieldset>
                  {props.contacts.total > props.contacts.found.length
                    ? <p class="muted">Showing {count(props.contacts.found.length)} of {count(props.contacts.total)} matches: type more to narrow them down.</p>
                    : null}
                  <div class="form-actions">
                    <button type="submit">Add selected contacts</button>
                  </div>
                </PostForm>
              )}
          </div>
        </Card>
        <Card title="A new contact" id="new-contact">
          <ErrorSummary errors={errorList} />
          <PostForm action={site.href(addPath)} csrf={props.member.csrf}>
            <input type="hidden" name="kind" value="new" />
            <input type="hidden" name="contact" value={props.contact} />
            <Field
              name="email"
              type="email"
              label="Email"
              required
              autocomplete="off"
              maxLength={320}
              hint="If a contact has this email already, that contact is added."
              value={props.newGuest?.email}
              error={errors.email}
            />
            <div class="grid-2">
              <Field name="firstName" label="First name" required maxLength={200} autocomplete="off" value={props.newGuest?.firstName} error={errors.firstName} />
              <Field name="lastName" label="Last name" required maxLength={200} autocomplete="off" value={props.newGuest?.lastName} error={errors.lastName} />
            </div>
            <div class="form-actions">
              <button type="submit">Add guest</button>
            </div>
          </PostForm>
        </Card>
      </div>
    </Layout>
  )
}
