/**
 * What other features read of payments: the purchases, items and refunds of given guests on an
 * event (the guest lists show them: GuestPayments.ts turns them into each guest's fields).
 * Payments are written only by this feature (`Payments`); these reads run wherever they are
 * called, inside the caller's transaction when there is one.
 */
import * as Effect from "effect/Effect"
import { PaymentsRepo } from "./PaymentsRepo.js"

export class PaymentReads extends Effect.Service<PaymentReads>()("Convene/PaymentReads", {
  effect: Effect.map(PaymentsRepo, (repo) => ({ ofPersons: repo.ofPersons } as const)),
  dependencies: [PaymentsRepo.Default]
}) {}
