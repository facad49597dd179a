/** An invitation as the API shows it (docs/integrators.md#email-invitations): its state from its delivery's. */
import type { Invitation } from "./Domain.js"
import type { InvitationRow } from "./InvitationsRepo.js"

/** An invitation's state: `sent`, `queued` or `failed`, from its delivery's. */
export const statusOf = (delivery: string): Invitation["status"] =>
  delivery === "delivered" ? "sent" : delivery === "pending" ? "queued" : "failed"

/** An invitation row as the API shows it. */
export const invitationView = (row: InvitationRow): Invitation => ({
  invitationId: row.public_id,
  personId: row.person_public_id,
  name: `${row.first_name} ${row.last_name}`.trim(),
  email: row.recipient,
  subject: row.subject,
  status: statusOf(row.status),
  attempts: row.attempts,
  lastError: row.last_error,
  sentAt: row.delivered_at,
  createdAt: row.created_at,
  nextAttemptAt: row.status === "pending" && row.next_attempt_at !== null ? new Date(row.next_attempt_at).toISOString() : null
})
