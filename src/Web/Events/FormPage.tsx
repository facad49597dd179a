/** The event form, for a new event and for editing one: every field of `POST` / `PATCH /event`. */
import { type EventFormValues, type FieldError, MAX_ROWS } from "./FormValues.js"
import { Group, Row, withBlanks } from "./FormParts.js"
import { RegistrationFields } from "./RegistrationFields.js"
import { FIELD_LABELS } from "./FormErrors.js"
import { type FlashView, Layout, type Member, PostForm, type Site } from "../Kit/Layout.js"
import { PageHeader } from "../Kit/Components.js"
import { Checkbox, ErrorSummary, Field, Select, TextArea } from "../Kit/Fields.js"

export interface HostOption {
  readonly userId: string
  readonly name: string
  readonly role: string
}

export const EventFormPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  mode: { readonly kind: "create" } | { readonly kind: "edit"; readonly eventId: string; readonly name: string; readonly original: string }
  values: EventFormValues
  errors: ReadonlyArray<FieldError>
  timeZones: ReadonlyArray<string>
  /** members who may host; on a new event the creator hosts anyway and is not listed */
  hosts: ReadonlyArray<HostOption>
  /** the start of every RSVP link (`https://…/rsvp/`) */
  rsvpBase: string
  /** the start of every public event page (`https://…/e/`) */
  pageBase: string
}) => {
  const { errors, site, values } = props
  const errorOf = (field: string) => {
    const found = errors.filter((e) => e.field === field).map((e) => e.message)
    return found.length === 0 ? undefined : found.join(" ")
  }
  const editing = props.mode.kind === "edit"
  // a new event's form, as first shown: a script may start it in the browser's time zone
  const fresh = props.mode.kind === "create" && errors.length === 0
  const eventPath = props.mode.kind === "edit" ? `/app/events/${encodeURIComponent(props.mode.eventId)}` : "/app/events"
  const title = props.mode.kind === "edit" ? `Edit “${props.mode.name}”` : "New event"
  const text = (name: keyof EventFormValues & string, extra: Partial<Parameters<typeof Field>[0]> = {}) => (
    <Field name={name} label={FIELD_LABELS[name] ?? name} value={values[name] as string} error={errorOf(name)} {...extra} />
  )
  return (
    <Layout site={site} member={props.member} title={title} section="events" flash={props.flash} scripts={fresh ? ["event-form.js"] : []}>
      <PageHeader
        back={editing ? { href: site.href(eventPath), label: "Back to the event" } : { href: site.href("/app/events"), label: "All events" }}
        title={title}
        lead={editing ? "Only the fields you change are saved; webhooks hear which ones changed." : "Only a name and a date are needed; the rest can wait."}
      />
      <div class="event-form-wrap">
        <ErrorSummary errors={errors} />
        <PostForm action={site.href(editing ? `${eventPath}/edit` : "/app/events")} csrf={props.member.csrf} class="event-form" novalidate data-browser-zone={fresh ? "" : undefined}>
          {props.mode.kind === "edit" ? <input type="hidden" name="_original" value={props.mode.original} /> : null}

          <Group legend="Basics">
            {text("name", { required: true, maxLength: 300, autocomplete: "off" })}
            <TextArea
              name="eventTags"
              label="Tags"
              hint="One per line, to sort and find events."
              rows={3}
              value={values.eventTags}
              error={errorOf("eventTags")}
            />
            <Checkbox
              name="isPublic"
              label="Public event"
              checked={values.isPublic}
              hint="Gives the event a public page at its page address, where anyone can see it and register, listed on your organization's page of events. Invited guests keep their personal links."
            />
          </Group>

          <Group legend="When">
            <div class="grid-2">
              {text("primaryDate", { type: "datetime-local", required: true, hint: "As the clock shows it where the event is." })}
              {text("endDate", { type: "datetime-local", hint: "Optional, in the same zone." })}
              <Select
                name="timezone"
                label="Time zone"
                hint="The event's times are shown in this zone."
                options={props.timeZones.map((zone) => ({ value: zone, label: zone.replaceAll("_", " ") }))}
                value={values.timezone}
                error={errorOf("timezone")}
              />
            </div>
          </Group>

          <Group legend="Where" hint="Leave empty for an online-only event.">
            {text("locationName", { hint: "Such as “Town Hall, Room 2”." })}
            <div class="grid-2">
              {text("locationAddress", { autocomplete: "off" })}
              {text("locationApartment")}
              {text("locationCity")}
              {text("locationState")}
              {text("locationPostalCode", { maxLength: 50 })}
              {text("locationCountry")}
              {text("locationPhoneNumber", { type: "tel", maxLength: 50 })}
              {text("locationWebsite", { type: "url", placeholder: "https://" })}
            </div>
          </Group>

          <Group legend="Online" hint="Where guests join online. Empty rows are skipped; save to get more rows.">
            {withBlanks(values.virtualLocations, { url: "", password: "", phoneNumber: "", sourceType: "" }, MAX_ROWS.virtualLocations).map((row, i) => (
              <Row legend={`Online location ${i + 1}`} layout="four">
                <Field name={`virtualLocations.${i}.url`} label="Link" type="url" placeholder="https://" value={row.url} error={errorOf(`virtualLocations.${i}.url`)} />
                <Field name={`virtualLocations.${i}.sourceType`} label="Platform" placeholder="zoom, meet, teams…" value={row.sourceType} error={errorOf(`virtualLocations.${i}.sourceType`)} />
                <Field name={`virtualLocations.${i}.password`} label="Password" value={row.password} error={errorOf(`virtualLocations.${i}.password`)} />
                <Field name={`virtualLocations.${i}.phoneNumber`} label="Dial-in number" type="tel" value={row.phoneNumber} error={errorOf(`virtualLocations.${i}.phoneNumber`)} />
              </Row>
            ))}
          </Group>

          <Group legend="RSVP page" hint="What guests see when they open their personal RSVP link.">
            <Field
              name="primarySlug"
              label="Page address"
              hint={`A public event's page is ${props.pageBase}<address>; guests' personal links start with ${props.rsvpBase}<address>. Lowercase letters, digits and hyphens; leave empty to make one from the name.${
                editing ? " Changing it breaks the links guests already have." : ""
              }`}
              value={values.primarySlug}
              maxLength={100}
              autocomplete="off"
              error={errorOf("primarySlug")}
            />
            <Checkbox name="noPublicPage" label="No RSVP page" checked={values.noPublicPage} hint="Guests get no RSVP links; the address above is not used." />
            <TextArea
              name="rsvpDescription"
              label="Description"
              hint="Shown on the RSVP page; line breaks are kept."
              rows={6}
              value={values.rsvpDescription}
              error={errorOf("rsvpDescription")}
            />
            <h3 class="group-title">Questions for guests</h3>
            <p class="hint">Guests answer these when they reply. Empty rows are skipped; save to get more rows.</p>
            {withBlanks(values.rsvpQuestions, { title: "", description: "" }, MAX_ROWS.rsvpQuestions).map((row, i) => (
              <Row legend={`Question ${i + 1}`} layout="two">
                <Field name={`rsvpQuestions.${i}.title`} label="Question" maxLength={300} value={row.title} error={errorOf(`rsvpQuestions.${i}.title`)} />
                <Field name={`rsvpQuestions.${i}.description`} label="Help text" maxLength={2000} value={row.description} error={errorOf(`rsvpQuestions.${i}.description`)} />
              </Row>
            ))}
          </Group>

          <Group legend="Link preview and images" hint="How links to the event look when shared.">
            <TextArea
              name="linkPreviewDescription"
              label="Link preview description"
              hint="Short text for shared links; when empty, the description above is used."
              rows={2}
              maxLength={2000}
              value={values.linkPreviewDescription}
              error={errorOf("linkPreviewDescription")}
            />
            {text("featuredImage", { type: "url", placeholder: "https://", hint: "The address of an image, such as https://example.org/poster.jpg." })}
            <h3 class="group-title">More images</h3>
            {withBlanks(values.images, { type: "", url: "" }, MAX_ROWS.images).map((row, i) => (
              <Row legend={`Image ${i + 1}`} layout="image">
                <Field name={`images.${i}.type`} label="Type" placeholder="headerImg, logo…" maxLength={50} value={row.type} error={errorOf(`images.${i}.type`)} />
                <Field name={`images.${i}.url`} label="URL" type="url" placeholder="https://" value={row.url} error={errorOf(`images.${i}.url`)} />
              </Row>
            ))}
          </Group>

          <Group legend="Capacity & tickets">
            <Checkbox name="capacityEnabled" label="Limit the number of guests" checked={values.capacityEnabled} />
            <div class="grid-2">
              {text("capacity", { type: "number", min: 0, step: "1", inputMode: "numeric", hint: "Guests in all, when the limit is on." })}
            </div>
            <Checkbox
              name="ticketingEnabled"
              label="Ticketing"
              checked={values.ticketingEnabled}
              hint="Guests' purchases (tickets, donations) can be recorded, and payment status shows on the guest list."
            />
          </Group>

          <RegistrationFields values={values} errorOf={errorOf} />

          <Group legend="Guest list columns">
            <TextArea
              name="customColumns"
              label="Columns"
              hint="Your own columns on the guest list, such as Table or Badge: one per line."
              rows={3}
              value={values.customColumns}
              error={errorOf("customColumns")}
            />
          </Group>

          <Group
            legend="Hosts"
            id="f-hostUserIds"
            hint={editing ? "Members who host the event: the API lists it among their events." : "You host the events you create. Add other members:"}
          >
            {errorOf("hostUserIds") ? <p class="error-text">{errorOf("hostUserIds")}</p> : null}
            {props.hosts.length === 0 ? <p class="muted">No other members.</p> : (
              <div class="checks hosts">
                {props.hosts.map((host, i) => (
                  <Checkbox
                    name="hostUserIds"
                    id={`f-hostUserIds-${i}`}
                    value={host.userId}
                    label={`${host.name} (${host.role})`}
                    checked={values.hostUserIds.includes(host.userId)}
                  />
                ))}
              </div>
            )}
          </Group>

          <div class="form-actions sticky-actions">
            <button type="submit">{editing ? "Save changes" : "Create event"}</button>
            <a class="button secondary" href={site.href(eventPath)}>Cancel</a>
          </div>
        </PostForm>
      </div>
    </Layout>
  )
}
