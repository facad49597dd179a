/**
 * The most attempts one destination (a webhook registration, the SMTP server) may have in flight:
 * a quarter of the dispatcher's slots (`WEBHOOK_CONCURRENCY`), at least one, so that no slow or
 * dead receiver holds more than a quarter of the pool.
 */
export const perDestination = (slots: number): number => Math.max(1, Math.ceil(slots / 4))
