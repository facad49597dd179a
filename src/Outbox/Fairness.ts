/**
 * The most attempts one destination (a webhook registration, the SMTP server) may have in flight:
 * a quarter of the dispatcher's slots (`WEBHOOK_CONCURRENCY`), at least one, so that no slow or
 * dead receiver holds more than a quarter of the pool.
 */
export const perDestination = (slots: number): number => Math.max(1, Math.ceil(slots / 4))

/**
 * The most attempts one organization may have in flight, whatever its destinations: half of the
 * slots, at least one, so that an organization with several slow receivers (each within its own
 * share) still leaves the other half of the pool to everyone else.
 */
export const perOrganization = (slots: number): number => Math.max(1, Math.ceil(slots / 2))
