/**
 * The organization's daily email quota (Email/EmailQuota.ts) as the dashboard says it: how many
 * emails are left on the invitation screens, and, wherever it matters (the event page, the
 * invitation screens), that the limit is reached and what that stops until when.
 */
import type { QuotaState } from "../../Email/EmailQuota.js"
import { count, plural, recordTime } from "../Kit/Format.js"

const timeOf = (millis: number) => new Date(millis).toISOString()

/** When the next email may go, in UTC (the page's script shows it in the reader's zone). */
const FreeAt = ({ at }: { at: number }) => <time datetime={timeOf(at)} data-local="">{recordTime(timeOf(at))}</time>

/** "812 of 1,000 emails left today", or that none are. */
export const QuotaLine = ({ quota }: { quota: QuotaState }) =>
  quota.left === 0 ? <QuotaReached quota={quota} /> : (
    <p class="quota" id="email-quota">
      <strong>{count(quota.left)} of {plural(quota.limit, "email")} left today.</strong>{" "}
      <span class="muted">Your organization may send {plural(quota.limit, "email")} in any 24 hours; each email counts for 24 hours from when it is queued.</span>
    </p>
  )

/** The limit is reached: invitations are refused and the service's own emails are not sent. */
export const QuotaReached = ({ quota }: { quota: QuotaState }) =>
  quota.left > 0 ? null : (
    <div class="flash error quota-reached" id="email-quota" role="status">
      <p>
        <strong>Daily email limit reached:</strong> your organization has sent {plural(quota.used, "email")} in the last 24 hours, its limit
        is {count(quota.limit)}.
      </p>
      <p>
        Until {quota.nextFreeAt === null ? "emails leave the 24-hour window" : <FreeAt at={quota.nextFreeAt} />}, no invitation can be sent,
        and confirmation, reminder and status emails to guests are not sent.
      </p>
    </div>
  )

/** On the preview: the emails this sending needs, when more than are left. */
export const QuotaShort = ({ quota, needed }: { quota: QuotaState; needed: number }) =>
  needed <= quota.left ? null : (
    <div class="flash error" id="email-quota" role="alert">
      <p>
        <strong>Not enough emails left today:</strong> this needs {plural(needed, "email")}, and {count(quota.left)} of{" "}
        {count(quota.limit)} are left. {quota.left === 0 ? "Send it later." : "Send to fewer guests, or later."}
      </p>
    </div>
  )
