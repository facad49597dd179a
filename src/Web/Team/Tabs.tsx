/** Team settings: the tabs every settings page shares, and the page they frame. */
import type { ComponentChildren } from "preact"
import { PageHeader } from "../Kit/Components.js"
import { type FlashView, Layout, type Member, type Site } from "../Kit/Layout.js"

export type TeamTab = "members" | "api-keys" | "webhooks"

export const TeamTabs = ({ current, member, site }: { site: Site; member: Member; current: TeamTab }) => (
  <nav class="tabs" aria-label="Team settings">
    <a href={site.href("/app/team/members")} aria-current={current === "members" ? "page" : undefined}>Members</a>
    <a href={site.href("/app/team/api-keys")} aria-current={current === "api-keys" ? "page" : undefined}>Linked Services › API Keys</a>
    {member.role === "Super Admin" || member.role === "Admin"
      ? <a href={site.href("/app/team/webhooks")} aria-current={current === "webhooks" ? "page" : undefined}>Webhooks</a>
      : null}
  </nav>
)

export const TeamPage = (props: {
  site: Site
  member: Member
  flash: FlashView | null
  tab: TeamTab
  title: string
  lead?: ComponentChildren
  children: ComponentChildren
}) => (
  <Layout site={props.site} member={props.member} title={props.title} section="team" flash={props.flash}>
    <PageHeader title={props.title} lead={props.lead} />
    <TeamTabs site={props.site} member={props.member} current={props.tab} />
    {props.children}
  </Layout>
)
