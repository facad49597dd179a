/**
 * The page an invitation link opens (docs/integrators.md#members-and-invitations): the signed-in user it was issued to joins
 * with one button. Any other case (another account, unknown, expired, withdrawn or used) is one
 * and the same "does not work" page, which tells nothing about the invitation.
 */
import type { InvitationOffer } from "../../Organizations/Invitations.js"
import { recordTime } from "../Kit/Format.js"
import { PostForm } from "../Kit/Layout.js"
import { SignOutForm, type UserFrame, UserLayout } from "./UserFrame.js"
import { roleSummary } from "../Team/MembersPage.js"

export const InvitationPage = (props: { frame: UserFrame; offer: InvitationOffer; action: string }) => {
  const { frame, offer } = props
  const title = `Join ${offer.organizationName} as ${offer.role}`
  return (
    <UserLayout frame={frame} title={title}>
      <div class="card message invitation">
        <p class="eyebrow">Invitation</p>
        <h1>{title}</h1>
        <p>
          You were invited to <strong>{offer.organizationName}</strong> on Convene, with your account <strong>{offer.email}</strong>.
        </p>
        <dl class="details">
          <dt>Role</dt>
          <dd>
            <strong>{offer.role}</strong>: {roleSummary[offer.role]}
          </dd>
          <dt>Expires</dt>
          <dd>
            <time datetime={offer.expiresAt} data-local="">{recordTime(offer.expiresAt)}</time>
          </dd>
        </dl>
        <p class="muted">You keep your password and your other organizations. Accepting adds {offer.organizationName} beside them.</p>
        <PostForm action={props.action} csrf={frame.csrf}>
          <div class="form-actions">
            <button type="submit" class="big">Accept and join {offer.organizationName}</button>
            <a class="button secondary" href={frame.site.href(frame.member ? "/app/events" : "/app/account")}>Not now</a>
          </div>
        </PostForm>
      </div>
    </UserLayout>
  )
}

/** Unknown, expired, withdrawn, used, or issued to another account: the same page every time. */
export const InvitationMissingPage = ({ frame, link }: { frame: UserFrame; link: string }) => (
  <UserLayout frame={frame} title="This invitation link does not work">
    <div class="card message invitation">
      <h1>This invitation link does not work</h1>
      <p>
        It may have expired, been withdrawn or used already, or it was made for another Convene account than the one you are signed
        in with (<strong>{frame.email}</strong>).
      </p>
      <p>
        If the invitation was sent to another email address of yours, sign out and sign in with that account: you come back to this
        link. Otherwise, ask whoever invited you for a new link.
      </p>
      <div class="form-actions">
        <SignOutForm frame={frame} label="Sign out and use another account" next={link} />
        <a class="button secondary" href={frame.site.href(frame.member ? "/app/events" : "/app/account")}>Back to Convene</a>
      </div>
    </div>
  </UserLayout>
)
