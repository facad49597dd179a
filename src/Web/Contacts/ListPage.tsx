/** Contacts: the list (search, pages, active or archived), with CSV export and import. */
import type { Person } from "../../Persons/Domain.js"
import { Badge, EmptyState, PageHeader, Pager } from "../Kit/Components.js"
import { plural } from "../Kit/Format.js"
import { type FlashView, Layout, type Member, type Site } from "../Kit/Layout.js"
import { contactPath, nameOf } from "./Contact.js"
import { ContactsTabs } from "./FieldsPage.js"

// --- the list ------------------------------------------------------------------------------------

export const ContactsListPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  canWrite: boolean
  query: string
  /** How the query searched: an exact email, or a substring of the name. */
  searchedBy: "name" | "email" | undefined
  archived: boolean
  persons: ReadonlyArray<Person>
  total: number
  skip: number
  limit: number
}) => {
  const { site } = props
  const href = (skip: number) => {
    const params = new URLSearchParams()
    if (props.query !== "") params.set("q", props.query)
    if (props.archived) params.set("archived", "1")
    if (skip > 0) params.set("skip", String(skip))
    const query = params.toString()
    return site.href(`/app/contacts${query === "" ? "" : `?${query}`}`)
  }
  const exportHref = site.href(`/app/contacts/export${props.archived ? "?archived=true" : ""}`)
  const actions = (
    <>
      {props.canWrite ? <a class="button" href={site.href("/app/contacts/new")}>New contact</a> : null}
      {props.canWrite ? <a class="button secondary" href={site.href("/app/contacts/import")}>Import CSV</a> : null}
      <a class="button secondary" href={exportHref}>{props.archived ? "Export archived as CSV" : "Export CSV"}</a>
    </>
  )
  return (
    <Layout site={site} member={props.member} title={props.archived ? "Archived contacts" : "Contacts"} section="contacts" flash={props.flash}>
      <PageHeader title="Contacts" lead={`Everyone ${props.member.organization.name} invites or knows, with their event history.`} actions={actions} />
      <ContactsTabs site={site} current="contacts" />
      <form method="get" action={site.href("/app/contacts")} class="filters contact-filters" role="search" data-live="#contact-results">
        <div class="field">
          <label for="f-q">Search by name or exact email</label>
          <input id="f-q" name="q" type="search" value={props.query} maxLength={320} autocomplete="off" />
        </div>
        <div class="field check archived-filter">
          <input type="checkbox" id="f-archived" name="archived" value="1" checked={props.archived} />
          <label for="f-archived">Show archived contacts</label>
        </div>
        <button type="submit" class="secondary">Search</button>
      </form>
      <div id="contact-results" aria-live="polite">
        {props.persons.length === 0
          ? <ContactsEmpty {...props} />
          : (
            <>
              <p class="result-count">
                {props.archived ? "Archived: " : ""}
                {plural(props.total, props.archived ? "archived contact" : "contact")}
                {props.query === "" ? "" : props.searchedBy === "email" ? ` with the email “${props.query}”` : ` matching “${props.query}”`}
              </p>
              <div class="table-wrap">
                <table class="stack contacts-table">
                  <caption class="visually-hidden">{props.archived ? "Archived contacts" : "Contacts"}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Email</th>
                      <th scope="col">Phone</th>
                      <th scope="col">Company</th>
                    </tr>
                  </thead>
                  <tbody>
                    {props.persons.map((p) => (
                      <tr>
                        <td class="primary">
                          <a href={site.href(contactPath(p.personId))} class="contact-name">{nameOf(p)}</a>
                          {p.archived ? <> <Badge tone="neutral">Archived</Badge></> : null}
                        </td>
                        <td data-label="Email" class="wrap-anywhere">{p.email}</td>
                        <td data-label="Phone">{p.phone ?? <span class="muted">–</span>}</td>
                        <td data-label="Company">
                          {p.company ?? <span class="muted">–</span>}
                          {p.position !== undefined ? <span class="sub">{p.position}</span> : null}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager total={props.total} limit={props.limit} skip={props.skip} href={href} noun={props.archived ? "archived contacts" : "contacts"} />
            </>
          )}
      </div>
    </Layout>
  )
}

const ContactsEmpty = (props: { site: Site; query: string; archived: boolean; canWrite: boolean }) => {
  const { site } = props
  if (props.query !== "") {
    return (
      <EmptyState title={`No ${props.archived ? "archived " : ""}contacts match “${props.query}”`}>
        <p>Names match in part (“ada” finds Ada Lovelace); an email must be typed whole.</p>
        <p class="actions center">
          <a class="button secondary" href={site.href(props.archived ? "/app/contacts?archived=1" : "/app/contacts")}>Clear the search</a>
          {props.archived
            ? <a class="button secondary" href={site.href(`/app/contacts?${new URLSearchParams({ q: props.query })}`)}>Search active contacts</a>
            : <a class="button secondary" href={site.href(`/app/contacts?${new URLSearchParams({ q: props.query, archived: "1" })}`)}>Search archived contacts</a>}
        </p>
      </EmptyState>
    )
  }
  if (props.archived) {
    return (
      <EmptyState title="No archived contacts">
        <p>Archiving takes a contact out of the list and out of searches; it stays on the guest lists it is on.</p>
        <p class="actions center"><a class="button secondary" href={site.href("/app/contacts")}>See active contacts</a></p>
      </EmptyState>
    )
  }
  return (
    <EmptyState title="No contacts yet">
      {props.canWrite
        ? (
          <>
            <p>Add your first contact by hand, or import a CSV file exported from a spreadsheet, a mailing tool or another event service.</p>
            <p>Guests you add to an event's guest list become contacts too.</p>
            <p class="actions center">
              <a class="button" href={site.href("/app/contacts/new")}>New contact</a>
              <a class="button secondary" href={site.href("/app/contacts/import")}>Import CSV</a>
            </p>
          </>
        )
        : <p>When your team adds contacts or guests, they show up here.</p>}
    </EmptyState>
  )
}
